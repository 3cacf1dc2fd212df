//! Binary C-SVCs along a path of `C` values on subsets of one data set (the cells of a grid search
//! that share a kernel, fold by fold): the kernel matrix of all samples is computed once
//! ([`SharedGram`]) and every training fold reads its submatrix from it, and each fit along the path
//! starts from the previous one's solution.
//!
//! **Warm start.** The dual of a C-SVC is `min ½ αᵀQα − eᵀα` s.t. `yᵀα = 0`, `0 ≤ α_i ≤ C_i`. Along
//! ascending `C` (every `C_i` at least its previous value) the previous optimum `α` lies in the new
//! box as it is — clipping it to `[0, C_i]` changes nothing — and `yᵀα = 0` still holds, so it is a
//! feasible start of the next problem with no repair. When some `C_i` shrinks (not the case for the
//! paths [`SvcParams::predict_c_path`] is given, which it sorts, but possible with per-class weights
//! that change) the fit starts from zero instead: a clipped start would break `yᵀα = 0`.
//!
//! **Same answer as a cold start within the tolerance.** The warm and the cold run stop by the same
//! rule `m(α) − M(α) ≤ ε` on the same dual, so both objectives are within `ε/2 · Σ_i C_i` of the
//! optimum (the bound derived in the solver's blocked tests: `f(α) − f(α*) ≤ ∇f(α)ᵀ(α − α*)`, whose
//! terms are bounded by `(m − M)|d_t|` and `Σ|d_t| ≤ 2 Σ C_t / 2` by `yᵀd = 0`), hence within
//! `ε/2 · Σ C_i` of each other.

use super::params::SvcParams;
use super::solver::Solution;
use super::train::{self, Dual};
use crate::error::{ModelsError, Result};
use faer::Mat;
use kern_core::{BinaryTargets, KernelSpec, Samples};
use kern_sparse::kmatrix::Precomputed;
use std::sync::Arc;

/// The dense kernel matrix `K(X, X)` of a data set, computed once and shared (never copied) by every
/// C-SVC trained by [`SvcParams::predict_c_path`] on a subset of its rows with the same kernel.
///
/// ```
/// use kern_models::svm::SharedGram;
/// use kern_core::Samples;
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0]])?;
/// let g = SharedGram::new(&"gaussian:sigma=1".parse()?, &x)?;
/// assert_eq!(g.n(), 3);
/// assert!(SharedGram::fits(3, 72) && !SharedGram::fits(3, 71));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SharedGram {
    kernel: KernelSpec,
    gram: Arc<Mat<f64>>,
}

impl SharedGram {
    /// The kernel matrix of `x` under `kernel` (kern-core's blocked GEMM); a compactly supported kernel
    /// gets its dense matrix too.
    pub fn new(kernel: &KernelSpec, x: &Samples) -> Result<Self> {
        let gram = train::dense_gram(kernel, x)?;
        // A kernel whose values overflow (a high polynomial degree on large inputs) would make every
        // fit of the path meaningless: refuse it here, as a trained model's validation does.
        for j in 0..gram.ncols() {
            if let Some(i) = gram.col(j).iter().position(|v| !v.is_finite()) {
                return Err(ModelsError::Numerical(format!(
                    "kernel value K(x{i}, x{j}) = {} is not finite (kernel {kernel})",
                    gram[(i, j)]
                )));
            }
        }
        Ok(SharedGram { kernel: kernel.clone(), gram })
    }

    /// A precomputed kernel matrix (LIBSVM `-t 4`), shared and never copied: the samples given to
    /// [`SvcParams::predict_c_path`] are then the serial numbers `1, …, n` of the training points (one
    /// column; only their count is read) and the learners of the path carry the linear kernel, a
    /// placeholder that is never evaluated (every kernel value is read from the matrix).
    ///
    /// ```
    /// use kern_models::svm::{KernelMatrix, SharedGram, SvcParams};
    /// use kern_core::{BinaryTargets, Samples};
    /// // The linear kernel of the points 0, 0.2, 2, 2.2 on a line, plus 1.
    /// let p = [0.0, 0.2, 2.0, 2.2];
    /// let k: Vec<Vec<f64>> = p.iter().map(|a| p.iter().map(|b| a * b + 1.0).collect()).collect();
    /// let g = SharedGram::from_kernel_matrix(&KernelMatrix::from_rows(&k)?);
    /// let serials = Samples::from_rows(&[[1.0], [2.0], [3.0], [4.0]])?;
    /// let y = BinaryTargets::from_f64(&[-1.0, -1.0, 1.0, 1.0])?;
    /// let path = [SvcParams::new("linear".parse()?).c(10.0)];
    /// // Trained on points 1 and 3, predicting points 2 and 4.
    /// let pred = SvcParams::predict_c_path(&path, &g, &serials, &y, &[0, 2], &[1, 3])?;
    /// assert_eq!(pred[0], vec![-1.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_kernel_matrix(k: &super::KernelMatrix) -> Self {
        SharedGram { kernel: KernelSpec::Linear(kern_core::Linear), gram: k.shared() }
    }

    /// Whether the matrix of `n` samples takes at most `bytes`.
    pub fn fits(n: usize, bytes: usize) -> bool {
        (n as u128) * (n as u128) * 8 <= bytes as u128
    }

    /// Number of samples.
    pub fn n(&self) -> usize {
        self.gram.nrows()
    }

    /// The kernel it was computed with.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
}

