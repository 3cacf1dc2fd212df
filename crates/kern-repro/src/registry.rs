//! The experiment registry: every table and figure of the five papers, with what it reproduces.
//!
//! An experiment returns [`Status::Done`] with an [`Outcome`] (all numbers, the paper-vs-ours table,
//! the papers' claims checked one by one, the figures it wrote) or [`Status::Skipped`] with a reason.
//! Experiments not built yet are registered too and report themselves skipped, so REPORT.md always shows
//! the whole scope.
//!
//! ```
//! use kern_repro::registry::{all, Ctx, Experiment, Outcome, Paper, Status};
//! // Every registered experiment names its paper and what it reproduces.
//! assert!(all().iter().any(|e| e.paper == Paper::Railway) && all().iter().all(|e| !e.reproduces.is_empty()));
//! // An experiment is a function of the run's context, returning its outcome or why it skipped.
//! fn demo(ctx: &Ctx) -> kern_repro::Result<Status> {
//!     Ok(Status::Done(Outcome { seeds: vec![ctx.seed], ..Default::default() }))
//! }
//! let e = Experiment { id: "demo", paper: Paper::Fvs, reproduces: "a demo", run: demo };
//! let ctx = Ctx { quick: true, full: false, dir: std::env::temp_dir(), seed: 5 };
//! assert!(matches!((e.run)(&ctx)?, Status::Done(o) if o.seeds == [5]));
//! # Ok::<(), kern_repro::ReproError>(())
//! ```

use crate::Result;
use crate::items::Item;
use serde::Serialize;
use std::path::PathBuf;

/// The five source papers (their directory under `results/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Paper {
    /// Zhang, Genton & Liu (2004), compactly supported RBF kernels.
    Csrbf,
    /// Letchford (2015), choosing the Gaussian bandwidth.
    Letchford,
    /// Baudat & Anouar, feature vector selection and kernel function approximation.
    Fvs,
    /// Cao (2016), RKHS applications (slides).
    Rkhs,
    /// González & Muñoz (2008), the railway kernel.
    Railway,
}

impl Paper {
    /// Directory name under `results/`.
    ///
    /// ```
    /// assert_eq!(kern_repro::registry::Paper::Csrbf.dir(), "csrbf");
    /// ```
    pub fn dir(self) -> &'static str {
        match self {
            Paper::Csrbf => "csrbf",
            Paper::Letchford => "letchford",
            Paper::Fvs => "fvs",
            Paper::Rkhs => "rkhs",
            Paper::Railway => "railway",
        }
    }

    /// Citation.
    pub fn title(self) -> &'static str {
        match self {
            Paper::Csrbf => "Zhang, Genton & Liu (2004), Compactly Supported Radial Basis Function Kernels",
            Paper::Letchford => "Letchford (2015), Choosing the Gaussian Kernel's Bandwidth",
            Paper::Fvs => "Baudat & Anouar, Kernel-based Methods and Function Approximation",
            Paper::Rkhs => "Cao (2016), Useful Applications in Statistical Learning with RKHS",
            Paper::Railway => "González & Muñoz (2008), The Railway Kernel",
        }
    }
}

/// What an experiment is given.
///
/// ```
/// use kern_repro::registry::{Ctx, Experiment, Outcome, Paper, Status};
/// use kern_repro::report::{RunOptions, run};
/// fn check(ctx: &Ctx) -> kern_repro::Result<Status> {
///     // The paper's directory exists before the run; the options arrive as given.
///     assert!(ctx.dir.ends_with("letchford") && ctx.dir.is_dir());
///     assert_eq!((ctx.quick, ctx.full, ctx.seed), (true, false, 42));
///     Ok(Status::Done(Outcome { seeds: vec![ctx.seed], ..Default::default() }))
/// }
/// let out = std::env::temp_dir().join(format!("kern-doc-ctx-{}", std::process::id()));
/// let e = Experiment { id: "ctx", paper: Paper::Letchford, reproduces: "a demo", run: check };
/// let ran = run(&[e], &RunOptions { quick: true, full: false, only: None, out: out.clone(), seed: 42 })?;
/// assert!(matches!(&ran[0].status, Ok(Status::Done(o)) if o.seeds == [42]));
/// # std::fs::remove_dir_all(&out).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Ctx {
    /// Reduced sizes (CI).
    pub quick: bool,
    /// Full sizes also for the experiments that check only our own claims and take minutes, which
    /// otherwise run at reduced sizes (and say so in their `sizes`).
    pub full: bool,
    /// The directory of this experiment's paper (`results/<paper>/`), created before the run.
    pub dir: PathBuf,
    /// The base seed (every random step derives its seed from it and says so in the JSON).
    pub seed: u64,
}

