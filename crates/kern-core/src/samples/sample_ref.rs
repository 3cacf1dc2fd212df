//! One borrowed sample of either store, and the three sample operations every kernel needs — squared
//! norm, inner product, squared distance — for dense × dense, sparse × sparse and sparse × dense pairs.

/// One sample, borrowed from [`crate::Samples::sample`] (or built from a slice with
/// [`SampleRef::Dense`]): a dense coordinate slice, or the nonzeros of a sparse sample (strictly
/// ascending column indices and their values, as validated by the CSR store).
///
/// The operations are exact in the sense of summing the same products a dense computation sums
/// (sparse × sparse distances are merged coordinate by coordinate, so no cancellation arises).
///
/// ```
/// use kern_core::{SampleRef, Samples};
/// let x = Samples::from_csr(2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0])?;
/// let (a, b) = (x.sample(0), x.sample(1));
/// let y = [1.0, 1.0, 1.0];
/// assert_eq!(a.sq_norm(), 5.0);
/// assert_eq!(a.dot(b), 0.0);
/// assert_eq!(a.sq_dist(b), 14.0);
/// assert_eq!(a.dot(SampleRef::Dense(&y)), 3.0);
/// assert_eq!(a.sq_dist(SampleRef::Dense(&y)), 0.0 + 1.0 + 1.0);
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SampleRef<'a> {
    /// All `d` coordinates.
    Dense(&'a [f64]),
    /// The nonzero coordinates: `values[t]` sits at column `indices[t]`; indices strictly ascend.
    Sparse {
        /// Column indices, strictly ascending.
        indices: &'a [usize],
        /// The values at those columns.
        values: &'a [f64],
    },
}

impl<'a> SampleRef<'a> {
    /// Number of stored coordinates (`d` for a dense sample, the nonzeros for a sparse one).
    ///
    /// ```
    /// assert_eq!(kern_core::SampleRef::Dense(&[0.0, 1.0]).stored(), 2);
    /// ```
    #[inline]
    pub fn stored(&self) -> usize {
        match self {
            SampleRef::Dense(x) => x.len(),
            SampleRef::Sparse { indices, .. } => indices.len(),
        }
    }

    /// `‖x‖²`.
    ///
    /// ```
    /// assert_eq!(kern_core::SampleRef::Dense(&[3.0, 4.0]).sq_norm(), 25.0);
    /// ```
    #[inline]
    pub fn sq_norm(&self) -> f64 {
        match self {
            SampleRef::Dense(x) => x.iter().map(|v| v * v).sum(),
            SampleRef::Sparse { values, .. } => values.iter().map(|v| v * v).sum(),
        }
    }

    /// `⟨x, y⟩` (the dimensions are the caller's to check).
    ///
    /// ```
    /// use kern_core::SampleRef;
    /// let s = SampleRef::Sparse { indices: &[1, 4], values: &[2.0, 3.0] };
    /// let t = SampleRef::Sparse { indices: &[0, 4], values: &[7.0, 1.0] };
    /// assert_eq!(s.dot(t), 3.0);
    /// assert_eq!(t.dot(SampleRef::Dense(&[1.0, 1.0, 1.0, 1.0, 1.0])), 8.0);
    /// ```
    #[inline]
    pub fn dot(&self, other: SampleRef<'_>) -> f64 {
        match (*self, other) {
            (SampleRef::Dense(x), SampleRef::Dense(y)) => super::dot(x, y),
            (SampleRef::Sparse { indices, values }, SampleRef::Dense(y))
            | (SampleRef::Dense(y), SampleRef::Sparse { indices, values }) => {
                indices.iter().zip(values).map(|(&k, v)| v * y[k]).sum()
            }
            (
                SampleRef::Sparse { indices: ia, values: va },
                SampleRef::Sparse { indices: ib, values: vb },
            ) => {
                let (mut s, mut p, mut q) = (0.0, 0, 0);
                while p < ia.len() && q < ib.len() {
                    match ia[p].cmp(&ib[q]) {
                        std::cmp::Ordering::Less => p += 1,
                        std::cmp::Ordering::Greater => q += 1,
                        std::cmp::Ordering::Equal => {
                            s += va[p] * vb[q];
                            p += 1;
                            q += 1;
                        }
                    }
                }
                s
            }
        }
    }

