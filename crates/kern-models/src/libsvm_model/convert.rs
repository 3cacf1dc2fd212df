//! kern's SVMs as LIBSVM models ([`LibsvmModel::from_svc`] for C-SVC and ν-SVC,
//! [`LibsvmModel::from_svr`] for ε-SVR and ν-SVR, [`LibsvmModel::from_one_class`]).

use super::{LibsvmKernel, LibsvmModel, SvmType};
use crate::error::{ModelsError, Result};
use crate::svm::{Multiclass, OneClass, Svc, Svr};
use kern_core::Samples;

/// A class name as LIBSVM's integer label.
fn int_label(name: &str) -> Result<i32> {
    let v: f64 = name.trim().parse().map_err(|_| not_int(name))?;
    if v.fract() != 0.0 || v < f64::from(i32::MIN) || v > f64::from(i32::MAX) {
        return Err(not_int(name));
    }
    Ok(v as i32)
}

fn not_int(name: &str) -> ModelsError {
    ModelsError::Input(format!(
        "class {name:?} is not an integer: LIBSVM model files store integer class labels (relabel the classes \
         as integers to export)"
    ))
}

/// The support vectors' LIBSVM nodes: their coordinates, or `0:serial` for a precomputed kernel.
fn sv_nodes(sv: &Samples, rows: &[usize], precomputed: bool) -> Vec<Vec<(u32, f64)>> {
    if precomputed {
        return rows.iter().map(|&r| vec![(0, sv.row(r)[0])]).collect();
    }
    rows.iter().map(|&r| super::nodes(sv.sample(r))).collect()
}

/// The LIBSVM kernel of a kern model: `precomputed`, or the one equal to its kernel.
fn kernel_of(spec: &kern_core::KernelSpec, precomputed: bool) -> Result<LibsvmKernel> {
    if precomputed {
        return Ok(LibsvmKernel::precomputed());
    }
    LibsvmKernel::from_spec(spec)
}