/// One row of a paper-vs-ours table.
///
/// ```
/// use kern_repro::registry::{Ctx, Experiment, Outcome, Paper, Row, Status};
/// use kern_repro::report::{RunOptions, run};
/// fn table(_: &Ctx) -> kern_repro::Result<Status> {
///     let row = Row { quantity: "test error".into(), paper: "0.228".into(), ours: "0.231".into(),
///                     note: "n = 1000".into() };
///     Ok(Status::Done(Outcome { table: vec![row], ..Default::default() }))
/// }
/// let out = std::env::temp_dir().join(format!("kern-doc-row-{}", std::process::id()));
/// let e = Experiment { id: "table", paper: Paper::Csrbf, reproduces: "a demo", run: table };
/// run(&[e], &RunOptions { quick: true, full: false, only: None, out: out.clone(), seed: 1 })?;
/// // One line of the experiment's paper-vs-ours table.
/// let md = std::fs::read_to_string(out.join("csrbf/table.md")).unwrap();
/// assert!(md.contains("| quantity | paper | ours | note |\n|---|---|---|---|\n| test error | 0.228 | 0.231 | n = 1000 |"));
/// # std::fs::remove_dir_all(&out).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The quantity.
    pub quantity: String,
    /// The paper's value ("—" for figures without numbers).
    pub paper: String,
    /// Ours.
    pub ours: String,
    /// Context (sizes, differences in setup).
    pub note: String,
}

/// Where a checked claim comes from, which decides whether it counts in the report's headline.
///
/// ```
/// use kern_repro::registry::Kind;
/// assert!(Kind::Paper.counts());
/// assert!(!Kind::Identity.counts() && !Kind::Ours.counts() && !Kind::PaperStandIn.counts());
/// assert!(!Kind::OtherReading.counts());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A claim the paper makes (quoted or cited to a section, table or figure), checked on data that
    /// follow the paper's description. Only these count in the headline.
    Paper,
    /// A claim the paper makes whose data the paper does not give (a missing figure), checked on a
    /// stand-in we built: reported as "not checkable" in the headline, with our verdict beside it.
    PaperStandIn,
    /// A claim of the paper checked on the other reading of an ambiguous text (the main reading, whose
    /// claim is [`Kind::Paper`], is stated beside it): shown, not counted.
    OtherReading,
    /// A check of our implementation (a mathematical identity or a sanity bound): it cannot speak for or
    /// against the paper.
    Identity,
    /// A claim we add (not in the paper).
    Ours,
}

impl Kind {
    /// Whether the claim counts in the headline's holds / does not hold.
    pub fn counts(self) -> bool {
        self == Kind::Paper
    }

    /// The tag shown in the report.
    ///
    /// ```
    /// assert_eq!(kern_repro::registry::Kind::Identity.tag(), "identity");
    /// ```
    pub fn tag(self) -> &'static str {
        match self {
            Kind::Paper => "paper",
            Kind::PaperStandIn => "paper, stand-in data",
            Kind::OtherReading => "paper, other reading",
            Kind::Identity => "identity",
            Kind::Ours => "ours",
        }
    }
}

/// A qualitative claim, checked on our numbers.
///
/// ```
/// use kern_repro::items::{Item, Verdict};
/// use kern_repro::registry::{Claim, Kind};
/// let claim = |holds| Claim { kind: Kind::Paper, source: "§4".into(), claim: "A beats B".into(), holds,
///                             evidence: "error 0.12 vs 0.15".into() };
/// // In the per-item table, a claim is one comparison judged by direction.
/// assert_eq!(Item::from_claim(&claim(true)).verdict, Verdict::Reproduces);
/// let i = Item::from_claim(&claim(false));
/// assert_eq!((i.verdict, i.paper_ref.as_str(), i.ours.as_str()), (Verdict::DoesNot, "§4", "error 0.12 vs 0.15"));
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    /// Where the claim comes from.
    pub kind: Kind,
    /// The paper's section, table or figure that makes the claim ("" for identities and our claims).
    pub source: String,
    /// The claim in the paper's words (or close).
    pub claim: String,
    /// Whether it holds on our data.
    pub holds: bool,
    /// The numbers that decide it (and the tolerance with where it comes from).
    pub evidence: String,
}

