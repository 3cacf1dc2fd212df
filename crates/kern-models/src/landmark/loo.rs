//! λ of the landmark ridge models ([`NystromRidgeParams`]) by exact leave-one-out on the `m × m`
//! system: every λ of a grid from one eigendecomposition, for the fixed centres.
//!
//! **Model.** With `K_mm + εI = LLᵀ` (the jitter of [`factor_kmm`], as the fit factors it), the
//! features `Φ = K_nm L⁻ᵀ` and `β = Lᵀα`, the fit minimises `‖P(y − Φβ)‖² + λ‖β‖²` (the landmark
//! model's normal equations, [`NystromRidgeParams`]: `s = λ`, not `nλ`), an ordinary ridge regression
//! on `Φ` with, for the LS-SVM, an unpenalised intercept (`P = I − 11ᵀ/n`; `P = I` for kernel ridge).
//! It is a linear smoother `ŷ = H(λ) y` with
//!
//! ```text
//! H(λ) = 11ᵀ/n + Φ_c (Φ_cᵀΦ_c + λI)⁻¹ Φ_cᵀ      Φ_c = PΦ (kernel ridge: Φ_c = Φ, no 11ᵀ/n)
//! ```
//!
//! **Leave-one-out.** For a penalised least-squares fit whose penalty does not depend on the data,
//! the residual of point `i` under the fit without `i` is `(y_i − ŷ_i) / (1 − h_i)` with `h_i = H_ii`
//! (the closed-form leave-one-out of linear smoothers: Allen 1974, "The relationship between variable
//! selection and data augmentation and a method for prediction"; Hastie, Tibshirani & Friedman, "The
//! Elements of Statistical Learning", 2nd ed., eq. 7.52; by Sherman–Morrison on the design `[1, Φ]`).
//! With the eigendecomposition `Φ_cᵀΦ_c = V D Vᵀ` (`m × m`) and `Ψ = Φ_c V`,
//!
//! ```text
//! h_i(λ) = 1/n + Σ_j Ψ_ij² / (d_j + λ)       ŷ = ȳ + Ψ (D + λI)⁻¹ Ψᵀ(y − ȳ)
//! ```
//!
//! (kernel ridge: no `1/n`, no `ȳ`). So one pass over the rows forms `Φ_cᵀΦ_c` and `Φ_cᵀ(y − ȳ)`
//! (`O(n m²)`), the eigendecomposition costs `O(m³)`, and a second pass forms each row block's `Ψ` and
//! scores every λ of the grid (`O(n m)` per λ). Both passes stream `K_nm` in row blocks (kept in memory
//! when they fit in half the budget, as the fit keeps them): memory is `O(m² + blocks·rows·m)`, never
//! `n × m`. The centring is done on the rows: `Φ_cᵀΦ_c = Σ_i (φ_i − c)(φ_i − c)ᵀ − u uᵀ/n` with
//! `u = Σ_i (φ_i − c)` and the pilot `c` the mean row of `L` (the centres' own features, up to the
//! jitter), which keeps the subtraction small. Rounding can leave an eigenvalue slightly below zero;
//! it is taken as 0 (`Φ_cᵀΦ_c` is positive semidefinite).
//!
//! **Selection**: the exact ridge models' rule over the same default grids (`krr::default_lambda_grid`,
//! `lssvm::default_lambda_grid`), scored alike — classification by the leave-one-out error rate of the
//! decoded predictions (ties by the mean squared residual), regression by the mean squared residual
//! over every output, ties to the smaller λ.

use super::ridge::{
    block_column_sums, lower_gram, pack_into, packed_len, part_blocks, sum_over_parts, unpack,
};
use super::stream::block_rows;
use super::{NystromRidge, NystromRidgeParams, RowPart, factor_kmm, select_landmarks};
use crate::error::{ModelsError, Result};
use crate::ridge::{Selection, Tally, best_index, check_lambda, loo_order};
use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::solve_lower_triangular_in_place;
use faer::{Accum, Mat, MatRef, Par, Side};
use kern_core::{Samples, Targets, memory};
use serde::Serialize;
use std::time::Instant;

