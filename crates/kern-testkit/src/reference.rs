//! Brute-force references: what a fast path must agree with, computed by the definition.

use kern_core::{Kernel, Samples};

/// The dense Gram matrix `K_ij = k(x_i, x_j)` by the definition, one `eval` per entry, as rows.
///
/// ```
/// use kern_core::KernelSpec;
/// let x = kern_core::Samples::from_rows(&[[0.0], [1.0]]).unwrap();
/// let k: KernelSpec = "linear".parse().unwrap();
/// assert_eq!(kern_testkit::reference::gram(&k, &x), vec![vec![0.0, 0.0], vec![0.0, 1.0]]);
/// ```
pub fn gram<K: Kernel>(kernel: &K, x: &Samples) -> Vec<Vec<f64>> {
    cross_gram(kernel, x, x)
}

/// The cross Gram matrix `K_ij = k(y_i, x_j)` by the definition, as rows.
///
/// ```
/// use kern_core::KernelSpec;
/// let x = kern_core::Samples::from_rows(&[[1.0, 0.0]]).unwrap();
/// let y = kern_core::Samples::from_rows(&[[2.0, 3.0], [0.0, 1.0]]).unwrap();
/// let k: KernelSpec = "linear".parse().unwrap();
/// assert_eq!(kern_testkit::reference::cross_gram(&k, &y, &x), vec![vec![2.0], vec![0.0]]);
/// ```
pub fn cross_gram<K: Kernel>(kernel: &K, y: &Samples, x: &Samples) -> Vec<Vec<f64>> {
    (0..y.n()).map(|i| (0..x.n()).map(|j| kernel.eval_ref(y.sample(i), x.sample(j))).collect()).collect()
}
