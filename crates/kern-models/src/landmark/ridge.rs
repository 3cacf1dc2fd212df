//! Nyström kernel ridge regression and LS-SVM by FALKON's preconditioned conjugate gradients.
//!
//! **Model** (Rudi et al. 2017, eq. 8): `f_t(x) = b_t + Σ_j α_jt k(x, c_j)` over the `m` centres. With
//! `K_nm = K(X, C)`, `K_mm = K(C, C)`, the shift `s` of the exact models (`s = λ` for kernel ridge,
//! `s = 1/λ` for the LS-SVM, as in [`crate::krr`] and [`crate::lssvm`]) and `P = I − 11ᵀ/n` with a bias
//! (`P = I` without), `α` solves the normal equations
//!
//! ```text
//! H α = K_nmᵀ P y,    H = K_nmᵀ P K_nm + s K_mm                           (FALKON eq. 8, λ_F n = s)
//! b   = 1ᵀ(y − K_nm α) / n
//! ```
//!
//! the minimiser of `‖P(y − K_nm α)‖² + s αᵀK_mm α` (the bias eliminated). With `m = n` centres (all
//! the training points) `H = K(PK + sI)`, so `α` is exactly the kernel ridge solution `(K + sI)⁻¹y`,
//! resp. the LS-SVM's (`(PK + sI)α = Py` is eq. 14's system with `b` eliminated, and implies `1ᵀα = 0`).
//!
//! **Preconditioner** (Rudi et al. 2017, Sect. 3 and Algorithm 1): with `T` upper triangular,
//! `TᵀT = K_mm + εI` (the jitter of [`factor_kmm`](super::factor_kmm)) and `A` upper triangular,
//! `AᵀA = TTᵀ/m + (s/n) I`, the matrix `B = T⁻¹A⁻¹/√n` satisfies `BBᵀ = ((n/m) K_mm² + s K_mm)⁻¹`: the
//! inverse of `H` with `K_nmᵀK_nm` replaced by its Nyström estimate `(n/m) K_mm²`. Conjugate gradients
//! run on `BᵀHB β = BᵀK_nmᵀPy` (a well-conditioned system: typically 10–30 iterations), then `α = Bβ`;
//! the reported residual is that system's relative residual. [`NystromPreconditioner::None`] runs plain
//! CG on `H α = K_nmᵀPy` (for comparison: `H`'s condition number is `K_mm`'s squared).
//!
//! **Cost.** Each iteration streams `K_nm` once ([`super::stream_blocks`]): `O(n·m·(d + r))` flops for `r` outputs
//! (one-vs-rest classes share the pass), `O(m²)` memory plus a few blocks of rows. Set-up: `O(m³)`.

use super::stream::{block_rows, expand, stream_blocks};
use super::{Landmarks, factor_kmm, select_landmarks};
use crate::error::{ModelsError, Result};
use crate::exact_sum::ExactSums;
use crate::fvs::Strategy;
use crate::persist::Persist;
use crate::ridge::{Encoded, Task};
use crate::validate;
use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Accum, Mat, MatMut, MatRef, Par, Side};
use kern_core::{KernelSpec, Samples, Targets, parallel::faer_par};
use kern_sparse::pcg::cg_columns;
use kern_sparse::{PcgOptions, PcgReport};
use serde::{Deserialize, Serialize};

/// The preconditioner of the conjugate-gradient solve (module docs).
///
/// ```
/// use kern_models::landmark::NystromPreconditioner;
/// assert_eq!("falkon".parse::<NystromPreconditioner>()?, NystromPreconditioner::Falkon);
/// assert_eq!(NystromPreconditioner::default(), NystromPreconditioner::Falkon);
/// assert!("jacobi".parse::<NystromPreconditioner>().is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NystromPreconditioner {
    /// FALKON's `B = T⁻¹A⁻¹/√n` (the default).
    #[default]
    Falkon,
    /// Plain conjugate gradients on the normal equations.
    None,
}

impl NystromPreconditioner {
    /// `falkon` or `none`.
    ///
    /// ```
    /// assert_eq!(kern_models::landmark::NystromPreconditioner::None.name(), "none");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            NystromPreconditioner::Falkon => "falkon",
            NystromPreconditioner::None => "none",
        }
    }
}