/// A claim of a paper that no experiment can check (its data or figure is not available), listed so the
/// report's per-paper accounting is complete.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Unchecked {
    /// The paper.
    pub paper: Paper,
    /// Section, table or figure.
    pub source: &'static str,
    /// The claim.
    pub claim: &'static str,
    /// Why it cannot be checked.
    pub why: &'static str,
}

impl Unchecked {
    /// The claim as a per-item row with the verdict "not attempted".
    ///
    /// ```
    /// use kern_repro::items::Verdict;
    /// assert!(kern_repro::registry::unchecked().iter().all(|u| u.item().verdict == Verdict::NotAttempted));
    /// ```
    pub fn item(&self) -> Item {
        Item::not_attempted(self.source, self.claim, self.why)
    }
}

/// The papers' claims that no experiment checks, with the reason (each a per-item row "not attempted").
///
/// ```
/// assert!(kern_repro::registry::unchecked().iter().all(|u| !u.why.is_empty()));
/// ```
pub fn unchecked() -> Vec<Unchecked> {
    let u = |paper, source, claim, why| Unchecked { paper, source, claim, why };
    vec![
        u(
            Paper::Letchford,
            "Figs. 4A, 5A, 6A",
            "the SUSY results (accuracy of the heuristics; β variance over 30 subsamples of 100 points)",
            "SUSY (5 million rows, 2.3 GB) does not ship with the repository; the classification sets we have \
             stand in for it and are reported as such",
        ),
        u(
            Paper::Letchford,
            "Fig. 4B",
            "on the Online News Popularity regression set the heuristics are comparable to grid search",
            "no complete copy of the Online News Popularity data was available",
        ),
        u(
            Paper::Csrbf,
            "§5",
            "two real data sets, one with d = 256: k_C with ν = 3 or 5 classifies as well as the SVM with the \
             Gaussian kernel",
            "§5 is missing from the source text (only §1 and §6 mention it): neither the data sets nor the \
             numbers are given",
        ),
        u(
            Paper::Csrbf,
            "Example 3, Fig. 8",
            "principal components 3–8 have small eigenvalues and split the clusters in halves",
            "a reading of Fig. 8's panels, which the text does not carry; csrbf-kpca checks the eigenvalues \
             and the first two components only",
        ),
        u(
            Paper::Letchford,
            "§4, Fig. 4A (Higgs)",
            "the heuristics against grid search on 5,000 Higgs simulations",
            "the Higgs data (11 million rows) do not ship with the repository and no copy is available \
             offline; MAGIC stands in for the particle-physics sets",
        ),
        u(
            Paper::Letchford,
            "§4, Fig. 4A (Dress Recommendation)",
            "the heuristics against grid search on the Dress Recommendation set",
            "the Dress Recommendation data do not ship with the repository and no copy is available offline",
        ),
        u(
            Paper::Letchford,
            "§3.1–3.2 (complexity)",
            "both heuristics cost O(n²m) per step; mean-to-half saves 6n(n−1)/2 + 1 operations over \
             max-variance",
            "an operation count of the paper's derivation: our timings (bandwidth-accuracy) are of single \
             sizes, not a scaling measurement over n and m",
        ),
        u(
            Paper::Fvs,
            "§2 (σ and the rank of K)",
            "the data subspace in F has the dimension rank(K), often below M, which the kernel's width decides",
            "no number is given; no experiment measures rank(K) against σ",
        ),
        u(
            Paper::Fvs,
            "§5.1, Fig. 2b",
            "the image of the two circles in F (3-D) is separated by a plane",
            "the 3-D figure is not drawn; fvs-circles checks the separation in X (Fig. 2a)",
        ),
        u(
            Paper::Rkhs,
            "slides, examples 1e–1f",
            "two groups of data (1e) and their boundary (1f)",
            "the panels are missing from the text: no data, no numbers",
        ),
        u(
            Paper::Railway,
            "§5.2, Table 2",
            "the MARK-L row (3.6% test error, 18.3% SVs)",
            "MARK-L (the paper's reference) is not described enough to rebuild",
        ),
        u(
            Paper::Railway,
            "§5.2, Table 2",
            "the SVM with a linear kernel (the row 'SVM': 4.2% test error, 49.2% SVs)",
            "the row repeats the SVM₁ row digit for digit (train 0.1, test 4.2, SVs 49.2), so its numbers \
             cannot be attributed to a linear SVM; our linear SVM is reported as our own row",
        ),
    ]
}