/// λ chosen by exact leave-one-out for fixed centres ([`NystromRidgeParams::choose_lambda`]), and the
/// model fitted with it.
///
/// ```
/// use kern_core::{RealTargets, Samples, Targets};
/// use kern_models::landmark::{Landmarks, NystromRidgeParams};
/// let x = Samples::from_flat((0..80).map(|i| (i as f64 * 0.29).cos()).collect(), 40, 2)?;
/// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] * r[1]).collect())?);
/// let p = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1.0, Landmarks::Random { m: 7 });
/// let ch = p.choose_lambda(&x, &y, Some(&[0.01, 0.1, 1.0]))?;
/// let s = &ch.selection;
/// assert!(ch.skipped.is_empty()); // every λ fits here, so the choice is the best by leave-one-out
/// assert_eq!(ch.lambda, s.grid[s.best]);
/// assert!(s.mse.iter().all(|&e| e >= s.mse[s.best]));
/// assert_eq!(ch.centres.len(), 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LandmarkLambdaChoice {
    /// The chosen λ (`selection.grid[selection.best]`): the best by leave-one-out among those whose fit
    /// succeeds.
    pub lambda: f64,
    /// The grid and its leave-one-out scores (criterion `loo`, method `eigen`).
    pub selection: Selection,
    /// The centres' indices among the training samples (the fit's, for the same seed).
    pub centres: Vec<usize>,
    /// The λ values better by leave-one-out than the chosen one whose fit failed (the normal equations
    /// not numerically positive definite), best first, with the reason.
    pub skipped: Vec<SkippedLambda>,
    /// The model fitted with the chosen λ on the centres (the fit that showed it solves).
    #[serde(skip)]
    pub model: NystromRidge,
    /// Wall time of the choice (centres, leave-one-out and every fit tried).
    pub seconds: f64,
    /// Wall time of the model's own fit (part of `seconds`).
    pub fit_seconds: f64,
}

/// A λ passed over by [`NystromRidgeParams::choose_lambda`] because the fit with it failed.
///
/// ```
/// use kern_core::{ClassTargets, Samples, Targets};
/// use kern_models::landmark::{Landmarks, NystromRidgeParams};
/// // A width 100 times the data's scale: the kernel is nearly constant, and the smallest λ, which
/// // leave-one-out ranks best, leaves the fit's normal equations numerically singular.
/// let x = Samples::from_flat((0..8000).map(|i| ((i * 7919) % 1000) as f64 / 1000.0).collect(), 800, 10)?;
/// let labels: Vec<&str> = x.rows().map(|r| if (3.0 * r[0]).sin() + r[1] * r[2] > 0.8 { "a" } else { "b" }).collect();
/// let y = Targets::Classes(ClassTargets::from_labels(&labels)?);
/// let p = NystromRidgeParams::lssvm("gaussian:sigma=100".parse()?, 1.0, Landmarks::Random { m: 200 });
/// let ch = p.choose_lambda(&x, &y, None)?;
/// assert!(!ch.skipped.is_empty());
/// for s in &ch.skipped {
///     assert!(s.lambda < ch.lambda && s.reason.contains("positive definite"));
///     assert!(NystromRidgeParams { lambda: s.lambda, ..p.clone() }.fit_targets(&x, &y).is_err());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkippedLambda {
    /// The λ.
    pub lambda: f64,
    /// Why its fit failed.
    pub reason: String,
}

impl LandmarkLambdaChoice {
    /// `(λ, mean squared leave-one-out residual)` for every λ of the grid, in grid order.
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams};
    /// let x = Samples::from_flat((0..80).map(|i| (i as f64 * 0.37).sin()).collect(), 40, 2)?;
    /// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] - r[1]).collect())?);
    /// let p = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1.0, Landmarks::Random { m: 8 });
    /// let c = p.choose_lambda(&x, &y, Some(&[0.1, 1.0]))?;
    /// assert_eq!(c.curve(), [(0.1, c.selection.mse[0]), (1.0, c.selection.mse[1])]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn curve(&self) -> Vec<(f64, f64)> {
        self.selection.grid.iter().copied().zip(self.selection.mse.iter().copied()).collect()
    }
}

