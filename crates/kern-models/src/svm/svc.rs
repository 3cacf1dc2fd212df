//! C-SVC: binary and multi-class (one-vs-one, one-vs-rest), with optional Platt probabilities.

use super::params::{Multiclass, SvcParams};
use super::plan::{self, Columns, Order};
use super::platt::{self, Sigmoid};
use super::train::{self, MachineStats, Rows};
use crate::error::{ModelsError, Result};
use crate::persist::Persist;
use faer::Mat;
use kern_core::learner::{Fit, Model};
use kern_core::{BinaryTargets, ClassTargets, KernelSpec, Samples, Targets};
use kern_sparse::kmatrix::Precomputed;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One binary machine `f(x) = Σ_k coef_k k(sv_k, x) − ρ`; `f > 0` votes for `pos`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Machine {
    /// Class whose samples had label +1.
    pub(crate) pos: usize,
    /// Class with label −1 (`None`: all other classes, one-vs-rest).
    pub(crate) neg: Option<usize>,
    /// Rows of [`Svc::support_vectors`] used by this machine.
    pub(crate) sv: Vec<u32>,
    /// `α_k y_k` for each of them.
    pub(crate) coef: Vec<f64>,
    pub(crate) rho: f64,
}

impl Machine {
    /// The same machine with `pos` and `neg` in each other's roles: `−f` (coefficients and `ρ`
    /// negated), the support vectors and the dual optimum `α` unchanged.
    fn turned(self) -> Machine {
        let neg = self.neg.expect("a one-vs-rest machine has no single class to turn to");
        Machine {
            pos: neg,
            neg: Some(self.pos),
            sv: self.sv,
            coef: self.coef.into_iter().map(|c| -c).collect(),
            rho: -self.rho,
        }
    }
}

/// A trained C-SVC.
///
/// **Decision values** ([`Svc::decision_function`]) are one column per machine:
/// - trained on [`BinaryTargets`]: one column, `f(x) > 0` ↦ the `+1` class (`names()[1]`);
/// - one-vs-one (default, LIBSVM's convention and order): `k(k−1)/2` columns for the pairs
///   `(0,1), (0,2), …, (0,k−1), (1,2), …, (k−2,k−1)`; column `(a,b)` is positive in favour of class `a`
///   (the lower index), and the prediction is the class with most votes (ties: lowest index);
/// - one-vs-rest: `k` columns, column `c` positive in favour of class `c`; the prediction is the argmax.
///
/// [`Model::predict`] returns ±1 for binary targets and the class index (as `f64`) otherwise.
///
/// ```
/// use kern_models::svm::SvcParams;
/// use kern_core::{Samples, ClassTargets, learner::{Fit, Model}};
/// let x = Samples::from_rows(&[[0.0, 0.0], [0.1, 0.0], [5.0, 0.0], [5.1, 0.0], [0.0, 5.0], [0.0, 5.1]])?;
/// let y = ClassTargets::from_labels(&["a", "a", "b", "b", "c", "c"])?;
/// let m = SvcParams::new("gaussian:sigma=2".parse()?).c(10.0).fit(&x, &y)?;
/// assert_eq!(m.n_machines(), 3);                      // (a,b), (a,c), (b,c)
/// assert_eq!(m.predict(&x)?, vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
/// let d = m.decision_function(&Samples::from_rows(&[[0.0, 0.0]])?)?;
/// assert!(d[(0, 0)] > 0.0 && d[(0, 1)] > 0.0);         // a beats b and c
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Svc {
    kernel: super::ModelKernel,
    names: Vec<String>,
    binary: bool,
    scheme: Multiclass,
    sv: Samples,
    machines: Vec<Machine>,
    sigmoids: Option<Vec<Sigmoid>>,
    stats: Vec<MachineStats>,
    /// `Some(ν)` for a ν-SVC (its machines are stored in C-SVC form, coefficients `α_i y_i / r`).
    nu: Option<f64>,
    /// The machines' coefficients as one dense `#SV × machines` matrix, built by the first prediction
    /// and reused by every later one (not stored in the model file).
    #[serde(skip)]
    expansion: Expansion,
}

/// A lazily built coefficient matrix: derived data, so it takes no part in equality and is not
/// persisted.
#[derive(Clone, Default)]
struct Expansion(std::sync::OnceLock<faer::Mat<f64>>);

impl PartialEq for Expansion {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Expansion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() { "built" } else { "not built" })
    }
}