impl std::str::FromStr for NystromPreconditioner {
    type Err = ModelsError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "falkon" => Ok(NystromPreconditioner::Falkon),
            "none" => Ok(NystromPreconditioner::None),
            _ => Err(ModelsError::Input(format!(
                "unknown preconditioner {s:?} for a landmark model; valid: falkon, none"
            ))),
        }
    }
}

/// One process's part of the training rows when they are spread over processes (kern-dist), for
/// [`NystromRidgeParams::fit_part`].
///
/// Every sum over rows is a sum of per-block terms (blocks of `block` rows, counted from the first
/// row of all parts) added exactly ([`ExactSums`]), so the model does not depend on how the blocks
/// are spread over the parts — provided each part starts at a multiple of `block`.
///
/// ```
/// use kern_models::landmark::RowPart;
/// use kern_models::ridge::Task;
/// // A process that holds none of the 1,000 rows; `sum` and `max` would be an allreduce-sum and
/// // an allreduce-max over processes.
/// let part = RowPart { rows: None, n: 1000, task: Task::Regression, block: None, sum: &|_| {}, max: &|_| {} };
/// assert_eq!(part.n, 1000);
/// ```
pub struct RowPart<'a> {
    /// This part's rows and their targets (`None`: no rows on this part).
    pub rows: Option<(&'a Samples, &'a Targets)>,
    /// The number of rows over all parts.
    pub n: usize,
    /// The task of all the targets (class names agreed over all parts); the part's targets must
    /// encode to it.
    pub task: Task,
    /// Rows per block of the sums over rows (`None`: [`block_rows`] of the number of centres). The
    /// part's first row must be a multiple of it among all rows; the model depends on it (through
    /// the rounding of each block's term), not on the parts.
    pub block: Option<usize>,
    /// Adds a vector over all parts, in place, leaving the total on every part (an allreduce-sum;
    /// nothing to do for a single part).
    pub sum: &'a dyn Fn(&mut [f64]),
    /// The elementwise maximum over all parts, in place, on every part (an allreduce-max; nothing to
    /// do for a single part).
    pub max: &'a dyn Fn(&mut [u64]),
}

/// Parameters of a Nyström kernel ridge / LS-SVM fit.
///
/// ```
/// use kern_models::landmark::{Landmarks, NystromRidgeParams};
/// let p = NystromRidgeParams::lssvm("gaussian:sigma=1".parse()?, 10.0, Landmarks::Random { m: 50 }).seed(3);
/// assert!(p.bias && p.seed == 3);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NystromRidgeParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// λ: the ridge's (`s = λ`) or, with [`NystromRidgeParams::bias`], the LS-SVM's (`s = 1/λ`).
    pub lambda: f64,
    /// LS-SVM (with an intercept) instead of kernel ridge.
    pub bias: bool,
    /// How the centres are chosen.
    pub landmarks: Landmarks,
    /// Seed of the random centres or of the FVS pool.
    pub seed: u64,
    /// FVS candidate scoring (for [`Landmarks::Fvs`]).
    pub fvs_strategy: Strategy,
    /// Stopping tolerance (relative residual) and iteration cap; the preconditioner field is unused.
    pub pcg: PcgOptions,
    /// The preconditioner.
    pub preconditioner: NystromPreconditioner,
}

impl NystromRidgeParams {
    /// Kernel ridge regression (`s = λ`, no intercept), tolerance `1e-6`, at most 1,000 iterations.
    pub fn krr(kernel: KernelSpec, lambda: f64, landmarks: Landmarks) -> Self {
        NystromRidgeParams {
            kernel,
            lambda,
            bias: false,
            landmarks,
            seed: 0,
            fvs_strategy: Strategy::Auto,
            pcg: PcgOptions { tol: 1e-6, max_iter: 1000, ..PcgOptions::default() },
            preconditioner: NystromPreconditioner::Falkon,
        }
    }

