//! The model registry: every kind saved by its concrete type loads through `AnyModel` and predicts
//! what the concrete model predicts; files of another format version, railway kernels and the Python
//! package's former FVS bytes are handled in plain words.

use faer::Mat;
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, KernelSpec, Linear, RealTargets, Samples, Targets};
use kern_models::fvs::FvsParams;
use kern_models::kfa::{BasisChoice, FvsLayer, KfaParams, Projection};
use kern_models::kpca::KernelPcaParams;
use kern_models::krr::KernelRidgeParams;
use kern_models::landmark::{Landmarks, NystromKpcaParams, NystromRidgeParams};
use kern_models::libsvm_model::LibsvmModel;
use kern_models::lssvm::LsSvmParams;
use kern_models::persist::{self, Persist};
use kern_models::railway::{AreaParams, GammaChoice, RailwaySvc, ZoneMap, locate_areas};
use kern_models::scaling::{FeatureScaling, ScaledModel};
use kern_models::svm::{OneClassParams, SvcParams, SvrParams};
use kern_models::{AnyModel, Input, Kind};
use kern_testkit::scratch;
use std::collections::HashSet;

fn data() -> (Samples, Vec<&'static str>) {
    let rows: Vec<[f64; 2]> = (0..40)
        .map(|i| {
            let t = i as f64 * 0.37;
            let c = if i % 2 == 0 { 0.0 } else { 2.5 };
            [c + t.sin() * 0.8, c + (1.3 * t).cos() * 0.8]
        })
        .collect();
    let labels = (0..40).map(|i| if i % 2 == 0 { "1" } else { "2" }).collect();
    (Samples::from_rows(&rows).unwrap(), labels)
}

fn gaussian() -> KernelSpec {
    "gaussian:sigma=1".parse().unwrap()
}

fn same(a: &Mat<f64>, b: &Mat<f64>) {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()));
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            assert_eq!(a[(i, j)].to_bits(), b[(i, j)].to_bits(), "({i}, {j})");
        }
    }
}

fn rows(r: &[Vec<f64>]) -> Mat<f64> {
    Mat::from_fn(r.len(), r.first().map_or(0, Vec::len), |i, j| r[i][j])
}

/// Saves `m` with its concrete type and loads it through the registry.
fn reload<M: Persist>(dir: &std::path::Path, m: &M) -> AnyModel {
    let p = dir.join(format!("{}.kern", M::KIND));
    persist::save(&p, m).unwrap();
    let any = AnyModel::load(&p).unwrap();
    assert_eq!(any.to_bytes().unwrap(), std::fs::read(&p).unwrap(), "{}", M::KIND);
    any
}