impl Persist for Svc {
    const KIND: &'static str = "svc";
    fn validate(&self) -> std::result::Result<(), String> {
        use crate::validate as v;
        let k = self.names.len();
        v::names(&self.names)?;
        self.kernel.validate(&self.sv)?;
        let machines = match (self.binary || k == 2, self.scheme) {
            (true, _) => 1,
            (false, Multiclass::OneVsOne) => k * (k - 1) / 2,
            (false, Multiclass::OneVsRest) => k,
        };
        v::len("machines", self.machines.len(), machines)?;
        for (i, m) in self.machines.iter().enumerate() {
            v::indices(&format!("machine {i} class"), &[m.pos], k)?;
            if let Some(neg) = m.neg {
                v::indices(&format!("machine {i} class"), &[neg], k)?;
                if neg == m.pos {
                    return Err(format!("machine {i} separates class {} from itself", m.pos));
                }
            } else if self.scheme != Multiclass::OneVsRest || machines == 1 {
                return Err(format!("machine {i} is one-vs-rest in a {:?} model", self.scheme));
            }
            v::len(&format!("machine {i} coef"), m.coef.len(), m.sv.len())?;
            v::indices(&format!("machine {i} support vector"), &m.sv, self.sv.n())?;
            v::finite(&format!("machine {i} coef"), &m.coef)?;
            v::finite(&format!("machine {i} rho"), &[m.rho])?;
        }
        if let Some(s) = &self.sigmoids {
            v::len("sigmoids", s.len(), self.machines.len())?;
            for (i, sig) in s.iter().enumerate() {
                v::finite(&format!("sigmoid {i}"), &[sig.a, sig.b])?;
            }
        }
        if let Some(nu) = self.nu
            && !(nu > 0.0 && nu <= 1.0)
        {
            return Err(format!("nu = {nu} is outside (0, 1]"));
        }
        v::len("stats", self.stats.len(), self.machines.len())?;
        let objectives: Vec<f64> = self.stats.iter().map(|s| s.objective).collect();
        v::finite("objective", &objectives)
    }
}

/// The class LIBSVM's `svm_train` trains as +1 in a two-class problem (`svm_group_classes`): the
/// class of the first sample (labels in order of first appearance), except that for the labels −1
/// and +1 the +1 class is always first. `names` are the two class names, sorted (numbers as numbers);
/// `classes` each sample's class.
pub(super) fn libsvm_positive(names: &[String], classes: &[usize]) -> usize {
    match (names[0].parse::<f64>(), names[1].parse::<f64>()) {
        (Ok(a), Ok(b)) if a == -1.0 && b == 1.0 => 1,
        _ => classes[0],
    }
}

/// Training data of one binary machine: sample indices, labels, bounds.
struct Job {
    pos: usize,
    neg: Option<usize>,
    idx: Vec<usize>,
    y: Vec<f64>,
    c: Vec<f64>,
    /// Solved with `pos` and `neg` in each other's roles; the machine is turned after the solve
    /// ([`Machine::turned`]).
    turned: bool,
}