    /// `‖x − y‖²`, summed coordinate by coordinate (no norms formulation, hence no cancellation).
    ///
    /// ```
    /// use kern_core::SampleRef;
    /// let s = SampleRef::Sparse { indices: &[1], values: &[2.0] };
    /// assert_eq!(s.sq_dist(SampleRef::Dense(&[1.0, 2.0, 0.0])), 1.0);
    /// assert_eq!(s.sq_dist(SampleRef::Sparse { indices: &[2], values: &[1.0] }), 5.0);
    /// ```
    #[inline]
    pub fn sq_dist(&self, other: SampleRef<'_>) -> f64 {
        match (*self, other) {
            (SampleRef::Dense(x), SampleRef::Dense(y)) => super::sq_dist(x, y),
            (SampleRef::Sparse { indices, values }, SampleRef::Dense(y))
            | (SampleRef::Dense(y), SampleRef::Sparse { indices, values }) => {
                // Walk the dense coordinates once, pairing them with the sparse ones where they sit.
                let mut s = 0.0;
                let mut p = 0;
                for (k, &yk) in y.iter().enumerate() {
                    let xk = if p < indices.len() && indices[p] == k {
                        p += 1;
                        values[p - 1]
                    } else {
                        0.0
                    };
                    s += (xk - yk) * (xk - yk);
                }
                s
            }
            (
                SampleRef::Sparse { indices: ia, values: va },
                SampleRef::Sparse { indices: ib, values: vb },
            ) => {
                let (mut s, mut p, mut q) = (0.0, 0, 0);
                while p < ia.len() || q < ib.len() {
                    let diff = match (ia.get(p), ib.get(q)) {
                        (Some(a), Some(b)) if a == b => {
                            p += 1;
                            q += 1;
                            va[p - 1] - vb[q - 1]
                        }
                        (Some(a), Some(b)) if a < b => {
                            p += 1;
                            va[p - 1]
                        }
                        (Some(_), None) => {
                            p += 1;
                            va[p - 1]
                        }
                        _ => {
                            q += 1;
                            vb[q - 1]
                        }
                    };
                    s += diff * diff;
                }
                s
            }
        }
    }

    /// Writes the sample's `d` coordinates into `out` (`out.len()` is the dimension; it is overwritten).
    ///
    /// ```
    /// use kern_core::SampleRef;
    /// let mut out = [9.0; 3];
    /// SampleRef::Sparse { indices: &[2], values: &[5.0] }.write_dense(&mut out);
    /// assert_eq!(out, [0.0, 0.0, 5.0]);
    /// ```
    pub fn write_dense(&self, out: &mut [f64]) {
        match self {
            SampleRef::Dense(x) => out.copy_from_slice(x),
            SampleRef::Sparse { indices, values } => {
                out.fill(0.0);
                for (&k, &v) in indices.iter().zip(*values) {
                    out[k] = v;
                }
            }
        }
    }

    /// The dense slice, when the sample is dense.
    ///
    /// ```
    /// assert_eq!(kern_core::SampleRef::Dense(&[1.0]).as_dense(), Some(&[1.0][..]));
    /// ```
    #[inline]
    pub fn as_dense(&self) -> Option<&'a [f64]> {
        match self {
            SampleRef::Dense(x) => Some(x),
            SampleRef::Sparse { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A random sparse vector of dimension `d` with its dense twin.
    fn sparse_and_dense(d: usize) -> impl Strategy<Value = (Vec<usize>, Vec<f64>, Vec<f64>)> {
        proptest::collection::vec(proptest::option::weighted(0.3, -3.0f64..3.0), d).prop_map(|v| {
            let mut idx = Vec::new();
            let mut val = Vec::new();
            let dense: Vec<f64> = v.iter().map(|o| o.unwrap_or(0.0)).collect();
            for (k, o) in v.iter().enumerate() {
                if let Some(x) = o {
                    idx.push(k);
                    val.push(*x);
                }
            }
            (idx, val, dense)
        })
    }

    proptest! {
        #![proptest_config(kern_testkit::proptest_config(64))]
        #[test]
        fn every_pairing_agrees_with_dense((ia, va, da) in sparse_and_dense(9), (ib, vb, db) in sparse_and_dense(9)) {
            let sa = SampleRef::Sparse { indices: &ia, values: &va };
            let sb = SampleRef::Sparse { indices: &ib, values: &vb };
            let (xa, xb) = (SampleRef::Dense(&da), SampleRef::Dense(&db));
            let (dot, dist) = (xa.dot(xb), xa.sq_dist(xb));
            for (p, q) in [(sa, sb), (sa, xb), (xa, sb), (sb, sa), (xb, sa)] {
                prop_assert!((p.dot(q) - dot).abs() <= 1e-12 * (1.0 + dot.abs()));
                prop_assert!((p.sq_dist(q) - dist).abs() <= 1e-12 * (1.0 + dist));
            }
            prop_assert!((sa.sq_norm() - xa.sq_norm()).abs() <= 1e-12 * (1.0 + xa.sq_norm()));
            let mut back = vec![1.0; 9];
            sa.write_dense(&mut back);
            prop_assert_eq!(back, da);
        }
    }
}