    /// The LS-SVM (`s = 1/λ`, with an intercept); otherwise as [`NystromRidgeParams::krr`].
    pub fn lssvm(kernel: KernelSpec, lambda: f64, landmarks: Landmarks) -> Self {
        NystromRidgeParams { bias: true, ..Self::krr(kernel, lambda, landmarks) }
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the stopping tolerance and iteration cap.
    pub fn tol(mut self, tol: f64, max_iter: usize) -> Self {
        self.pcg.tol = tol;
        self.pcg.max_iter = max_iter;
        self
    }

    /// Sets the preconditioner.
    pub fn preconditioner(mut self, p: NystromPreconditioner) -> Self {
        self.preconditioner = p;
        self
    }

    /// Sets the FVS strategy.
    pub fn fvs_strategy(mut self, s: Strategy) -> Self {
        self.fvs_strategy = s;
        self
    }

    /// The shift `s` of the normal equations.
    fn shift(&self) -> Result<f64> {
        let l = self.lambda;
        if !(l.is_finite() && l > 0.0) {
            return Err(ModelsError::Param { name: "lambda", value: l, reason: "must be finite and > 0" });
        }
        let s = if self.bias { 1.0 / l } else { l };
        if !(s.is_finite() && s > 0.0) {
            return Err(ModelsError::Param { name: "lambda", value: l, reason: "its shift 1/λ overflows" });
        }
        Ok(s)
    }

    /// Chooses the centres ([`select_landmarks`]) and fits.
    pub fn fit_targets(&self, x: &Samples, y: &Targets) -> Result<NystromRidge> {
        self.shift()?;
        self.pcg.validate()?;
        y.check_len(x.n())?;
        let idx = select_landmarks(&self.kernel, x, self.landmarks, self.seed, self.fvs_strategy)?;
        self.fit_with_centres(x, y, &idx)
    }

    /// Fits on the given centres (indices into `x`, distinct): e.g. all of them, to compare with the
    /// exact model.
    pub fn fit_with_centres(&self, x: &Samples, y: &Targets, centres: &[usize]) -> Result<NystromRidge> {
        y.check_len(x.n())?;
        if centres.is_empty() {
            return Err(ModelsError::Input("no centres".into()));
        }
        let part = RowPart {
            rows: Some((x, y)),
            n: x.n(),
            task: Encoded::any(y).task,
            block: None,
            sum: &|_| {},
            max: &|_| {},
        };
        self.fit_part(&part, x.select(centres)?, centres)
    }

    /// Fits on one part of training rows spread over processes (the distributed fit of kern-dist; one
    /// part holding every row is [`NystromRidgeParams::fit_with_centres`]): `centres` are the centre
    /// samples and `indices` their indices among all the rows, the same on every part. Every sum over
    /// rows (the right-hand side and each product with `K_nm`: `m·r` numbers per iteration) is a sum
    /// of per-block terms over the part's rows, added exactly and completed over the parts by
    /// `part.max` and `part.sum` ([`ExactSums::finish`]: `m·r + 1` integers and `6·m·r` numbers);
    /// everything else is computed alike on every part. So every part returns the same model, and
    /// the same bytes for any split of the blocks over parts (one part included).
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams, RowPart};
    /// use kern_models::ridge::Task;
    /// let x = Samples::from_flat((0..80).map(|i| (i as f64 * 0.37).sin()).collect(), 40, 2)?;
    /// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] * r[1]).collect())?);
    /// let p = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1e-3, Landmarks::Random { m: 8 });
    /// let idx = [3, 9, 14, 20, 27, 31, 35, 38];
    /// let part = RowPart { rows: Some((&x, &y)), n: 40, task: Task::Regression, block: None, sum: &|_| {}, max: &|_| {} };
    /// assert_eq!(p.fit_part(&part, x.select(&idx)?, &idx)?, p.fit_with_centres(&x, &y, &idx)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fit_part(&self, part: &RowPart<'_>, centres: Samples, indices: &[usize]) -> Result<NystromRidge> {
        let s = self.shift()?;
        let pcg = self.pcg.validate()?;
        let local = match part.rows {
            Some((x, y)) => {
                y.check_len(x.n())?;
                let enc = Encoded::any(y);
                if enc.task != part.task {
                    return Err(ModelsError::Input(format!(
                        "this part's targets ({:?}) do not match the task of all parts ({:?})",
                        enc.task, part.task
                    )));
                }
                Some((x, enc))
            }
            None => None,
        };
        if centres.n() == 0 || centres.n() != indices.len() {
            return Err(ModelsError::Input(format!(
                "{} centres with {} indices: need at least one, with one index each",
                centres.n(),
                indices.len()
            )));
        }
        let (n, m) = (part.n, centres.n());
        let n_local = local.as_ref().map_or(0, |(x, _)| x.n());
        if n_local > n {
            return Err(ModelsError::Input(format!("a part of {n_local} rows among {n} in all")));
        }
        let r = part.task.outputs();
        let k = &self.kernel;
        let c = centres;
        let block = part.block.unwrap_or_else(|| block_rows(m)).max(1);
        // K_nmᵀ U over this part's rows, per block, added exactly and completed over all parts (with
        // `extra`: further terms, one vector per block).
        let sum_stream = |c_cols: usize,
                          f: &(dyn Fn(usize, MatRef<'_, f64>) -> Mat<f64> + Sync),
                          extra: &[Vec<f64>]|
         -> Result<(Mat<f64>, Vec<f64>)> {
            let e = extra.first().map_or(0, Vec::len);
            let mut acc = ExactSums::new(m * c_cols + e);
            if let Some((x, _)) = &local {
                stream_blocks(k, x, &c, c_cols, block, f, |_, p| acc.add_at(0, &flat(p.as_ref())))?;
            }
            extra.iter().for_each(|t| acc.add_at(m * c_cols, t));
            let mut v = acc.finish(part.max, part.sum)?;
            let tail = v.split_off(m * c_cols);
            Ok((Mat::from_fn(m, c_cols, |j, t| v[t * m + j]), tail))
        };
        let (l, jitter) = factor_kmm(k, &c)?;
        // One pass: K_nmᵀ [Y, 1] and 1ᵀY (per block: the block's sums in row order).
        let ysum_local: Vec<Vec<f64>> = match &local {
            Some((_, enc)) => (0..n_local)
                .step_by(block)
                .map(|i0| {
                    (0..r).map(|t| (i0..(i0 + block).min(n_local)).map(|i| enc.y[(i, t)]).sum()).collect()
                })
                .collect(),
            None => Vec::new(),
        };
        // A part without rows still sends its (zero) share of 1ᵀY.
        let ysum_local = if ysum_local.is_empty() { vec![vec![0.0; r]] } else { ysum_local };
        let (g, ysum) = sum_stream(
            r + 1,
            &|i0, kb| {
                let enc = &local.as_ref().expect("a block means rows").1;
                Mat::from_fn(kb.nrows(), r + 1, |i, t| if t < r { enc.y[(i0 + i, t)] } else { 1.0 })
            },
            &ysum_local,
        )?;
        let svec = g.col(r).to_owned();
        let mut rhs = g.subcols(0, r).to_owned();
        if self.bias {
            for t in 0..r {
                for j in 0..m {
                    rhs[(j, t)] -= svec[j] * ysum[t] / n as f64;
                }
            }
        }
        // D U = K_nmᵀ P K_nm U (the data term of H; H = D + s(K_mm + εI) = D + s L Lᵀ).
        let mut passes = 1usize;
        let mut d_apply = |u: MatRef<'_, f64>| -> Result<Mat<f64>> {
            passes += 1;
            let (mut out, _) = sum_stream(
                u.ncols(),
                &|_, kb| {
                    let mut v = Mat::<f64>::zeros(kb.nrows(), u.ncols());
                    matmul(v.as_mut(), Accum::Replace, kb, u, 1.0, Par::Seq);
                    v
                },
                &[],
            )?;
            if self.bias {
                for t in 0..u.ncols() {
                    let su: f64 = (0..m).map(|j| svec[j] * u[(j, t)]).sum();
                    for j in 0..m {
                        out[(j, t)] -= svec[j] * su / n as f64;
                    }
                }
            }
            Ok(out)
        };
        let identity = |r: &[f64], z: &mut [f64]| z.copy_from_slice(r);
        let (alpha, reports) = match self.preconditioner {
            NystromPreconditioner::None => {
                let (a, reports) = cg_columns::<_, _, ModelsError>(
                    flat(rhs.as_ref()).as_slice(),
                    m,
                    &pcg,
                    |v, out| {
                        let u = MatRef::from_column_major_slice(v, m, r);
                        let mut hv = d_apply(u)?;
                        let mut lt_u = Mat::<f64>::zeros(m, r);
                        matmul(lt_u.as_mut(), Accum::Replace, l.transpose(), u, 1.0, faer_par());
                        matmul(hv.as_mut(), Accum::Add, l.as_ref(), lt_u.as_ref(), s, faer_par());
                        out.copy_from_slice(&flat(hv.as_ref()));
                        Ok(())
                    },
                    identity,
                )?;
                (Mat::from_fn(m, r, |j, t| a[t * m + j]), reports)
            }
            NystromPreconditioner::Falkon => {
                // A: L_A L_Aᵀ = LᵀL/m + (s/n) I  (TTᵀ = LᵀL with T = Lᵀ).
                let mut ta = Mat::<f64>::zeros(m, m);
                matmul(ta.as_mut(), Accum::Replace, l.transpose(), l.as_ref(), 1.0 / m as f64, faer_par());
                for j in 0..m {
                    ta[(j, j)] += s / n as f64;
                }
                let la = ta
                    .llt(Side::Lower)
                    .map_err(|e| {
                        ModelsError::Numerical(format!("FALKON's preconditioner factor failed: {e:?}"))
                    })?
                    .L()
                    .to_owned();
                drop(ta);
                let scale = 1.0 / (n as f64).sqrt();
                // B v = L⁻ᵀ L_A⁻ᵀ v / √n;  Bᵀ w = L_A⁻¹ L⁻¹ w / √n.
                let b_apply = |mut v: MatMut<'_, f64>| {
                    solve_upper_triangular_in_place(la.transpose(), v.as_mut(), faer_par());
                    solve_upper_triangular_in_place(l.transpose(), v.as_mut(), faer_par());
                    scale_in_place(v, scale);
                };
                let bt_apply = |mut w: MatMut<'_, f64>| {
                    solve_lower_triangular_in_place(l.as_ref(), w.as_mut(), faer_par());
                    solve_lower_triangular_in_place(la.as_ref(), w.as_mut(), faer_par());
                    scale_in_place(w, scale);
                };
                let mut brhs = rhs.clone();
                bt_apply(brhs.as_mut());
                let (beta, reports) = cg_columns::<_, _, ModelsError>(
                    flat(brhs.as_ref()).as_slice(),
                    m,
                    &pcg,
                    |v, out| {
                        // BᵀHB β = Bᵀ D B β + (s/n) L_A⁻¹ L_A⁻ᵀ β: the penalty term in closed form
                        // (TᵀT = K_mm + εI cancels), which avoids amplifying its rounding by T⁻¹.
                        let mut u = Mat::from_fn(m, r, |j, t| v[t * m + j]);
                        b_apply(u.as_mut());
                        let mut hv = d_apply(u.as_ref())?;
                        bt_apply(hv.as_mut());
                        let mut pen = Mat::from_fn(m, r, |j, t| v[t * m + j]);
                        solve_upper_triangular_in_place(la.transpose(), pen.as_mut(), faer_par());
                        solve_lower_triangular_in_place(la.as_ref(), pen.as_mut(), faer_par());
                        hv += pen * (s / n as f64);
                        out.copy_from_slice(&flat(hv.as_ref()));
                        Ok(())
                    },
                    identity,
                )?;
                let mut a = Mat::from_fn(m, r, |j, t| beta[t * m + j]);
                b_apply(a.as_mut());
                (a, reports)
            }
        };
        let report = reports.iter().copied().reduce(PcgReport::worst).unwrap_or_default();
        let bias: Vec<f64> = (0..r)
            .map(|t| {
                if self.bias {
                    let sa: f64 = (0..m).map(|j| svec[j] * alpha[(j, t)]).sum();
                    (ysum[t] - sa) / n as f64
                } else {
                    0.0
                }
            })
            .collect();
        validate::trained(NystromRidge {
            kernel: k.clone(),
            centres: c,
            indices: indices.to_vec(),
            landmarks: self.landmarks,
            seed: self.seed,
            coef: flat(alpha.as_ref()),
            bias,
            with_bias: self.bias,
            lambda: self.lambda,
            task: part.task.clone(),
            preconditioner: self.preconditioner,
            report,
            passes,
            jitter,
        })
    }
}