#[test]
fn every_kind_round_trips_through_the_registry() {
    let dir = scratch("every_kind_round_trips_through_the_registry");
    let (x, labels) = data();
    let bin = BinaryTargets::from_labels(&labels).unwrap();
    let cls = ClassTargets::from_labels(&labels).unwrap();
    let real = RealTargets::new((0..40).map(|i| x.row(i)[0] - 0.5 * x.row(i)[1]).collect()).unwrap();
    let mut seen = HashSet::new();
    let mut check = |any: &AnyModel, kind: Kind| {
        assert_eq!(any.kind(), kind);
        assert_eq!(any.n_features(), 2, "{}", kind.name());
        seen.insert(kind);
    };

    let svc = SvcParams::new(gaussian()).c(2.0).probability(true, 1).fit(&x, &bin).unwrap();
    let any = reload(&dir, &svc);
    check(&any, Kind::Svc);
    let p = any.predict_all(&x, true).unwrap();
    assert_eq!(p.labels, svc.predict_names(&x).unwrap());
    assert_eq!(p.values, svc.predict(&x).unwrap());
    same(&p.decision, &svc.decision_function(&x).unwrap());
    same(p.proba.as_ref().unwrap(), &svc.predict_proba(&x).unwrap());
    same(&any.predict_proba(&x).unwrap(), &svc.predict_proba(&x).unwrap());
    assert_eq!(any.classes().unwrap(), ["1", "2"]);

    let svr = SvrParams::new(gaussian()).c(5.0).fit(&x, &real).unwrap();
    let any = reload(&dir, &svr);
    check(&any, Kind::Svr);
    assert_eq!(any.predict(&x).unwrap(), svr.predict(&x).unwrap());
    assert!(!any.is_classifier() && any.predict_proba(&x).is_err());

    let oc = OneClassParams::new(gaussian()).fit(&x).unwrap();
    let any = reload(&dir, &oc);
    check(&any, Kind::OneClass);
    same(&any.decision_function(&x).unwrap(), &oc.decision_function(&x).unwrap());
    assert_eq!(any.predict(&x).unwrap(), oc.predict(&x).unwrap());

    let ls = LsSvmParams::new(gaussian()).lambda(1e-2).fit(&x, &bin).unwrap();
    let any = reload(&dir, &ls);
    check(&any, Kind::LsSvm);
    same(&any.decision_function(&x).unwrap(), &ls.decision_function(&x).unwrap());
    assert_eq!(any.predict(&x).unwrap(), ls.predict(&x).unwrap());

    let krr = KernelRidgeParams::new(gaussian()).lambda(1e-2).fit(&x, &real).unwrap();
    let any = reload(&dir, &krr);
    check(&any, Kind::Krr);
    same(&any.decision_function(&x).unwrap(), &krr.decision_function(&x).unwrap());
    assert_eq!(any.predict_labels(&x).unwrap()[0], format!("{}", krr.predict(&x).unwrap()[0]));

    let nys = NystromRidgeParams::lssvm(gaussian(), 1e-2, Landmarks::Random { m: 10 })
        .fit_targets(&x, &Targets::Binary(bin.clone()))
        .unwrap();
    let any = reload(&dir, &nys);
    check(&any, Kind::Nystrom);
    assert_eq!(any.learner_name(), "lssvm");
    same(&any.decision_function(&x).unwrap(), &nys.decision_function(&x).unwrap());
    assert_eq!(any.predict(&x).unwrap(), nys.predict(&x).unwrap());

    let kfa = KfaParams::new(gaussian())
        .basis(BasisChoice::Fvs(FvsParams::with_max(8)))
        .fit(&x, &Targets::Classes(cls.clone()))
        .unwrap();
    let any = reload(&dir, &kfa);
    check(&any, Kind::Kfa);
    same(&any.decision_function(&x).unwrap(), &kfa.outputs(&x).unwrap());
    assert_eq!(any.predict(&x).unwrap(), kfa.predict(&x).unwrap());

    let params = AreaParams { gamma: GammaChoice::Relative(1.0), seed: 3, ..Default::default() };
    let loc = locate_areas(&x, &cls, &params).unwrap();
    let map = ZoneMap::fit(loc.kernel(KernelSpec::Linear(Linear)).unwrap(), &x, 1e-12).unwrap();
    let svc_z =
        SvcParams::new(KernelSpec::Linear(Linear)).c(1.0).fit(&map.transform(&x).unwrap(), &cls).unwrap();
    let railway = RailwaySvc { map, svc: svc_z };
    let any = reload(&dir, &railway);
    check(&any, Kind::RailwaySvc);
    assert_eq!((any.learner_name(), any.kernel().as_str()), ("svc", "railway"));
    assert_eq!(any.predict_labels(&x).unwrap(), railway.predict_names(&x).unwrap());
    assert!(any.predict_proba(&x).unwrap_err().to_string().contains("without probabilities"));

    let kpca = KernelPcaParams::new(gaussian(), 3).fit(&x).unwrap();
    let any = reload(&dir, &kpca);
    check(&any, Kind::Kpca);
    same(&any.transform(&x).unwrap(), &kpca.transform(&x).unwrap());
    assert!(any.predict(&x).unwrap_err().to_string().contains("projects samples"));
    assert!(any.decision_function(&x).is_err());

    let nkpca = NystromKpcaParams::new(gaussian(), 2, Landmarks::Random { m: 10 }).fit(&x).unwrap();
    let any = reload(&dir, &nkpca);
    check(&any, Kind::NystromKpca);
    same(&any.transform(&x).unwrap(), &nkpca.transform(&x).unwrap());

    let fvs =
        FvsLayer::fit(gaussian(), &BasisChoice::Fvs(FvsParams::with_max(6)), Projection::Dot, &x).unwrap();
    let any = reload(&dir, &fvs);
    check(&any, Kind::Fvs);
    same(&any.transform(&x).unwrap(), &fvs.transform(&x).unwrap());
    assert!(svc_free_error(&any, &x).contains("fvs"));

    // A LIBSVM model file is read by the same registry.
    let lib = LibsvmModel::from_svc(&svc).unwrap();
    let p = dir.join("m.libsvm");
    lib.save(&p).unwrap();
    let any = AnyModel::load(&p).unwrap();
    check(&any, Kind::Libsvm);
    assert_eq!(any.predict(&x).unwrap(), lib.predict(&x).unwrap());
    same(&any.decision_function(&x).unwrap(), &rows(&lib.decision_values(&x).unwrap()));
    let (plabel, proba) = lib.predict_probability(&x).unwrap();
    let all = any.predict_all(&x, true).unwrap();
    same(all.proba.as_ref().unwrap(), &rows(&proba));
    assert_eq!(
        all.proba_labels.unwrap(),
        plabel.iter().map(|&v| kern_core::label_name(v)).collect::<Vec<_>>()
    );

    assert_eq!(seen, Kind::ALL.into_iter().collect::<HashSet<_>>(), "a kind without a round trip");

    // A scaled model takes raw samples and scales them as for training.
    let scaling = FeatureScaling::fit(&x, -1.0, 1.0).unwrap();
    let inner = SvcParams::new(gaussian()).c(2.0).fit(&scaling.apply(&x).unwrap(), &bin).unwrap();
    let env = ScaledModel::wrap(scaling.clone(), 2, &inner).unwrap();
    let any = reload(&dir, &env);
    assert_eq!((any.kind(), any.scaled().map(|s| s.dim()), any.takes_sparse()), (Kind::Svc, Some(2), false));
    assert_eq!(any.predict_labels(&x).unwrap(), inner.predict_names(&scaling.apply(&x).unwrap()).unwrap());
    let narrow = Samples::from_rows(&[[0.5]]).unwrap();
    assert!(any.predict(&narrow).unwrap_err().to_string().contains("trained on 2"));
}