impl SvcParams {
    /// Trains the machines of a C-SVC, or of a ν-SVC when `nu` is given (then `C`, class weights and
    /// the multi-class scheme are not used: ν-SVC is one-vs-one, as in LIBSVM). `sw`: positive
    /// per-sample weights multiplying each sample's bound (see [`crate::weights`]). `user`: a
    /// precomputed kernel matrix, then `x` holds the serial numbers of its rows (see
    /// [`super::KernelMatrix`]). Every C-SVC and ν-SVC fit, weighted or not, on samples or on a
    /// precomputed matrix, goes through here.
    #[allow(clippy::too_many_arguments)] // the targets' three parts, ν, and the two optional inputs
    pub(crate) fn fit_groups(
        &self,
        x: &Samples,
        classes: &[usize],
        names: &[String],
        binary: bool,
        nu: Option<f64>,
        sw: Option<&[f64]>,
        user: Option<&super::KernelMatrix>,
    ) -> Result<Svc> {
        let k = names.len();
        let weights = self.check(names, x)?;
        let mut groups: Vec<Vec<usize>> = vec![Vec::new(); k];
        for (i, &c) in classes.iter().enumerate() {
            groups[c].push(i);
        }
        if let Some(c) = groups.iter().position(|g| g.is_empty()) {
            return Err(ModelsError::Input(format!("class {:?} has no training sample", names[c])));
        }
        if let Some(nu) = nu {
            // Class sizes, or weight totals (the weighted `l` of scikit-learn's LIBSVM fork).
            let size = |g: &Vec<usize>| sw.map_or(g.len() as f64, |w| g.iter().map(|&i| w[i]).sum());
            let sizes: Vec<f64> = groups.iter().map(size).collect();
            super::nu::check_feasible(nu, &sizes, names)?;
        }
        let scheme = if binary || k == 2 || nu.is_some() { Multiclass::OneVsOne } else { self.multiclass };
        // A binary problem's +1 class for the solver (decision 0046).
        let plus = binary.then(|| libsvm_positive(names, classes));
        let mut jobs = self.jobs(&groups, &weights, classes, plus, scheme, nu.is_some());
        if let Some(sw) = sw {
            // `C_i = w_i · C · w_class` (ν-SVC: the bound `w_i` of its scaled dual).
            for job in &mut jobs {
                job.c.iter_mut().zip(&job.idx).for_each(|(c, &i)| *c *= sw[i]);
            }
        }
        for job in &jobs {
            for (&c, &i) in job.c.iter().zip(&job.idx) {
                super::params::check_box(c, sw.map_or(1.0, |w| w[i]))?;
            }
        }
        let dense = if user.is_some() { None } else { self.shared_blocks(x, &groups, &jobs, scheme)? };
        let machines = jobs.len();
        let fit = |job: &Job| self.fit_job(x, job, dense.as_deref(), nu, user, machines);
        // One machine (a binary problem) runs on the calling thread: handing it to the pool only adds
        // a wake-up and a cold cache to a small fit.
        let fits: Vec<(train::BinaryFit, Option<Sigmoid>)> = if jobs.len() == 1 {
            jobs.iter().map(fit).collect::<Result<_>>()?
        } else {
            jobs.par_iter().map(fit).collect::<Result<_>>()?
        };
        // Union of support vectors, in sample order.
        let mut used = vec![u32::MAX; x.n()];
        for (job, (f, _)) in jobs.iter().zip(&fits) {
            for (&i, &a) in job.idx.iter().zip(&f.alpha) {
                if a > 0.0 {
                    used[i] = 0;
                }
            }
        }
        let mut sv_idx = Vec::new();
        for (i, u) in used.iter_mut().enumerate() {
            if *u == 0 {
                *u = sv_idx.len() as u32;
                sv_idx.push(i);
            }
        }
        if sv_idx.is_empty() {
            // Degenerate (cannot happen with both classes present and C > 0), keep one row.
            sv_idx.push(0);
        }
        let sv = x.select(&sv_idx)?;
        let mut machines = Vec::with_capacity(jobs.len());
        let mut stats = Vec::with_capacity(jobs.len());
        let mut sigmoids = Vec::new();
        for (job, (mut f, mut sig)) in jobs.iter().zip(fits) {
            let mut m =
                Machine { pos: job.pos, neg: job.neg, sv: Vec::new(), coef: Vec::new(), rho: f.stats.rho };
            for ((&i, &a), &y) in job.idx.iter().zip(&f.alpha).zip(&job.y) {
                if a > 0.0 {
                    m.sv.push(used[i]);
                    m.coef.push(a * y);
                }
            }
            if job.turned {
                m = m.turned();
                f.stats.rho = m.rho;
                sig = sig.map(Sigmoid::turned);
            }
            machines.push(m);
            stats.push(f.stats);
            if let Some(s) = sig {
                sigmoids.push(s);
            }
        }
        crate::validate::trained(Svc {
            kernel: super::ModelKernel::of(&self.kernel, user),
            names: names.to_vec(),
            binary,
            scheme,
            sv,
            machines,
            sigmoids: self.probability.then_some(sigmoids),
            stats,
            nu,
            expansion: Expansion::default(),
        })
    }

    /// The binary machines to train: one for a binary problem (`binary_plus`: the class the solver
    /// trains as +1), else one per pair or per class as `scheme` says; ν-SVC (`grouped`) in LIBSVM's
    /// grouped order.
    fn jobs(
        &self,
        groups: &[Vec<usize>],
        w: &[f64],
        classes: &[usize],
        binary_plus: Option<usize>,
        scheme: Multiclass,
        grouped: bool,
    ) -> Vec<Job> {
        let k = groups.len();
        let mut jobs = Vec::new();
        if let Some(pos) = binary_plus {
            // The solver's +1 is the class LIBSVM trains as +1 (decision 0046): the SMO's path is not
            // symmetric in the two classes, so where the dual optimum is not unique (data with many
            // equal distances) the support vectors are then LIBSVM's. A machine solved with class 0
            // as +1 is turned to the binary convention (+1 is class 1, as in BinaryTargets).
            let neg = 1 - pos;
            let (idx, y, c) = if grouped {
                // ν-SVC in LIBSVM's order (`svm_group_classes`): the +1 samples, then the −1 ones.
                let idx: Vec<usize> = groups[pos].iter().chain(&groups[neg]).copied().collect();
                let y = (0..idx.len()).map(|t| if t < groups[pos].len() { 1.0 } else { -1.0 }).collect();
                let c = vec![self.regularization.c_for(idx.len()); idx.len()];
                (idx, y, c)
            } else {
                // C-SVC: the samples in their original order.
                let n = classes.len();
                let y = classes.iter().map(|&c| if c == pos { 1.0 } else { -1.0 }).collect();
                let creg = self.regularization.c_for(n);
                ((0..n).collect(), y, classes.iter().map(|&cl| creg * w[cl]).collect())
            };
            jobs.push(Job { pos, neg: Some(neg), idx, y, c, turned: pos == 0 });
            return jobs;
        }
        match scheme {
            Multiclass::OneVsOne => {
                for a in 0..k {
                    for b in a + 1..k {
                        // LIBSVM groups the samples: all of class a, then all of class b.
                        let idx: Vec<usize> = groups[a].iter().chain(&groups[b]).copied().collect();
                        let n = idx.len();
                        let creg = self.regularization.c_for(n);
                        let y: Vec<f64> =
                            (0..n).map(|t| if t < groups[a].len() { 1.0 } else { -1.0 }).collect();
                        let c =
                            (0..n).map(|t| creg * if t < groups[a].len() { w[a] } else { w[b] }).collect();
                        jobs.push(Job { pos: a, neg: Some(b), idx, y, c, turned: false });
                    }
                }
            }
            Multiclass::OneVsRest => {
                let n = classes.len();
                let creg = self.regularization.c_for(n);
                for a in 0..k {
                    let idx: Vec<usize> = (0..n).collect();
                    let y = classes.iter().map(|&c| if c == a { 1.0 } else { -1.0 }).collect();
                    let c = classes.iter().map(|&cl| creg * w[cl]).collect();
                    jobs.push(Job { pos: a, neg: None, idx, y, c, turned: false });
                }
            }
        }
        jobs
    }