impl NystromRidgeParams {
    /// The λ grid of the exact model of the same kind: kernel ridge's
    /// ([`crate::krr::default_lambda_grid`]) or, with the bias, the LS-SVM's
    /// ([`crate::lssvm::default_lambda_grid`]).
    ///
    /// ```
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams};
    /// let p = NystromRidgeParams::lssvm("linear".parse()?, 1.0, Landmarks::Random { m: 5 });
    /// assert_eq!(p.default_lambda_grid(), kern_models::lssvm::default_lambda_grid());
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn default_lambda_grid(&self) -> Vec<f64> {
        if self.bias { crate::lssvm::default_lambda_grid() } else { crate::krr::default_lambda_grid() }
    }

    /// Chooses λ over `grid` (`None`: [`NystromRidgeParams::default_lambda_grid`]) by exact
    /// leave-one-out (module docs of `landmark::loo`) on the centres the fit would choose (the same
    /// [`select_landmarks`] with the same seed), and fits with it; `self.lambda` is not used. The λ
    /// values are fitted in leave-one-out order, best first, until a fit succeeds: a λ whose fit fails
    /// numerically (too small for a poor kernel width: the normal equations are not numerically
    /// positive definite) is passed over and listed in `skipped`. The returned model is
    /// [`NystromRidgeParams::fit_with_centres`] on `centres` with the chosen λ (as
    /// [`NystromRidgeParams::fit_targets`] gives it), whose leave-one-out error was scored. Errors for
    /// fewer than 2 samples, an empty grid, a λ that is not finite and positive, or when no λ fits.
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams};
    /// let x = Samples::from_flat((0..200).map(|i| (i as f64 * 0.37).sin()).collect(), 100, 2)?;
    /// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] - r[1]).collect())?);
    /// let p = NystromRidgeParams::krr("gaussian:sigma=1".parse()?, 1.0, Landmarks::Random { m: 15 });
    /// let ch = p.choose_lambda(&x, &y, None)?;
    /// assert_eq!(ch.curve().len(), p.default_lambda_grid().len());
    /// assert!(ch.lambda < 1.0, "a smooth target wants little smoothing: {}", ch.lambda);
    /// let model = NystromRidgeParams { lambda: ch.lambda, ..p }.fit_with_centres(&x, &y, &ch.centres)?;
    /// assert_eq!(model, ch.model);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_lambda(
        &self,
        x: &Samples,
        y: &Targets,
        grid: Option<&[f64]>,
    ) -> Result<LandmarkLambdaChoice> {
        let t0 = Instant::now();
        y.check_len(x.n())?;
        check_sizes(x.n())?;
        let idx = select_landmarks(&self.kernel, x, self.landmarks, self.seed, self.fvs_strategy)?;
        let mut ch = self.choose_lambda_with_centres(x, y, &idx, grid)?;
        ch.seconds = t0.elapsed().as_secs_f64();
        Ok(ch)
    }

    /// [`NystromRidgeParams::choose_lambda`] on the given centres (indices into `x`, distinct):
    /// the leave-one-out scores, then the fits in their order.
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams};
    /// let x = Samples::from_flat((0..120).map(|i| (i as f64 * 0.61).cos()).collect(), 60, 2)?;
    /// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] * r[1]).collect())?);
    /// let p = NystromRidgeParams::lssvm("gaussian:sigma=0.7".parse()?, 1.0, Landmarks::Random { m: 8 });
    /// let ch = p.choose_lambda_with_centres(&x, &y, &[0, 9, 17, 25, 33, 41, 49, 57], Some(&[0.01, 1.0]))?;
    /// assert!(ch.lambda == 0.01 || ch.lambda == 1.0);
    /// assert!(p.choose_lambda_with_centres(&x, &y, &[0, 9], Some(&[])).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_lambda_with_centres(
        &self,
        x: &Samples,
        y: &Targets,
        centres: &[usize],
        grid: Option<&[f64]>,
    ) -> Result<LandmarkLambdaChoice> {
        let t0 = Instant::now();
        y.check_len(x.n())?;
        if centres.is_empty() {
            return Err(ModelsError::Input("no centres".into()));
        }
        let c = x.select(centres)?;
        let selection = self.loo_selection_part(&RowPart::whole(x, y), &c, grid)?;
        let mut ch = self.fit_in_loo_order(selection, centres, |p| p.fit_with_centres(x, y, centres))?;
        ch.seconds = t0.elapsed().as_secs_f64();
        Ok(ch)
    }

    /// [`NystromRidgeParams::choose_lambda_with_centres`] on rows spread over processes (kern-dist;
    /// collective, as [`NystromRidgeParams::fit_part`]): the centres `centres` (rows of all parts, with
    /// their global indices `indices`) and this process's part of the rows. Every sum over rows — the
    /// leave-one-out's `Φ_cᵀΦ_c`, `Φ_cᵀ(y − ȳ)` and the per-λ tallies — is a sum of per-block terms
    /// added exactly and completed over the parts, so every part makes the same choice and fits the
    /// same model ([`NystromRidgeParams::fit_part`]), for any split of the blocks over the parts; one
    /// part gives the choice of [`NystromRidgeParams::choose_lambda_with_centres`].
    ///
    /// ```
    /// use kern_core::{RealTargets, Samples, Targets};
    /// use kern_models::landmark::{Landmarks, NystromRidgeParams, RowPart};
    /// use kern_models::ridge::Task;
    /// let x = Samples::from_flat((0..120).map(|i| (i as f64 * 0.61).cos()).collect(), 60, 2)?;
    /// let y = Targets::Real(RealTargets::new(x.rows().map(|r| r[0] * r[1]).collect())?);
    /// let p = NystromRidgeParams::krr("gaussian:sigma=0.7".parse()?, 1.0, Landmarks::Random { m: 8 });
    /// let idx = [0, 9, 17, 25, 33, 41, 49, 57];
    /// let part = RowPart { rows: Some((&x, &y)), n: 60, task: Task::Regression, block: None, sum: &|_| {}, max: &|_| {} };
    /// let ch = p.choose_lambda_part(&part, x.select(&idx)?, &idx, None)?;
    /// assert_eq!(ch.model, p.choose_lambda_with_centres(&x, &y, &idx, None)?.model);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose_lambda_part(
        &self,
        part: &RowPart<'_>,
        centres: Samples,
        indices: &[usize],
        grid: Option<&[f64]>,
    ) -> Result<LandmarkLambdaChoice> {
        let t0 = Instant::now();
        if centres.n() == 0 || centres.n() != indices.len() {
            return Err(ModelsError::Input(format!(
                "{} centres with {} indices: need at least one, with one index each",
                centres.n(),
                indices.len()
            )));
        }
        let selection = self.loo_selection_part(part, &centres, grid)?;
        let mut ch =
            self.fit_in_loo_order(selection, indices, |p| p.fit_part(part, centres.clone(), indices))?;
        ch.seconds = t0.elapsed().as_secs_f64();
        Ok(ch)
    }

    /// Fits with the λ values of `selection` in leave-one-out order (best first, by the rule of
    /// [`best_index`]) until `fit` succeeds; a numerical failure is recorded in `skipped` and the next
    /// λ tried, any other error returned. The choice's `best` and `lambda` are the fitted λ's.
    fn fit_in_loo_order(
        &self,
        mut selection: Selection,
        centres: &[usize],
        mut fit: impl FnMut(&NystromRidgeParams) -> Result<NystromRidge>,
    ) -> Result<LandmarkLambdaChoice> {
        let t0 = Instant::now();
        let mut skipped = Vec::new();
        for k in loo_order(&selection.error, &selection.mse) {
            let lambda = selection.grid[k];
            let t_fit = Instant::now();
            match fit(&NystromRidgeParams { lambda, ..self.clone() }) {
                Ok(model) => {
                    selection.best = k;
                    return Ok(LandmarkLambdaChoice {
                        lambda,
                        selection,
                        centres: centres.to_vec(),
                        skipped,
                        model,
                        seconds: t0.elapsed().as_secs_f64(),
                        fit_seconds: t_fit.elapsed().as_secs_f64(),
                    });
                }
                Err(ModelsError::Numerical(reason)) => skipped.push(SkippedLambda { lambda, reason }),
                Err(e) => return Err(e),
            }
        }
        let last = skipped.last().map_or_else(String::new, |s| format!(" (the last: {})", s.reason));
        Err(ModelsError::Numerical(format!(
            "the fit failed at every lambda of the grid{last}: the kernel width is too far from the data's \
             scale, or the centres too many"
        )))
    }

    /// The leave-one-out scores of every λ of `grid` (module docs) on the centres `c`, over the rows of
    /// all parts (collective: the same calls of `part.sum` and `part.max` on every part, whatever
    /// happens locally; a local failure fails every part's next sum, as in
    /// [`NystromRidgeParams::fit_part`]).
    fn loo_selection_part(&self, part: &RowPart<'_>, c: &Samples, grid: Option<&[f64]>) -> Result<Selection> {
        check_sizes(part.n)?;
        let grid: Vec<f64> = grid.map_or_else(|| self.default_lambda_grid(), <[f64]>::to_vec);
        if grid.is_empty() {
            return Err(ModelsError::Input("no lambda values to choose from".into()));
        }
        for &l in &grid {
            check_lambda(l)?;
        }
        if c.n() == 0 {
            return Err(ModelsError::Input("no centres".into()));
        }
        let local = part.local()?;
        let (l, _) = factor_kmm(&self.kernel, c)?;
        let (n, m, r, g) = (part.n, c.n(), part.task.outputs(), grid.len());
        memory::check_array::<f64>(
            &[4, m, m],
            "the leave-one-out's matrices over the centres",
            "use fewer centres",
        )?;
        let bias = self.bias;
        let block = part.block.unwrap_or_else(|| block_rows(m)).max(1);
        // This part's blocks of K_nm; a failure to set them up (the memory check) fails the first sum
        // on every part and is reported by this one.
        let width = 2 * m + 1 + r + g * (r + 1);
        let (blocks, mut setup_error) =
            part_blocks(&self.kernel, local.as_ref().map(|(x, _)| *x), c, width, true, block);
        // ȳ (zero for kernel ridge): the targets' block sums.
        let ybar: Vec<f64> = if bias {
            let sums = sum_over_parts(part, r, setup_error.take(), |acc| {
                if let Some((_, enc)) = &local {
                    block_column_sums(enc.y.as_ref(), block).iter().for_each(|s| acc.add_at(0, s));
                }
                Ok(())
            })?;
            sums.iter().map(|s| s / n as f64).collect()
        } else {
            vec![0.0; r]
        };
        // The pilot shift c (module docs); zero for kernel ridge.
        let pilot: Vec<f64> = (0..m)
            .map(|j| if bias { (j..m).map(|i| l[(i, j)]).sum::<f64>() / m as f64 } else { 0.0 })
            .collect();
        // Per block: the features' transpose L⁻¹K_bᵀ (m × h), shifted by `shift`.
        let features = |kb: MatRef<'_, f64>, shift: &[f64]| {
            let mut pt = kb.transpose().to_owned();
            solve_lower_triangular_in_place(l.as_ref(), pt.as_mut(), Par::Seq);
            if bias {
                for i in 0..pt.ncols() {
                    for (j, s) in shift.iter().enumerate() {
                        pt[(j, i)] -= s;
                    }
                }
            }
            pt
        };
        // Pass 1: Σ (φ_i − c)(φ_i − c)ᵀ (lower triangle), u = Σ (φ_i − c), Σ (φ_i − c)(y_i − ȳ)ᵀ.
        let (w1, tri) = (m + 1 + r, m);
        let len1 = packed_len(m, w1, tri);
        let sums = sum_over_parts(part, len1, setup_error.take(), |acc| {
            let (Some(b), Some((_, enc))) = (&blocks, &local) else { return Ok(()) };
            let mut packed = Vec::with_capacity(len1);
            b.each(
                w1,
                |i0, kb, out| {
                    let h = kb.nrows();
                    let pt = features(kb, &pilot);
                    let (gram, mut rest) = out.split_at_col_mut(m);
                    lower_gram(pt.transpose(), gram);
                    for j in 0..m {
                        rest[(j, 0)] = (0..h).map(|i| pt[(j, i)]).sum();
                    }
                    let yc = Mat::from_fn(h, r, |i, t| enc.y[(i0 + i, t)] - ybar[t]);
                    matmul(rest.subcols_mut(1, r), Accum::Replace, pt.as_ref(), yc.as_ref(), 1.0, Par::Seq);
                },
                |_, p| {
                    pack_into(&mut packed, p, tri);
                    acc.add_at(0, &packed);
                },
            )
        })?;
        let acc = unpack(&sums, m, w1, tri);
        let mut s = Mat::from_fn(m, m, |i, j| if i >= j { acc[(i, j)] } else { acc[(j, i)] });
        let mut mean = pilot.clone();
        if bias {
            for j in 0..m {
                for i in 0..m {
                    s[(i, j)] -= acc[(i, m)] * acc[(j, m)] / n as f64;
                }
                mean[j] += acc[(j, m)] / n as f64;
            }
        }
        let evd = s.self_adjoint_eigen(Side::Lower).map_err(|e| {
            ModelsError::Numerical(format!(
                "eigendecomposition of the landmark features' Gram matrix: {}",
                kern_core::faer_errors::evd(e)
            ))
        })?;
        let v = evd.U().to_owned();
        let d: Vec<f64> = (0..m).map(|j| evd.S().column_vector()[j].max(0.0)).collect();
        drop(evd);
        // z = Vᵀ Φ_cᵀ(y − ȳ) and the weights 1/(d_j + λ) per λ.
        let mut z = Mat::<f64>::zeros(m, r);
        matmul(z.as_mut(), Accum::Replace, v.transpose(), acc.subcols(m + 1, r), 1.0, Par::Seq);
        drop(acc);
        let w = Mat::from_fn(m, g, |j, k| 1.0 / (d[j] + grid[k]));
        let zw = Mat::from_fn(m, g * r, |j, c| z[(j, c % r)] * w[(j, c / r)]);
        let lever0 = if bias { 1.0 / n as f64 } else { 0.0 };
        // Pass 2: per block, Ψ = Φ_c V, the leverages and fitted values at every λ, and per λ the
        // wrong decisions and the squared residuals (each block's in row order), added exactly; and the
        // smallest λ (index) at which a point's leverage reaches 1, as g − k (0: none).
        let mut first_bad = g;
        let task = &part.task;
        let tallies = sum_over_parts(part, 2 * g, setup_error.take(), |acc| {
            let (Some(b), Some((_, enc))) = (&blocks, &local) else { return Ok(()) };
            let mut states: Vec<(Vec<f64>, usize)> = (0..4).map(|_| (Vec::new(), g)).collect();
            b.each_with(
                &mut states,
                |i0, kb, (terms, bad)| {
                    let h = kb.nrows();
                    let pt = features(kb, &mean);
                    let mut psi = Mat::<f64>::zeros(h, m);
                    matmul(psi.as_mut(), Accum::Replace, pt.transpose(), v.as_ref(), 1.0, Par::Seq);
                    let psi2 = Mat::from_fn(h, m, |i, j| psi[(i, j)] * psi[(i, j)]);
                    let mut lever = Mat::<f64>::zeros(h, g);
                    matmul(lever.as_mut(), Accum::Replace, psi2.as_ref(), w.as_ref(), 1.0, Par::Seq);
                    let mut fit = Mat::<f64>::zeros(h, g * r);
                    matmul(fit.as_mut(), Accum::Replace, psi.as_ref(), zw.as_ref(), 1.0, Par::Seq);
                    let yb = enc.y.as_ref().subrows(i0, h);
                    let truth = &enc.truth[i0..i0 + h];
                    *bad = g;
                    terms.clear();
                    terms.resize(2 * g, 0.0);
                    for k in 0..g {
                        let pred = Mat::from_fn(h, r, |i, t| {
                            let one_minus = 1.0 - (lever0 + lever[(i, k)]);
                            if one_minus.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                                *bad = (*bad).min(k);
                            }
                            let resid = (yb[(i, t)] - (ybar[t] + fit[(i, k * r + t)])) / one_minus;
                            yb[(i, t)] - resid
                        });
                        let tally = Tally::of(task, truth, yb, pred.as_ref());
                        terms[k] = tally.wrong as f64;
                        terms[g + k] = tally.squares;
                    }
                },
                |_, (terms, bad)| {
                    first_bad = first_bad.min(*bad);
                    acc.add_at(0, terms);
                },
            )
        })?;
        let mut bad = [(g - first_bad) as u64];
        (part.max)(&mut bad);
        if bad[0] > 0 {
            return Err(ModelsError::Numerical(format!(
                "a training point's leverage reaches 1 at lambda {:e}: its leave-one-out residual is undefined \
                 (use a larger lambda or fewer centres)",
                grid[g - bad[0] as usize]
            )));
        }
        let (error, mse): (Vec<f64>, Vec<f64>) = (0..g)
            .map(|k| {
                let t =
                    Tally { wrong: tallies[k] as usize, squares: tallies[g + k], rows: n, entries: n * r };
                t.scores(&part.task)
            })
            .unzip();
        let best = best_index(&error, &mse);
        Ok(Selection { criterion: "loo".into(), grid, error, mse, best, method: "eigen".into() })
    }
}

/// Leave-one-out needs a model without each point: at least 2 samples.
fn check_sizes(n: usize) -> Result<()> {
    if n < 2 {
        return Err(ModelsError::Input(format!(
            "choosing lambda by leave-one-out needs at least 2 training samples, got {n}"
        )));
    }
    Ok(())
}