fn svc_free_error(any: &AnyModel, x: &Samples) -> String {
    any.predict_proba(x).unwrap_err().to_string()
}

#[test]
fn a_precomputed_model_takes_kernel_rows() {
    let (x, labels) = data();
    let bin = BinaryTargets::from_labels(&labels).unwrap();
    let k: KernelSpec = gaussian();
    let g = kern_testkit::reference::gram(&k, &x);
    let gram = kern_models::svm::KernelMatrix::new(rows(&g)).unwrap();
    let m = SvcParams::new(k).c(2.0).fit_precomputed(&gram, &Targets::Binary(bin)).unwrap();
    let any = AnyModel::from_bytes(&persist::to_bytes(&m).unwrap(), "m.kern").unwrap();
    assert_eq!(any.input(), Input::KernelRows);
    assert!(any.n_features() <= x.n());
    let rows = Samples::from_flat(g.concat(), x.n(), x.n()).unwrap();
    assert_eq!(any.predict_labels(&rows).unwrap(), m.predict_names(&rows).unwrap());
}

#[test]
fn other_versions_railway_kernels_and_unknown_kinds_are_refused_in_plain_words() {
    let (x, labels) = data();
    let bin = BinaryTargets::from_labels(&labels).unwrap();
    let m = LsSvmParams::new(gaussian()).lambda(1e-2).fit(&x, &bin).unwrap();
    let bytes = persist::to_bytes(&m).unwrap();
    // The current format version loads; another version is refused with both versions named.
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), persist::FORMAT_VERSION);
    let mut old = bytes.clone();
    old[8..12].copy_from_slice(&2u32.to_le_bytes());
    let e = AnyModel::from_bytes(&old, "old.kern").unwrap_err().to_string();
    assert!(
        e.contains("format version 2") && e.contains(&format!("reads {}", persist::FORMAT_VERSION)),
        "{e}"
    );
    // A kind tag this kern does not know.
    let mut unknown = bytes.clone();
    unknown[12..24].copy_from_slice(b"quantum\0\0\0\0\0");
    let e = AnyModel::from_bytes(&unknown, "q.kern").unwrap_err().to_string();
    assert!(e.contains("model kind \"quantum\" is unknown") && e.contains("svc, svr"), "{e}");
    // A railway kernel is a kernel, not a model.
    let loc = locate_areas(&x, &ClassTargets::from_labels(&labels).unwrap(), &AreaParams::default()).unwrap();
    let k = loc.kernel(KernelSpec::Linear(Linear)).unwrap();
    let e = AnyModel::from_bytes(&persist::to_bytes(&k).unwrap(), "r.kern").unwrap_err().to_string();
    assert!(e.contains("railway kernel, not a trained model"), "{e}");
    // Every truncation is an error, never a panic.
    for cut in [0, 10, 39, 41, bytes.len() - 1] {
        assert!(AnyModel::from_bytes(&bytes[..cut], "t.kern").is_err(), "cut {cut}");
    }
}