    /// One-vs-one with a dense Gram per pair ([`plan::class_blocks`]): the diagonal class blocks
    /// `K(X_a, X_a)` are computed once and shared by the `k − 1` pairs that use them (only the
    /// off-diagonal block is computed per pair).
    fn shared_blocks(
        &self,
        x: &Samples,
        groups: &[Vec<usize>],
        jobs: &[Job],
        scheme: Multiclass,
    ) -> Result<Option<Vec<ClassBlock>>> {
        let sizes = jobs.iter().map(|j| j.idx.len());
        let budget = self.solver.cache_bytes();
        if scheme != Multiclass::OneVsOne
            || !plan::class_blocks(&self.kernel, x, groups.len(), sizes, budget, &self.solver.tuning)
        {
            return Ok(None);
        }
        let blocks: Vec<ClassBlock> = groups
            .iter()
            .map(|g| {
                let xs = x.select(g)?;
                let gm = train::dense_gram(&self.kernel, &xs)?;
                Ok((xs, gm))
            })
            .collect::<Result<_>>()?;
        Ok(Some(blocks))
    }

    #[allow(clippy::too_many_arguments)] // the data, the job, its shared blocks, ν, the user's matrix, the machine count
    fn fit_job(
        &self,
        x: &Samples,
        job: &Job,
        blocks: Option<&[ClassBlock]>,
        nu: Option<f64>,
        user: Option<&super::KernelMatrix>,
        machines: usize,
    ) -> Result<(train::BinaryFit, Option<Sigmoid>)> {
        let budget = self.solver.cache_bytes();
        let tuning = &self.solver.tuning;
        // With shared one-vs-one blocks the pair's Gram is assembled from them and the solver never
        // reads the samples (a dense source only gathers). Without a kernel matrix the solver reads the
        // caller's samples through the job's index map. The job's rows are copied only to compute a
        // kernel matrix over them or for the sigmoid's cross-validation.
        let shared = match (blocks, job.neg) {
            (Some(b), Some(neg)) => Some((
                &b[job.pos].0,
                assemble(&b[job.pos], &b[neg], &train::cross(&self.kernel, &b[job.pos].0, &b[neg].0)?),
            )),
            _ => None,
        };
        let columns = plan::columns(&self.kernel, x, job.idx.len(), budget, user.is_some(), tuning);
        let gram = shared.is_none() && columns != Columns::OnDemand;
        let xs = if gram || self.probability { Some(x.select(&job.idx)?) } else { None };
        // A compact kernel's large problem is solved in the cells' order and its `α` mapped back, so
        // the machine lists its support vectors as it would in the data's order.
        if let (None, Some(xs), None, false) = (&shared, &xs, user, self.probability)
            && let Some(cells) = train::CellOrder::of(&self.kernel, xs, tuning)?
        {
            let (y, c) = (cells.permute(&job.y), cells.permute(&job.c));
            let pre = train::precompute(&self.kernel, &cells.x, budget, None, tuning)?;
            let source = train::source_plan(pre.as_ref(), false, false, Order::Cells, machines);
            let fit = super::nu::solve_binary(
                &self.kernel,
                Rows::all(&cells.x),
                &y,
                c,
                nu,
                &self.solver,
                pre,
                source,
            )?;
            let alpha = cells.unpermute(&fit.alpha);
            return Ok((train::BinaryFit { alpha, ..fit }, None));
        }
        let (rows, pre) = match (&shared, &xs) {
            (Some((_, g)), Some(xs)) => (Rows::all(xs), Some(Precomputed::Dense(g.clone()))),
            // Placeholder samples (fewer rows than the job): not read by a dense source, which maps
            // the job's positions to the assembled Gram's rows (see `SignedColumns::new`).
            (Some((placeholder, g)), None) => (
                Rows { x: placeholder, sample: (0..job.idx.len()).collect() },
                Some(Precomputed::Dense(g.clone())),
            ),
            (None, Some(xs)) if gram => {
                (Rows::all(xs), train::precompute(&self.kernel, xs, budget, user, tuning)?)
            }
            (None, _) => (Rows { x, sample: job.idx.clone() }, None),
        };
        let source =
            train::source_plan(pre.as_ref(), shared.is_some(), user.is_some(), Order::Data, machines);
        let fit = super::nu::solve_binary(
            &self.kernel,
            rows,
            &job.y,
            job.c.clone(),
            nu,
            &self.solver,
            pre.clone(),
            source,
        )?;
        let sig = match (&xs, self.probability) {
            (Some(xs), true) => Some(platt::cross_validated_sigmoid(
                &self.kernel,
                xs,
                &job.y,
                &job.c,
                &self.solver,
                self.seed,
                pre.as_ref(),
                nu,
                user.is_some(),
            )?),
            _ => None,
        };
        Ok((fit, sig))
    }
}