impl SvcParams {
    /// Trains one binary C-SVC per learner of `path` on the rows `train` of `x` (labels `y`, all of `x`)
    /// and returns each one's predictions (`±1`, as [`kern_core::learner::Model::predict`] of the
    /// trained [`super::Svc`]) at the rows `test`. The learners must differ only in `C` (or `λ`); they
    /// are fitted in ascending order of `C`, each from the previous solution (see the module notes),
    /// with kernel values read from `gram` (the matrix of all of `x`). Decision values are
    /// `Σ_i α_i y_i K(x_t, x_i) − ρ` with `K` read from `gram` too; `> 0` predicts `+1`.
    ///
    /// ```
    /// use kern_models::svm::{SharedGram, SvcParams};
    /// use kern_core::{BinaryTargets, Samples};
    /// let x = Samples::from_rows(&[[0.0], [0.2], [0.4], [2.0], [2.2], [2.4]])?;
    /// let y = BinaryTargets::from_f64(&[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])?;
    /// let k = "gaussian:sigma=1".parse()?;
    /// let g = SharedGram::new(&k, &x)?;
    /// let path: Vec<SvcParams> = [10.0, 0.1, 1.0].iter().map(|&c| SvcParams::new(k.clone()).c(c)).collect();
    /// let pred = SvcParams::predict_c_path(&path, &g, &x, &y, &[0, 1, 3, 4], &[2, 5])?;
    /// assert_eq!(pred.len(), 3);                       // in the order of `path`
    /// assert_eq!(pred[0], vec![-1.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn predict_c_path(
        path: &[SvcParams],
        gram: &SharedGram,
        x: &Samples,
        y: &BinaryTargets,
        train: &[usize],
        test: &[usize],
    ) -> Result<Vec<Vec<f64>>> {
        predict_path(path, gram, x, y, train, test, None)
    }

    /// [`SvcParams::predict_c_path`] with sample weights (one per row of `x`): a training row's weight
    /// multiplies its box constraint, as in [`crate::weights::FitWeighted::fit_weighted`]; the rows of
    /// `train` must have positive weights (the weighted fit drops the others).
    ///
    /// ```
    /// use kern_models::svm::{SharedGram, SvcParams};
    /// use kern_core::{BinaryTargets, Samples};
    /// let x = Samples::from_rows(&[[0.0], [0.2], [0.4], [2.0], [2.2], [2.4]])?;
    /// let y = BinaryTargets::from_f64(&[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])?;
    /// let k = "gaussian:sigma=1".parse()?;
    /// let g = SharedGram::new(&k, &x)?;
    /// let path: Vec<SvcParams> = [0.1, 1.0].iter().map(|&c| SvcParams::new(k.clone()).c(c)).collect();
    /// let (train, test) = ([0, 1, 3, 4], [2, 5]);
    /// // Weight 1 everywhere is the unweighted path.
    /// let ones = SvcParams::predict_c_path_weighted(&path, &g, &x, &y, &train, &test, &[1.0; 6])?;
    /// assert_eq!(ones, SvcParams::predict_c_path(&path, &g, &x, &y, &train, &test)?);
    /// assert!(SvcParams::predict_c_path_weighted(&path, &g, &x, &y, &train, &test, &[0.0; 6]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn predict_c_path_weighted(
        path: &[SvcParams],
        gram: &SharedGram,
        x: &Samples,
        y: &BinaryTargets,
        train: &[usize],
        test: &[usize],
        weights: &[f64],
    ) -> Result<Vec<Vec<f64>>> {
        predict_path(path, gram, x, y, train, test, Some(weights))
    }
}