/// Everything an experiment produced.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Outcome {
    /// All numbers, free-form JSON (documented per experiment).
    pub results: serde_json::Value,
    /// Sizes used.
    pub sizes: serde_json::Value,
    /// Seeds used.
    pub seeds: Vec<u64>,
    /// Paper vs ours.
    pub table: Vec<Row>,
    /// Claims checked.
    pub claims: Vec<Claim>,
    /// SVG files written into the paper directory.
    pub figures: Vec<String>,
    /// Captions `(figure file, caption)`: the numbers a figure shows (errors, counts, chosen
    /// parameters), written under the figure's entry in the report; titles name only what is drawn.
    pub captions: Vec<(String, String)>,
    /// The per-item reproduction rows with a value of their own (table cells, numbers in the text, items
    /// not attempted); [`Outcome::items`] adds the claims, judged by direction.
    pub items: Vec<Item>,
}

impl Outcome {
    /// Every item of the experiment: its own rows, then each claim as an item judged by direction.
    ///
    /// ```
    /// use kern_repro::registry::{Claim, Kind, Outcome};
    /// let c = Claim { kind: Kind::Paper, source: "§1".into(), claim: "a > b".into(), holds: false,
    ///                 evidence: "a = 1, b = 2".into() };
    /// let o = Outcome { claims: vec![c], ..Default::default() };
    /// assert_eq!(o.all_items().len(), 1);
    /// ```
    pub fn all_items(&self) -> Vec<Item> {
        self.items.iter().cloned().chain(self.claims.iter().map(Item::from_claim)).collect()
    }
}

/// How an experiment ended (errors are the `Err` of its result).
///
/// ```
/// use kern_repro::registry::{Ctx, Experiment, Paper, Status};
/// use kern_repro::report::{RunOptions, run};
/// fn skipped(_: &Ctx) -> kern_repro::Result<Status> {
///     Ok(Status::Skipped("the data set is missing".into()))
/// }
/// let out = std::env::temp_dir().join(format!("kern-doc-status-{}", std::process::id()));
/// let e = Experiment { id: "gone", paper: Paper::Fvs, reproduces: "a demo", run: skipped };
/// run(&[e], &RunOptions { quick: true, full: false, only: None, out: out.clone(), seed: 1 })?;
/// // A skipped experiment is listed with its reason, in its JSON and in the report.
/// let json = std::fs::read_to_string(out.join("fvs/gone.json")).unwrap();
/// assert!(json.contains(r#""status": "skipped""#) && json.contains("the data set is missing"));
/// let report = std::fs::read_to_string(out.join("REPORT.md")).unwrap();
/// assert!(report.contains("0 experiments done, 1 skipped") && report.contains("Skipped: the data set is missing"));
/// # std::fs::remove_dir_all(&out).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Debug)]
pub enum Status {
    /// Ran.
    Done(Outcome),
    /// Did not run, with the reason (missing data, not built yet).
    Skipped(String),
}

/// A registered experiment.
///
/// ```
/// use kern_repro::registry::{Ctx, Experiment, Paper, Status, all};
/// let kernels = all().into_iter().find(|e| e.id == "csrbf-kernels").unwrap();
/// assert_eq!((kernels.paper, kernels.paper.dir()), (Paper::Csrbf, "csrbf"));
/// // An experiment of one's own: `run` is called with the context.
/// fn later(ctx: &Ctx) -> kern_repro::Result<Status> {
///     Ok(Status::Skipped(format!("not built yet (seed {})", ctx.seed)))
/// }
/// let e = Experiment { id: "mine", paper: Paper::Rkhs, reproduces: "nothing yet", run: later };
/// let ctx = Ctx { quick: true, full: false, dir: std::env::temp_dir(), seed: 3 };
/// assert!(matches!((e.run)(&ctx)?, Status::Skipped(why) if why == "not built yet (seed 3)"));
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Experiment {
    /// Identifier (`--only ID`).
    pub id: &'static str,
    /// Source paper.
    pub paper: Paper,
    /// The table or figure it reproduces.
    pub reproduces: &'static str,
    /// The run.
    pub run: fn(&Ctx) -> Result<Status>,
}

