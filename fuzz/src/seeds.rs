//! Valid model files of every kind, to mutate (both drivers), and the model header's checksum.

/// FNV-1a 64-bit, the checksum of a model file's payload (as `kern_models::persist` computes it).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Valid models of every kind, trained on a tiny data set, to mutate.
pub fn model_seeds() -> Vec<Vec<u8>> {
    use kern_core::learner::Fit;
    use kern_core::{BinaryTargets, RealTargets, Samples};
    use kern_models::persist::to_bytes;
    let x = Samples::from_rows(&[[0.0, 0.0], [1.0, 0.2], [0.1, 1.0], [1.2, 1.1], [0.5, 0.4], [0.9, 0.8]])
        .unwrap();
    let yb = BinaryTargets::from_labels(&["a", "b", "a", "b", "a", "b"]).unwrap();
    let yr = RealTargets::new(vec![0.0, 1.2, 1.1, 2.3, 0.9, 1.7]).unwrap();
    let k: kern_core::KernelSpec = "gaussian:sigma=1".parse().unwrap();
    let tb = kern_core::Targets::Binary(yb.clone());
    let tr = kern_core::Targets::Real(yr.clone());
    let mut seeds = vec![
        to_bytes(&kern_models::svm::SvcParams::new(k.clone()).probability(true, 1).fit(&x, &tb).unwrap())
            .unwrap(),
        to_bytes(&kern_models::svm::SvrParams::new(k.clone()).fit(&x, &yr).unwrap()).unwrap(),
        to_bytes(&kern_models::lssvm::LsSvmParams::new(k.clone()).lambda(1.0).fit_targets(&x, &tb).unwrap())
            .unwrap(),
        to_bytes(
            &kern_models::krr::KernelRidgeParams::new(k.clone()).lambda(1.0).fit_targets(&x, &tr).unwrap(),
        )
        .unwrap(),
        to_bytes(&kern_models::kpca::KernelPcaParams::new(k.clone(), 2).fit(&x).unwrap()).unwrap(),
        to_bytes(&kern_models::kfa::KfaParams::new(k).fit(&x, &yb).unwrap()).unwrap(),
    ];
    seeds.retain(|s| !s.is_empty());
    seeds
}
