//! Data shared by the test files of kern-dist.

use kern_core::{BinaryTargets, Samples};

/// `n` points of two interleaved blobs in 2-D with labels "1" and "2" (even rows are class 1).
pub fn two_blobs(n: usize) -> (Samples, BinaryTargets) {
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for i in 0..n {
        let t = i as f64 * 0.37;
        let s = if i % 2 == 0 { 1.0 } else { -1.0 };
        rows.push([s + 0.6 * t.sin(), s * 0.5 + 0.6 * (1.3 * t).cos()]);
        labels.push(if s > 0.0 { "1" } else { "2" });
    }
    (Samples::from_rows(&rows).unwrap(), BinaryTargets::from_labels(&labels).unwrap())
}