/// `m × r` column-major entries of a matrix.
fn flat(a: MatRef<'_, f64>) -> Vec<f64> {
    (0..a.ncols()).flat_map(|t| (0..a.nrows()).map(move |j| a[(j, t)])).collect()
}

fn scale_in_place(mut v: MatMut<'_, f64>, s: f64) {
    for t in 0..v.ncols() {
        for j in 0..v.nrows() {
            v[(j, t)] *= s;
        }
    }
}

/// A trained Nyström kernel ridge or LS-SVM model: `f_t(x) = b_t + Σ_j α_jt k(x, c_j)` (module docs).
/// Stores the centres and coefficients only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromRidge {
    kernel: KernelSpec,
    centres: Samples,
    indices: Vec<usize>,
    landmarks: Landmarks,
    seed: u64,
    /// `m × r`, column-major.
    coef: Vec<f64>,
    bias: Vec<f64>,
    with_bias: bool,
    lambda: f64,
    task: Task,
    preconditioner: NystromPreconditioner,
    report: PcgReport,
    passes: usize,
    jitter: f64,
}

impl Persist for NystromRidge {
    const KIND: &'static str = "nystrom";
    fn validate(&self) -> std::result::Result<(), String> {
        validate::kernel(&self.kernel, self.centres.d())?;
        match &self.task {
            Task::Binary { names } => validate::names(names)?,
            Task::Classes { names } => validate::names(names)?,
            Task::Regression => {}
        }
        let (m, r) = (self.centres.n(), self.task.outputs());
        validate::len("bias", self.bias.len(), r)?;
        validate::len(
            "coefficients",
            self.coef.len(),
            m.checked_mul(r).ok_or("coefficient size overflows")?,
        )?;
        validate::len("centre indices", self.indices.len(), m)?;
        validate::finite("coefficients", &self.coef)?;
        validate::finite("bias", &self.bias)?;
        validate::finite("lambda", &[self.lambda])?;
        if !self.with_bias && self.bias.iter().any(|&b| b != 0.0) {
            return Err("a kernel ridge model has no intercept, but this payload has one".into());
        }
        if m == 0 {
            return Err("no centres".into());
        }
        Ok(())
    }
}