#[test]
fn the_python_packages_former_fvs_bytes_still_load() {
    let (x, _) = data();
    let fvs =
        FvsLayer::fit(gaussian(), &BasisChoice::Fvs(FvsParams::with_max(5)), Projection::Dot, &x).unwrap();
    let file = persist::to_bytes(&fvs).unwrap();
    let mut legacy = b"kern-python fvs-map\n".to_vec();
    legacy.extend_from_slice(&file[persist::HEADER_LEN..]);
    let any = AnyModel::from_bytes(&legacy, "pickled model").unwrap();
    assert_eq!(any.kind(), Kind::Fvs);
    same(&any.transform(&x).unwrap(), &fvs.transform(&x).unwrap());
    // Re-saved, it is a kern model file of kind fvs.
    assert_eq!(any.to_bytes().unwrap(), file);
}

proptest::proptest! {
    #![proptest_config(kern_testkit::proptest_config(12))]
    /// A trained LS-SVM equals itself after a save and load, whole (`==` on every field, the fit's
    /// wall time included: it is a fact of the run, not of the model), bare and in an envelope with
    /// its scaling; with λ given or chosen by leave-one-out (the selection record travels too).
    #[test]
    fn lssvm_and_envelope_round_trips_are_equal(
        coords in proptest::collection::vec(-3.0f64..3.0, 12..40),
        sigma in 0.3f64..3.0,
        lambda in proptest::option::of(1e-4f64..10.0),
    ) {
        use kern_models::schema::ModelEnvelope;
        let n = coords.len() / 2;
        let x = Samples::from_flat(coords[..2 * n].to_vec(), n, 2).unwrap();
        let labels: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { -1.0 } else { 1.0 }).collect();
        let y = BinaryTargets::from_f64(&labels).unwrap();
        let p = LsSvmParams::new(format!("gaussian:sigma={sigma}").parse().unwrap());
        let m = match lambda {
            Some(l) => p.lambda(l),
            None => p,
        }
        .fit(&x, &y)
        .unwrap();
        let back: kern_models::lssvm::LsSvm = persist::from_bytes(&persist::to_bytes(&m).unwrap(), "m").unwrap();
        proptest::prop_assert_eq!(&back, &m);
        let scaling = FeatureScaling::fit(&x, -1.0, 1.0).unwrap();
        let env = ModelEnvelope::wrap(&m, 2, Some(scaling), None).unwrap();
        let env_back: ModelEnvelope = persist::from_bytes(&persist::to_bytes(&env).unwrap(), "e").unwrap();
        proptest::prop_assert_eq!(&env_back, &env);
        proptest::prop_assert_eq!(&env_back.unwrap_model::<kern_models::lssvm::LsSvm>().unwrap(), &m);
    }
}