impl LibsvmModel {
    /// A kern C-SVC as a LIBSVM `c_svc` model with the same decision values.
    ///
    /// Label order: for two classes, the class that kern's machine calls positive comes first (for
    /// labels −1/+1 that is `+1`, LIBSVM's own order), so LIBSVM's decision value equals kern's; for more
    /// classes, kern's class order, whose pairs `(a, b)` with `a < b` are LIBSVM's. Platt sigmoids become
    /// `probA`/`probB`. Refused, with the reason: one-vs-rest models (LIBSVM only has one-vs-one),
    /// class names that are not integers, and kernels LIBSVM does not have
    /// ([`LibsvmKernel::from_spec`]).
    ///
    /// ```
    /// use kern_models::libsvm_model::LibsvmModel;
    /// use kern_models::svm::SvcParams;
    /// use kern_core::{Samples, ClassTargets, learner::Fit};
    /// let x = Samples::from_rows(&[[0.0, 0.0], [0.1, 0.0], [5.0, 0.0], [5.1, 0.0], [0.0, 5.0], [0.0, 5.1]])?;
    /// let y = ClassTargets::from_labels(&["1", "1", "2", "2", "3", "3"])?;
    /// let m = LibsvmModel::from_svc(&SvcParams::new("linear".parse()?).fit(&x, &y)?)?;
    /// assert_eq!(m.labels(), Some(&[1, 2, 3][..]));
    /// assert_eq!(m.predict(&x)?, vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_svc(svc: &Svc) -> Result<Self> {
        let kernel = kernel_of(svc.kernel(), svc.is_precomputed())?;
        let names = svc.names();
        let k = names.len();
        let machines = svc.machines();
        if machines.iter().any(|m| m.1.is_none()) || (k > 2 && svc.scheme() == Multiclass::OneVsRest) {
            return Err(ModelsError::Input(
                "one-vs-rest models cannot be written as LIBSVM models (LIBSVM is one-vs-one); retrain with \
                 the one-vs-one scheme"
                    .into(),
            ));
        }
        // `order[p]` = kern class at LIBSVM position p; `lpos[c]` its inverse.
        let order: Vec<usize> =
            if k == 2 { vec![machines[0].0, machines[0].1.expect("checked")] } else { (0..k).collect() };
        let mut lpos = vec![0; k];
        for (p, &c) in order.iter().enumerate() {
            lpos[c] = p;
        }
        let label = order.iter().map(|&c| int_label(&names[c])).collect::<Result<Vec<_>>>()?;
        // LIBSVM's pair index of each machine, and the class of each support vector.
        let pair_index = |i: usize, j: usize| i * (2 * k - i - 1) / 2 + (j - i - 1);
        let sv = svc.support_vectors();
        let mut class_of = vec![usize::MAX; sv.n()];
        let mut per_pair: Vec<Option<usize>> = vec![None; k * (k - 1) / 2];
        for (m, &(pos, neg, _)) in machines.iter().enumerate() {
            let neg = neg.expect("checked");
            let (i, j) = (lpos[pos], lpos[neg]);
            if i >= j {
                return Err(ModelsError::Input(format!("machine {m} is not in LIBSVM's pair order")));
            }
            per_pair[pair_index(i, j)] = Some(m);
            let (rows, coef) = svc.machine_coefficients(m);
            for (&r, &c) in rows.iter().zip(&coef) {
                class_of[r] = if c > 0.0 { i } else { j };
            }
        }
        if per_pair.iter().any(Option::is_none) {
            return Err(ModelsError::Input("the model does not have one machine per pair of classes".into()));
        }
        // Support vectors grouped by class (LIBSVM's label order), in kern's order within a class.
        let mut rows: Vec<usize> = (0..sv.n()).filter(|&r| class_of[r] != usize::MAX).collect();
        rows.sort_by_key(|&r| class_of[r]);
        let mut at = vec![usize::MAX; sv.n()];
        for (t, &r) in rows.iter().enumerate() {
            at[r] = t;
        }
        let nr_sv: Vec<usize> = (0..k).map(|c| rows.iter().filter(|&&r| class_of[r] == c).count()).collect();
        let l = rows.len();
        let mut sv_coef = vec![vec![0.0; l]; k - 1];
        let mut rho = vec![0.0; k * (k - 1) / 2];
        for i in 0..k {
            for j in i + 1..k {
                let m = per_pair[pair_index(i, j)].expect("checked");
                rho[pair_index(i, j)] = -machines[m].2;
                let (mrows, coef) = svc.machine_coefficients(m);
                for (&r, &c) in mrows.iter().zip(&coef) {
                    let col = if class_of[r] == i { j - 1 } else { i };
                    sv_coef[col][at[r]] = c;
                }
            }
        }
        let (prob_a, prob_b) = match svc.platt_sigmoids() {
            Some(s) => {
                let mut a = vec![0.0; rho.len()];
                let mut b = vec![0.0; rho.len()];
                for i in 0..k {
                    for j in i + 1..k {
                        let p = pair_index(i, j);
                        let (sa, sb) = s[per_pair[p].expect("checked")];
                        a[p] = sa;
                        b[p] = sb;
                    }
                }
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        Ok(LibsvmModel {
            svm_type: if svc.nu().is_some() { SvmType::NuSvc } else { SvmType::CSvc },
            spec: kernel.spec()?,
            kernel,
            nr_class: k,
            rho,
            label: Some(label),
            prob_a,
            prob_b,
            prob_density_marks: None,
            nr_sv: Some(nr_sv),
            sv_coef,
            sv: sv_nodes(sv, &rows, svc.is_precomputed()),
        })
    }

    /// A kern ε-SVR (ν-SVR) as a LIBSVM `epsilon_svr` (`nu_svr`) model with the same predictions.
    ///
    /// ```
    /// use kern_models::libsvm_model::LibsvmModel;
    /// use kern_models::svm::SvrParams;
    /// use kern_core::{Samples, RealTargets, learner::{Fit, Model}};
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let y = RealTargets::new(vec![0.0, 1.0, 4.0, 9.0])?;
    /// let svr = SvrParams::new("poly:degree=2,coef0=1".parse()?).c(10.0).fit(&x, &y)?;
    /// let m = LibsvmModel::from_svr(&svr)?;
    /// let (a, b) = (m.predict(&x)?, svr.predict(&x)?);
    /// assert!(a.iter().zip(&b).all(|(u, v)| (u - v).abs() < 1e-9));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_svr(svr: &Svr) -> Result<Self> {
        let kernel = kernel_of(svr.kernel(), svr.is_precomputed())?;
        let sv = svr.support_vectors();
        let rows: Vec<usize> = (0..sv.n()).collect();
        Ok(LibsvmModel {
            svm_type: if svr.nu().is_some() { SvmType::NuSvr } else { SvmType::EpsilonSvr },
            spec: kernel.spec()?,
            kernel,
            nr_class: 2,
            rho: vec![-svr.bias()],
            label: None,
            prob_a: None,
            prob_b: None,
            prob_density_marks: None,
            nr_sv: None,
            sv_coef: vec![svr.coefficients().to_vec()],
            sv: sv_nodes(sv, &rows, svr.is_precomputed()),
        })
    }

    /// A kern one-class SVM as a LIBSVM `one_class` model with the same decision values.
    ///
    /// ```
    /// use kern_models::libsvm_model::{LibsvmModel, SvmType};
    /// use kern_models::svm::OneClassParams;
    /// use kern_core::{Samples, learner::Model};
    /// let x = Samples::from_rows(&[[0.0], [0.5], [1.0], [1.5], [2.0]])?;
    /// let oc = OneClassParams::new("gaussian:sigma=1".parse()?).nu(0.4).fit(&x)?;
    /// let m = LibsvmModel::from_one_class(&oc)?;
    /// assert_eq!(m.svm_type(), SvmType::OneClass);
    /// assert_eq!(m.predict(&x)?, oc.predict(&x)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_one_class(m: &OneClass) -> Result<Self> {
        let kernel = kernel_of(m.kernel(), m.is_precomputed())?;
        let sv = m.support_vectors();
        let rows: Vec<usize> = (0..sv.n()).collect();
        Ok(LibsvmModel {
            svm_type: SvmType::OneClass,
            spec: kernel.spec()?,
            kernel,
            nr_class: 2,
            rho: vec![m.rho()],
            label: None,
            prob_a: None,
            prob_b: None,
            prob_density_marks: None,
            nr_sv: None,
            sv_coef: vec![m.coefficients().to_vec()],
            sv: sv_nodes(sv, &rows, m.is_precomputed()),
        })
    }
}
