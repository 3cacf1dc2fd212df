//! The one check of prediction outputs: decision values, predictions, probabilities and projections
//! must be finite. A model can be valid and still produce `inf` or `NaN` on some inputs (a polynomial
//! kernel of high degree on unscaled features, a LIBSVM model file with a coefficient near `1e308`);
//! every public prediction function passes its output through here, so such a value is an error
//! naming the first offending row instead of a number written with success.

use crate::error::{ModelsError, Result};
use faer::MatRef;

/// The first row (0-based) of an `nrows × ncols` table whose entries `get(i, j)` are not all finite.
fn first_bad_row(nrows: usize, ncols: usize, get: impl Fn(usize, usize) -> f64) -> Option<usize> {
    (0..nrows).find(|&i| (0..ncols).any(|j| !get(i, j).is_finite()))
}

/// The error for row `row` (0-based) of the outputs named `what`.
fn error(what: &'static str, row: usize) -> ModelsError {
    ModelsError::NonFinite { what, row: row + 1 }
}

/// Every entry of `m` (one row per sample) is finite.
pub(crate) fn mat(m: MatRef<'_, f64>, what: &'static str) -> Result<()> {
    match first_bad_row(m.nrows(), m.ncols(), |i, j| m[(i, j)]) {
        Some(r) => Err(error(what, r)),
        None => Ok(()),
    }
}

/// Every entry of `rows` (one row per sample) is finite.
pub(crate) fn rows(rows: &[Vec<f64>], what: &'static str) -> Result<()> {
    match (0..rows.len()).find(|&i| first_bad_row(1, rows[i].len(), |_, j| rows[i][j]).is_some()) {
        Some(r) => Err(error(what, r)),
        None => Ok(()),
    }
}

/// Every value of `v` (one per sample) is finite.
pub(crate) fn values(v: &[f64], what: &'static str) -> Result<()> {
    match first_bad_row(v.len(), 1, |i, _| v[i]) {
        Some(r) => Err(error(what, r)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bad_row_is_named_counting_from_one() {
        let m = faer::Mat::from_fn(4, 2, |i, j| if (i, j) == (2, 1) { f64::NAN } else { 1.0 });
        let e = mat(m.as_ref(), "decision values").unwrap_err().to_string();
        assert!(e.contains("row 3 of the data"), "{e}");
        assert!(rows(&[vec![1.0], vec![f64::INFINITY]], "x").unwrap_err().to_string().contains("row 2 "));
        assert!(values(&[1.0, 2.0], "x").is_ok());
        assert!(values(&[f64::NEG_INFINITY], "x").is_err());
    }
}
