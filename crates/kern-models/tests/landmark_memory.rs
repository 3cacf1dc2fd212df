//! Landmark models size their m × m matrices and kernel blocks against the memory budget and refuse
//! with an error (one test: the budget is process-wide).

use kern_core::{RealTargets, Samples, Targets, memory};
use kern_models::landmark::{Landmarks, NystromKpcaParams, NystromRidgeParams};

#[test]
fn centres_that_do_not_fit_are_refused() {
    let n = 3000;
    let x = Samples::from_flat((0..2 * n).map(|i| (i as f64 * 0.37).sin()).collect(), n, 2).unwrap();
    let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0]).collect()).unwrap());
    let k: kern_core::KernelSpec = "gaussian:sigma=0.5".parse().unwrap();
    // 2000 centres need 3 · 2000² doubles (96 MB) for K_mm and its factors; allow 16 MB.
    memory::set_limit(Some(16 << 20));
    let ridge = NystromRidgeParams::krr(k.clone(), 1e-3, Landmarks::Random { m: 2000 }).fit_targets(&x, &y);
    let kpca = NystromKpcaParams::new(k.clone(), 2, Landmarks::Random { m: 2000 }).fit(&x);
    let fvs = NystromRidgeParams::krr(k.clone(), 1e-3, Landmarks::Fvs { m: 2000, pool: Some(3000) })
        .fit_targets(&x, &y);
    // 100 centres fit.
    let small = NystromRidgeParams::krr(k, 1e-3, Landmarks::Random { m: 100 }).fit_targets(&x, &y);
    memory::set_limit(None);
    for (what, r) in [("ridge", ridge.err()), ("kpca", kpca.err()), ("fvs", fvs.err())] {
        let msg = r.unwrap_or_else(|| panic!("{what}: not refused")).to_string();
        assert!(
            msg.contains("needs") && msg.contains("fewer centres") || msg.contains("pool"),
            "{what}: {msg}"
        );
    }
    assert!(small.is_ok(), "{:?}", small.err());
}