/// [`SvcParams::predict_c_path_weighted`], unweighted with `None`.
pub(crate) fn predict_path(
    path: &[SvcParams],
    gram: &SharedGram,
    x: &Samples,
    y: &BinaryTargets,
    train: &[usize],
    test: &[usize],
    weights: Option<&[f64]>,
) -> Result<Vec<Vec<f64>>> {
    if let Some(&i) = test.iter().find(|&&i| i >= x.n()) {
        return Err(ModelsError::Input(format!("row {i} is out of range for {} samples", x.n())));
    }
    let (sols, yt) = solve_path(path, gram, x, y, train, weights)?;
    Ok(sols
        .iter()
        .map(|sol| {
            test.iter()
                .map(|&t| {
                    let col =
                        gram.gram.col(t).try_as_col_major().expect("owned Mat is column-major").as_slice();
                    let f: f64 =
                        train.iter().zip(&sol.alpha).zip(&yt).map(|((&i, &a), &s)| a * s * col[i]).sum();
                    if f - sol.rho > 0.0 { 1.0 } else { -1.0 }
                })
                .collect()
        })
        .collect())
}

/// The dual solutions of [`SvcParams::predict_c_path`] (in the order of `path`) and the training
/// labels.
pub(crate) fn solve_path(
    path: &[SvcParams],
    gram: &SharedGram,
    x: &Samples,
    y: &BinaryTargets,
    train: &[usize],
    weights: Option<&[f64]>,
) -> Result<(Vec<Solution>, Vec<f64>)> {
    let n = x.n();
    if let Some(w) = weights
        && w.len() != n
    {
        return Err(ModelsError::Input(format!("{} sample weights for {n} samples", w.len())));
    }
    if gram.n() != n || y.len() != n {
        return Err(ModelsError::Input(format!(
            "{} samples, {} labels and a kernel matrix of {} samples",
            n,
            y.len(),
            gram.n()
        )));
    }
    if let Some(&i) = train.iter().find(|&&i| i >= n) {
        return Err(ModelsError::Input(format!("row {i} is out of range for {n} samples")));
    }
    let yt: Vec<f64> = train.iter().map(|&i| y.y()[i]).collect();
    if !(yt.iter().any(|&v| v > 0.0) && yt.iter().any(|&v| v < 0.0)) {
        return Err(ModelsError::Input("the training rows hold only one class".into()));
    }
    let classes: Vec<usize> = yt.iter().map(|&v| usize::from(v > 0.0)).collect();
    let mut boxes = Vec::with_capacity(path.len());
    for p in path {
        if p.kernel != gram.kernel {
            return Err(ModelsError::Input(format!(
                "a learner's kernel {} differs from the shared matrix's {}",
                p.kernel, gram.kernel
            )));
        }
        let w = p.check(y.names(), x)?;
        let creg = p.regularization.checked_c_for(train.len())?;
        // A sample weight multiplies the box after the class weight (crate::weights); 1 when unweighted.
        let sample = |i: usize| weights.map_or(1.0, |sw| sw[i]);
        let b = classes.iter().zip(train).map(|(&cl, &i)| creg * w[cl] * sample(i)).collect::<Vec<f64>>();
        for &c in &b {
            super::params::check_box(c, 1.0)?;
        }
        boxes.push(b);
    }
    let mut order: Vec<usize> = (0..path.len()).collect();
    order.sort_by(|&a, &b| boxes[a][0].total_cmp(&boxes[b][0]));
    let mut out: Vec<Option<Solution>> = vec![None; path.len()];
    let mut prev: Option<(Vec<f64>, &Vec<f64>)> = None;
    for &k in &order {
        let c = &boxes[k];
        // Ascending boxes: the previous optimum is feasible as it is (see the module notes).
        let start = match prev.take() {
            Some((alpha, old)) if old.iter().zip(c).all(|(o, n)| n >= o) => Some(alpha),
            _ => None,
        };
        let dual = Dual {
            x,
            sample: train.to_vec(),
            sign: yt.clone(),
            p: vec![-1.0; train.len()],
            c: c.clone(),
            pre: Some(Precomputed::Dense(gram.gram.clone())),
            plan: super::plan::Plan { columns: super::plan::Columns::Precomputed, ..Default::default() },
        };
        let cache = path[k].solver.cache_bytes();
        let sol = train::solve_from(&path[k].kernel, dual, start, false, &path[k].solver, cache);
        prev = Some((sol.alpha.clone(), c));
        out[k] = Some(sol);
    }
    Ok((out.into_iter().map(|s| s.expect("every learner was solved")).collect(), yt))
}