/// Every experiment, in report order.
///
/// ```
/// use kern_repro::registry::{Paper, all};
/// let exps = all();
/// // Ids are unique (`--only ID` selects one), and every paper has experiments, in one block each.
/// let mut ids: Vec<&str> = exps.iter().map(|e| e.id).collect();
/// ids.sort_unstable();
/// ids.dedup();
/// assert_eq!(ids.len(), exps.len());
/// let papers = [Paper::Csrbf, Paper::Letchford, Paper::Fvs, Paper::Rkhs, Paper::Railway];
/// let mut order: Vec<Paper> = exps.iter().map(|e| e.paper).collect();
/// order.dedup();
/// assert_eq!(order, papers);
/// assert!(exps.iter().all(|e| !e.reproduces.is_empty()));
/// ```
pub fn all() -> Vec<Experiment> {
    use crate::papers::*;
    let e = |id, paper, reproduces, run| Experiment { id, paper, reproduces, run };
    vec![
        e(
            "csrbf-kernels",
            Paper::Csrbf,
            "Fig. 1: Gaussian σ = 2.4 vs compactly supported versions",
            csrbf::kernels,
        ),
        e("csrbf-rcm", Paper::Csrbf, "Table 1 / Fig. 2: bandwidth after RCM, spy plots", csrbf::rcm),
        e("csrbf-alignment", Paper::Csrbf, "Figs. 3 and 5: A(C), S(C), A + γS", csrbf::alignment),
        e("csrbf-svm", Paper::Csrbf, "Table 2 / Fig. 6: SVM with C chosen by eq. 9", csrbf::svm),
        e("csrbf-lssvm", Paper::Csrbf, "Table 3 / Fig. 7: sparse LS-SVM", csrbf_lssvm::lssvm),
        e("csrbf-kpca", Paper::Csrbf, "Example 3 / Fig. 8: kernel PCA", csrbf::kpca),
        e(
            "bandwidth-curves",
            Paper::Letchford,
            "Figs. 1–3: similarity histograms, variance, mean",
            letchford::curves,
        ),
        e(
            "bandwidth-accuracy",
            Paper::Letchford,
            "Fig. 4: heuristics vs grid search",
            letchford_accuracy::accuracy,
        ),
        e(
            "bandwidth-fig5",
            Paper::Letchford,
            "Fig. 5A/B: mean-to-half objective vs SVC error over β",
            letchford::fig5,
        ),
        e("bandwidth-robustness", Paper::Letchford, "Fig. 6A/B: β across subsamples", letchford::robustness),
        e("fvs-circles", Paper::Fvs, "§5.1: two circles, degree-2 polynomial, 3 FVs", fvs::circles),
        e("fvs-gaussians", Paper::Fvs, "Table 1: two Gaussians", fvs::gaussians),
        e("fvs-clusters", Paper::Fvs, "§5.3: three clusters", fvs::clusters),
        e("fvs-heart", Paper::Fvs, "Table 2: Cleveland, leave-one-out", fvs::heart),
        e("fvs-sinc", Paper::Fvs, "Fig. 6: sinc with the linear-spline kernel", fvs::sinc),
        e("fvs-vs-random", Paper::Fvs, "accuracy vs basis size, FVS vs random basis", fvs::vs_random),
        e(
            "fvs-landmarks",
            Paper::Fvs,
            "ours: FVS vs random Nyström centres, accuracy against m (HIGGS-like, MAGIC)",
            landmarks::fvs_vs_random,
        ),
        e("rkhs-kpca", Paper::Rkhs, "kernel PCA with Gaussian, linear, polynomial kernels", rkhs::kpca),
        e("rkhs-svm", Paper::Rkhs, "SVM with linear, Gaussian, log kernels; MNIST", rkhs::svm),
        e(
            "rkhs-mnist-full",
            Paper::Rkhs,
            "MNIST: linear and Gaussian SVM on the full 60,000 / 10,000 images (with --full)",
            rkhs::mnist_full,
        ),
        e("railway-xor", Paper::Railway, "§3.3: modified XOR", railway::xor),
        e(
            "railway-intersection",
            Paper::Railway,
            "§3.4 / Fig. 6: two intersecting areas (stand-in example)",
            railway::intersection,
        ),
        e("railway-two-areas", Paper::Railway, "Table 1: two areas", railway::two_areas),
        e("railway-cancer", Paper::Railway, "Table 2: Wisconsin breast cancer", railway::cancer),
        e("railway-areas", Paper::Railway, "Fig. 7: area location trace", railway::areas),
    ]
}