/// The Gram matrix of `[X_a; X_b]` from the blocks `K_aa`, `K_bb` and `K_ab` (column by column, the
/// lower-left `K_abᵀ` by 32 × 32 tiles).
/// One class's samples and their precomputed Gram block.
type ClassBlock = (Samples, Arc<Mat<f64>>);

fn assemble(a: &ClassBlock, b: &ClassBlock, ab: &Mat<f64>) -> Arc<Mat<f64>> {
    let (na, nb) = (a.1.nrows(), b.1.nrows());
    let n = na + nb;
    let mut g = Mat::<f64>::zeros(n, n);
    for j in 0..na {
        let col = g.col_mut(j).try_as_col_major_mut().expect("owned Mat is column-major").as_slice_mut();
        col[..na].copy_from_slice(a.1.col(j).try_as_col_major().expect("column-major").as_slice());
    }
    for jb in 0..nb {
        let col =
            g.col_mut(na + jb).try_as_col_major_mut().expect("owned Mat is column-major").as_slice_mut();
        col[..na].copy_from_slice(ab.col(jb).try_as_col_major().expect("column-major").as_slice());
        col[na..].copy_from_slice(b.1.col(jb).try_as_col_major().expect("column-major").as_slice());
    }
    const T: usize = 32;
    for i0 in (0..nb).step_by(T) {
        for j0 in (0..na).step_by(T) {
            for i in i0..(i0 + T).min(nb) {
                let src = ab.col(i).try_as_col_major().expect("column-major").as_slice();
                for j in j0..(j0 + T).min(na) {
                    g[(na + i, j)] = src[j];
                }
            }
        }
    }
    Arc::new(g)
}

impl Fit<BinaryTargets> for SvcParams {
    type Model = Svc;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &BinaryTargets) -> Result<Svc> {
        check_len(x, y.len())?;
        let classes: Vec<usize> = y.y().iter().map(|&v| usize::from(v > 0.0)).collect();
        self.fit_groups(x, &classes, y.names(), true, None, None, None)
    }
}

impl Fit<ClassTargets> for SvcParams {
    type Model = Svc;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &ClassTargets) -> Result<Svc> {
        check_len(x, y.len())?;
        self.fit_groups(x, y.classes(), y.names(), false, None, None, None)
    }
}

impl Fit<Targets> for SvcParams {
    type Model = Svc;
    type Error = ModelsError;
    fn fit(&self, x: &Samples, y: &Targets) -> Result<Svc> {
        match y {
            Targets::Binary(b) => self.fit(x, b),
            Targets::Classes(c) => self.fit(x, c),
            Targets::Real(_) => Err(ModelsError::Input("C-SVC needs class labels, got real targets".into())),
        }
    }
}

impl crate::weights::FitWeighted for SvcParams {
    fn fit_weighted(&self, x: &Samples, y: &Targets, w: &crate::weights::SampleWeights) -> Result<Svc> {
        self.fit_weighted_groups(x, y, w, None, None)
    }
}

impl SvcParams {
    /// [`SvcParams::fit_groups`] with sample weights: the samples of weight 0 are dropped first (from
    /// `x`, or from the serial numbers of `user`'s rows), the others' weights scale their bounds.
    pub(crate) fn fit_weighted_groups(
        &self,
        x: &Samples,
        y: &Targets,
        w: &crate::weights::SampleWeights,
        nu: Option<f64>,
        user: Option<&super::KernelMatrix>,
    ) -> Result<Svc> {
        let what = if nu.is_some() { "nu-SVC" } else { "C-SVC" };
        let (x, y, w) = crate::weights::positive(x, Some(y), w)?;
        let (classes, names, binary) = class_parts(y.as_deref(), what)?;
        self.fit_groups(&x, &classes, names, binary, nu, Some(&w), user)
    }
}