impl NystromRidge {
    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
    /// The `m` centres.
    pub fn centres(&self) -> &Samples {
        &self.centres
    }
    /// Indices of the centres among the training samples.
    pub fn centre_indices(&self) -> &[usize] {
        &self.indices
    }
    /// How the centres were chosen.
    pub fn landmarks(&self) -> Landmarks {
        self.landmarks
    }
    /// The seed of the centre choice.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// Whether the model has intercepts (LS-SVM).
    pub fn has_bias(&self) -> bool {
        self.with_bias
    }
    /// The task (binary, classes, regression).
    pub fn task(&self) -> &Task {
        &self.task
    }
    /// Number of outputs `r`.
    pub fn outputs(&self) -> usize {
        self.bias.len()
    }
    /// Coefficients `α_·t` of output `t` (one per centre).
    pub fn coef(&self, t: usize) -> &[f64] {
        let m = self.centres.n();
        &self.coef[t * m..(t + 1) * m]
    }
    /// Intercept of output `t` (0 for kernel ridge).
    pub fn bias(&self, t: usize) -> f64 {
        self.bias[t]
    }
    /// The preconditioner used.
    pub fn preconditioner(&self) -> NystromPreconditioner {
        self.preconditioner
    }
    /// The conjugate-gradient report (the worst over the outputs).
    pub fn report(&self) -> PcgReport {
        self.report
    }
    /// Passes over `K_nm` (one per iteration, one per residual check, one for the right-hand side).
    pub fn passes(&self) -> usize {
        self.passes
    }
    /// The jitter `ε` added to `K_mm`'s diagonal.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// Decision values (`n × r`).
    pub fn decision_function(&self, x: &Samples) -> Result<Mat<f64>> {
        let (m, r) = (self.centres.n(), self.outputs());
        let coef = MatRef::from_column_major_slice(&self.coef, m, r);
        let mut f = expand(&self.kernel, x, &self.centres, coef)?;
        for t in 0..r {
            for i in 0..x.n() {
                f[(i, t)] += self.bias[t];
            }
        }
        Ok(f)
    }

    /// Predictions: ±1 (binary), class index, or value (regression).
    pub fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.task.decode(self.decision_function(x)?.as_ref()))
    }
}

impl crate::widen::WidenFeatures for NystromRidge {
    fn n_features(&self) -> usize {
        self.centres.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.centres, d)
    }
}