/// Class index per sample, class names, and whether the targets are ±1 labels (`what` names the model
/// in the error for real targets).
pub(crate) fn class_parts<'a>(
    y: Option<&'a Targets>,
    what: &str,
) -> Result<(Vec<usize>, &'a [String], bool)> {
    match y {
        Some(Targets::Binary(b)) => {
            Ok((b.y().iter().map(|&v| usize::from(v > 0.0)).collect(), b.names(), true))
        }
        Some(Targets::Classes(c)) => Ok((c.classes().to_vec(), c.names(), false)),
        _ => Err(ModelsError::Input(format!("{what} needs class labels, got real targets"))),
    }
}

/// LIBSVM's one-vs-one rule: the first class with the most votes.
pub(crate) fn most_voted(votes: &[usize]) -> usize {
    let best = *votes.iter().max().expect("at least two classes");
    votes.iter().position(|&v| v == best).expect("max exists")
}

pub(crate) fn check_len(x: &Samples, n: usize) -> Result<()> {
    if x.n() != n {
        return Err(ModelsError::Input(format!("{} targets for {} samples", n, x.n())));
    }
    Ok(())
}

impl Svc {
    /// The kernel (for a precomputed-kernel model, see [`Svc::is_precomputed`], a placeholder that is
    /// never evaluated).
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel.spec
    }
    /// Whether the model was trained on a precomputed kernel matrix: its support vectors are then the
    /// serial numbers of training points, and it predicts from kernel rows (see [`super::KernelMatrix`]).
    pub fn is_precomputed(&self) -> bool {
        self.kernel.precomputed
    }
    /// Class names (`names()[c]` is class `c`; binary: `[−1 class, +1 class]`).
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// The union of the machines' support vectors.
    pub fn support_vectors(&self) -> &Samples {
        &self.sv
    }
    /// Number of distinct support vectors.
    pub fn n_sv(&self) -> usize {
        self.machines
            .iter()
            .map(|m| m.sv.len())
            .max()
            .map_or(0, |_| self.sv.n())
            .min(self.machines.iter().map(|m| m.sv.len()).sum())
    }
    /// Number of binary machines (columns of the decision values).
    pub fn n_machines(&self) -> usize {
        self.machines.len()
    }
    /// The multi-class scheme used.
    pub fn scheme(&self) -> Multiclass {
        self.scheme
    }
    /// Training figures, one per machine, in decision-value order.
    pub fn stats(&self) -> &[MachineStats] {
        &self.stats
    }
    /// For each machine `(pos, neg)` classes (`neg = None` for one-vs-rest) and its bias `b = −ρ`.
    pub fn machines(&self) -> Vec<(usize, Option<usize>, f64)> {
        self.machines.iter().map(|m| (m.pos, m.neg, -m.rho)).collect()
    }
    /// Support-vector rows and coefficients `α_k y_k` of machine `m`.
    pub fn machine_coefficients(&self, m: usize) -> (Vec<usize>, Vec<f64>) {
        let mm = &self.machines[m];
        (mm.sv.iter().map(|&i| i as usize).collect(), mm.coef.clone())
    }
    /// `Some(ν)` when the model is a ν-SVC ([`super::NuSvcParams`]), `None` for a C-SVC.
    pub fn nu(&self) -> Option<f64> {
        self.nu
    }
    /// Whether Platt probabilities were fitted.
    pub fn has_probability(&self) -> bool {
        self.sigmoids.is_some()
    }

    /// How a prediction on `x` expands the kernel against the support vectors (small products on the
    /// calling thread, larger ones in parallel blocks, compact kernels through a neighbour index);
    /// `None` for a precomputed kernel.
    ///
    /// ```
    /// use kern_models::svm::SvcParams;
    /// use kern_models::{BinaryTargets, Fit, Samples};
    /// use kern_sparse::kmatrix::ExpandPlan;
    /// let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
    /// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
    /// let m = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?;
    /// assert_eq!(m.expansion_plan(&x), Some(ExpandPlan::Serial));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expansion_plan(&self, x: &Samples) -> Option<kern_sparse::kmatrix::ExpandPlan> {
        self.kernel.expansion_plan(&self.sv, x)
    }

    /// Decision values: one row per sample, one column per machine (shape in the type's docs). For a
    /// precomputed-kernel model the samples are kernel rows against the training points.
    pub fn decision_function(&self, x: &Samples) -> Result<faer::Mat<f64>> {
        let coef = self.expansion.0.get_or_init(|| {
            let mut a = faer::Mat::zeros(self.sv.n(), self.machines.len());
            for (j, m) in self.machines.iter().enumerate() {
                for (&k, &v) in m.sv.iter().zip(&m.coef) {
                    a[(k as usize, j)] = v;
                }
            }
            a
        });
        let rho: Vec<f64> = self.machines.iter().map(|m| m.rho).collect();
        self.kernel.decision_values(&self.sv, coef.as_ref(), &rho, x)
    }

    /// The class of row `i` of the decision values `dec`.
    fn vote(&self, dec: faer::MatRef<'_, f64>, i: usize) -> usize {
        let dec = dec.row(i);
        match self.scheme {
            _ if self.binary => usize::from(dec[0] > 0.0),
            Multiclass::OneVsOne => {
                let mut votes = vec![0usize; self.names.len()];
                for (m, &v) in self.machines.iter().zip(dec.iter()) {
                    let neg = m.neg.expect("one-vs-one machines have a negative class");
                    votes[if v > 0.0 { m.pos } else { neg }] += 1;
                }
                most_voted(&votes)
            }
            Multiclass::OneVsRest => {
                let mut best = 0;
                for (c, &v) in dec.iter().enumerate() {
                    if v > dec[best] {
                        best = c;
                    }
                }
                self.machines[best].pos
            }
        }
    }

    /// Predicted class index of each sample (for binary models 0 = the −1 class, 1 = the +1 class).
    pub fn predict_class(&self, x: &Samples) -> Result<Vec<usize>> {
        let dec = self.decision_function(x)?;
        Ok((0..dec.nrows()).map(|i| self.vote(dec.as_ref(), i)).collect())
    }

    /// Predicted label names.
    pub fn predict_names(&self, x: &Samples) -> Result<Vec<String>> {
        Ok(self.predict_class(x)?.into_iter().map(|c| self.names[c].clone()).collect())
    }

    /// Class probabilities (one row per sample, one column per class), from the Platt sigmoids fitted
    /// by internal cross-validation (LIBSVM `-b 1`): binary `P(+1|x) = 1/(1 + exp(A f(x) + B))`;
    /// one-vs-one couples the pairwise probabilities (Wu, Lin & Weng 2004, method 2); one-vs-rest
    /// normalizes the per-class sigmoids.
    ///
    /// The most probable class can differ from [`Svc::predict_class`]: the sigmoids come from
    /// cross-validation models, not from the final decision values, and coupling is not voting
    /// (LIBSVM documents the same disagreement). Errors when the model was trained without
    /// probabilities.
    pub fn predict_proba(&self, x: &Samples) -> Result<faer::Mat<f64>> {
        self.proba_from(self.decision_function(x)?.as_ref())
    }

    /// Labels, decision values and (with `proba`) class probabilities of every sample, from one
    /// kernel expansion: [`Svc::predict_class`], [`Svc::decision_function`] and [`Svc::predict_proba`]
    /// each expand `K(x, SV)` again, this computes the decision values once and derives the rest from
    /// them (the same numbers as the three calls).
    ///
    /// ```
    /// use kern_models::svm::SvcParams;
    /// use kern_models::{BinaryTargets, Fit, Samples};
    /// let x = Samples::from_rows(&[[0.0], [0.1], [0.2], [0.3], [0.4], [2.0], [2.1], [2.2], [2.3], [2.4]])?;
    /// let y = BinaryTargets::from_labels(&["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"])?;
    /// let m = SvcParams::new("linear".parse()?).probability(true, 0).fit(&x, &y)?;
    /// let all = m.predict_all(&x, true)?;
    /// assert_eq!(all.labels, m.predict_names(&x)?);
    /// assert_eq!(all.decision, m.decision_function(&x)?);
    /// assert_eq!(all.proba, Some(m.predict_proba(&x)?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Svc::decision_function`]; with `proba`, a model trained without probabilities.
    pub fn predict_all(&self, x: &Samples, proba: bool) -> Result<SvcPredictions> {
        if proba && self.sigmoids.is_none() {
            return Err(no_probabilities());
        }
        let dec = self.decision_function(x)?;
        let classes: Vec<usize> = (0..dec.nrows()).map(|i| self.vote(dec.as_ref(), i)).collect();
        let labels = classes.iter().map(|&c| self.names[c].clone()).collect();
        let proba = if proba { Some(self.proba_from(dec.as_ref())?) } else { None };
        Ok(SvcPredictions { classes, labels, decision: dec, proba })
    }

    /// Class probabilities from decision values (see [`Svc::predict_proba`]).
    fn proba_from(&self, dec: faer::MatRef<'_, f64>) -> Result<faer::Mat<f64>> {
        let sig = self.sigmoids.as_ref().ok_or_else(no_probabilities)?;
        let k = self.names.len();
        let rows: Vec<Vec<f64>> = (0..dec.nrows())
            .map(|i| {
                let d: Vec<f64> = dec.row(i).iter().copied().collect();
                if self.binary {
                    let p = sig[0].prob(d[0]);
                    vec![1.0 - p, p]
                } else {
                    match self.scheme {
                        Multiclass::OneVsOne => {
                            let mut r = vec![vec![0.0; k]; k];
                            for ((m, s), &v) in self.machines.iter().zip(sig).zip(&d) {
                                let b = m.neg.expect("pair");
                                let p = s.prob(v).clamp(1e-7, 1.0 - 1e-7);
                                r[m.pos][b] = p;
                                r[b][m.pos] = 1.0 - p;
                            }
                            platt::couple(&r)
                        }
                        Multiclass::OneVsRest => {
                            let mut p: Vec<f64> = sig.iter().zip(&d).map(|(s, &v)| s.prob(v)).collect();
                            let t: f64 = p.iter().sum();
                            p.iter_mut().for_each(|v| *v /= t);
                            p
                        }
                    }
                }
            })
            .collect();
        Ok(rows_to_mat(&rows, k))
    }
}

fn no_probabilities() -> ModelsError {
    ModelsError::Input("model was trained without probabilities (use probability = true)".into())
}

/// Rows of equal length `width` as a matrix (one row per sample).
pub(crate) fn rows_to_mat(rows: &[Vec<f64>], width: usize) -> faer::Mat<f64> {
    faer::Mat::from_fn(rows.len(), width, |i, j| rows[i][j])
}

/// What [`Svc::predict_all`] returns: every output of one kernel expansion.
///
/// ```
/// use kern_models::svm::SvcParams;
/// use kern_models::{BinaryTargets, Fit, Samples};
/// let x = Samples::from_rows(&[[0.0], [1.0], [3.0], [4.0]])?;
/// let y = BinaryTargets::from_labels(&["a", "a", "b", "b"])?;
/// let p = SvcParams::new("gaussian:sigma=1".parse()?).fit(&x, &y)?.predict_all(&x, false)?;
/// assert_eq!((p.classes, p.labels), (vec![0, 0, 1, 1], vec!["a".to_string(), "a".into(), "b".into(), "b".into()]));
/// assert!(p.decision[(0, 0)] < 0.0 && p.decision[(3, 0)] > 0.0); // one machine, class b positive
/// assert!(p.proba.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SvcPredictions {
    /// The predicted class index of each sample ([`Svc::predict_class`]).
    pub classes: Vec<usize>,
    /// The predicted label name of each sample ([`Svc::predict_names`]).
    pub labels: Vec<String>,
    /// The decision values: one row per sample, one column per machine ([`Svc::decision_function`]).
    pub decision: faer::Mat<f64>,
    /// The class probabilities when asked for: one row per sample, one column per class
    /// ([`Svc::predict_proba`]).
    pub proba: Option<faer::Mat<f64>>,
}

impl Model for Svc {
    type Error = ModelsError;
    fn predict(&self, x: &Samples) -> Result<Vec<f64>> {
        Ok(self.predict_class(x)?.into_iter().map(|c| self.class_value(c)).collect())
    }
}

impl Svc {
    /// What [`Model::predict`] returns for class `c`: ±1 for binary targets, the index otherwise.
    pub(crate) fn class_value(&self, c: usize) -> f64 {
        match (self.binary, c) {
            (true, 1) => 1.0,
            (true, _) => -1.0,
            (false, c) => c as f64,
        }
    }
}

impl Svc {
    /// The Platt sigmoids `(A, B)` of the machines, in decision-value order (`P(pos | f) = 1/(1 +
    /// exp(A f + B))`), when the model was trained with probabilities — LIBSVM's `probA`/`probB`.
    ///
    /// ```
    /// use kern_models::svm::SvcParams;
    /// use kern_core::{Samples, BinaryTargets, learner::Fit};
    /// let x = Samples::from_rows(&[[0.0], [0.1], [0.2], [0.3], [0.4], [2.0], [2.1], [2.2], [2.3], [2.4]])?;
    /// let y = BinaryTargets::from_f64(&[-1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0])?;
    /// let m = SvcParams::new("linear".parse()?).probability(true, 0).fit(&x, &y)?;
    /// assert_eq!(m.platt_sigmoids().map(|s| s.len()), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn platt_sigmoids(&self) -> Option<Vec<(f64, f64)>> {
        self.sigmoids.as_ref().map(|s| s.iter().map(|s| (s.a, s.b)).collect())
    }
}

impl crate::widen::WidenFeatures for Svc {
    fn n_features(&self) -> usize {
        self.sv.d()
    }
    fn widen_features(&mut self, d: usize) -> Result<()> {
        crate::widen::widen_store(&mut self.sv, d)
    }
}

#[cfg(test)]
impl Svc {
    /// The training figures, mutable (tests compare models without their plans).
    pub(crate) fn stats_mut(&mut self) -> &mut Vec<MachineStats> {
        &mut self.stats
    }
}
