//! The per-item reproduction table: every table cell, figure and quantitative statement of a paper that
//! an experiment touches, the paper's value beside ours, and a verdict under one rule ([`RULE`]), decided
//! in one place ([`verdict`]).
//!
//! ```
//! use kern_repro::items::{Item, Verdict};
//! use kern_repro::registry::Kind;
//! // A derived quantity: 10 % relative tolerance, "partly" up to twice that.
//! let i = Item::derived(Kind::Paper, "Table 1, bw at 75%", 824.0, 870.0);
//! assert_eq!(i.verdict, Verdict::Reproduces);
//! let i = Item::derived(Kind::Paper, "Table 1, bw at 95%", 325.0, 433.0);
//! assert_eq!(i.verdict, Verdict::DoesNot);
//! assert!(!i.reason.is_empty());
//! ```

use crate::registry::{Claim, Kind};
use serde::Serialize;

/// Tolerance of a random draw, in sampling standard deviations.
const SD_TOLERANCE: f64 = 2.0;
/// Relative tolerance of a derived quantity (fixed before any comparison).
const RELATIVE_TOLERANCE: f64 = 0.10;
/// "Partly" reaches this many tolerances.
const PARTLY_FACTOR: f64 = 2.0;

/// The rule, stated once at the top of the report; [`verdict`] applies it.
///
/// ```
/// use kern_repro::items::{Basis, RULE, Verdict, verdict};
/// // The thresholds the text states are the ones the verdicts use.
/// assert!(RULE.contains("≤ 2 sampling sd") && RULE.contains("≤ 10 % of the larger"));
/// assert!(RULE.contains("(4 sd, 20 %)"));
/// let sampled = |ours| verdict(&Basis::Sampled { paper: 0.0, ours, sd: 1.0 });
/// assert_eq!((sampled(2.0), sampled(4.0), sampled(4.1)), (Verdict::Reproduces, Verdict::Partly, Verdict::DoesNot));
/// let derived = |ours| verdict(&Basis::Derived { paper: 100.0, ours });
/// assert_eq!((derived(90.0), derived(80.0), derived(79.0)), (Verdict::Reproduces, Verdict::Partly, Verdict::DoesNot));
/// ```
pub const RULE: &str = "**Verdict rule** (one rule for every item, fixed before comparing). A random draw \
    (a test error, a count over repeated draws, a tuned parameter that varies with the training set) \
    *reproduces* when |ours − paper| ≤ 2 sampling sd, where the sd is measured over our repeats, or for an \
    error rate p on test sets of n₁ (paper) and n₂ (ours) points is the binomial √(p(1−p)(1/n₁ + 1/n₂)) at \
    the paper's p (for the ratio of two such rates, their binomial sds carried over by the delta method, \
    the two rates' correlation left out). A derived quantity (computed from data without a random draw of its own, e.g. a \
    bandwidth, a support size, a count) *reproduces* when |ours − paper| ≤ 10 % of the larger of the two. \
    Either is *partly* within twice its tolerance (4 sd, 20 %) and *does not* beyond. Orderings, timings \
    and qualitative statements are judged by direction only: *reproduces* when every comparison the paper \
    makes goes its way on our numbers, *partly* when more than half do, *does not* otherwise. *Not \
    attempted*: no experiment of ours produces the value (the reason is given). Items of kind *identity* \
    (cannot fail), *paper, stand-in data* (our data replace the paper's), *paper, other reading* (a \
    labelled variant beside the main reading) and *ours* are shown but not counted.";

/// An item's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within the tolerance.
    Reproduces,
    /// Within twice the tolerance, or the majority of the comparisons.
    Partly,
    /// Beyond.
    DoesNot,
    /// No experiment produces the value.
    NotAttempted,
}

impl Verdict {
    /// The label in the report.
    ///
    /// ```
    /// assert_eq!(kern_repro::items::Verdict::DoesNot.label(), "does not");
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Reproduces => "reproduces",
            Verdict::Partly => "partly",
            Verdict::DoesNot => "does not",
            Verdict::NotAttempted => "not attempted",
        }
    }

    /// The four verdicts, in the report's column order.
    pub const ALL: [Verdict; 4] =
        [Verdict::Reproduces, Verdict::Partly, Verdict::DoesNot, Verdict::NotAttempted];
}

/// What a comparison is made of, which decides the tolerance.
///
/// ```
/// use kern_repro::items::{Basis, Verdict, verdict};
/// // A test error of 0.25 against the paper's 0.236, sampling sd 0.01: 1.4 sd apart.
/// let b = Basis::Sampled { paper: 0.236, ours: 0.25, sd: 0.01 };
/// assert_eq!(verdict(&b), Verdict::Reproduces);
/// // The report's JSON names the rule beside the values.
/// let json = serde_json::to_value(&b).unwrap();
/// assert_eq!((json["rule"].as_str(), json["sd"].as_f64()), (Some("sampled"), Some(0.01)));
/// assert_eq!(verdict(&Basis::NotAttempted), Verdict::NotAttempted);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Basis {
    /// A random draw with its sampling sd (tolerance 2 sd).
    Sampled {
        /// The paper's value.
        paper: f64,
        /// Ours.
        ours: f64,
        /// The sampling sd.
        sd: f64,
    },
    /// A derived quantity (tolerance 10 % of the larger magnitude).
    Derived {
        /// The paper's value.
        paper: f64,
        /// Ours.
        ours: f64,
    },
    /// An ordering, timing or qualitative statement: `agree` of `of` comparisons go the paper's way.
    Direction {
        /// Comparisons in the paper's direction.
        agree: usize,
        /// Comparisons made.
        of: usize,
    },
    /// No experiment produces the value.
    NotAttempted,
}

/// The three-level grade of a distance against a tolerance: within it reproduces, within
/// twice it partly, beyond (or not a number) does not.
///
/// ```
/// use kern_repro::items::{Verdict, grade};
/// assert_eq!(grade(0.5, 1.0), Verdict::Reproduces);
/// assert_eq!(grade(1.5, 1.0), Verdict::Partly);
/// assert_eq!(grade(2.5, 1.0), Verdict::DoesNot);
/// ```
pub fn grade(distance: f64, tolerance: f64) -> Verdict {
    if distance.is_nan() || tolerance.is_nan() {
        Verdict::DoesNot
    } else if distance <= tolerance {
        Verdict::Reproduces
    } else if distance <= PARTLY_FACTOR * tolerance {
        Verdict::Partly
    } else {
        Verdict::DoesNot
    }
}

/// The tolerance a basis allows (`None` for directions and items not attempted): 2 sampling sd, or
/// 10 % of the larger magnitude of a derived quantity.
///
/// ```
/// use kern_repro::items::{Basis, tolerance};
/// assert_eq!(tolerance(&Basis::Sampled { paper: 0.2, ours: 0.3, sd: 0.015 }), Some(0.03));
/// assert_eq!(tolerance(&Basis::Derived { paper: -50.0, ours: 40.0 }), Some(5.0));
/// assert_eq!(tolerance(&Basis::Direction { agree: 2, of: 3 }), None);
/// ```
pub fn tolerance(b: &Basis) -> Option<f64> {
    match *b {
        Basis::Sampled { sd, .. } => Some(SD_TOLERANCE * sd.abs()),
        Basis::Derived { paper, ours } => Some(RELATIVE_TOLERANCE * paper.abs().max(ours.abs())),
        Basis::Direction { .. } | Basis::NotAttempted => None,
    }
}

/// The rule ([`RULE`]), the one place where a verdict is decided.
///
/// ```
/// use kern_repro::items::{Basis, Verdict, verdict};
/// assert_eq!(verdict(&Basis::Sampled { paper: 0.236, ours: 0.25, sd: 0.01 }), Verdict::Reproduces);
/// assert_eq!(verdict(&Basis::Direction { agree: 3, of: 4 }), Verdict::Partly);
/// ```
pub fn verdict(b: &Basis) -> Verdict {
    match *b {
        Basis::Sampled { paper, ours, .. } | Basis::Derived { paper, ours } => {
            grade((ours - paper).abs(), tolerance(b).unwrap_or(f64::NAN))
        }
        Basis::Direction { agree, of } => {
            if of > 0 && agree >= of {
                Verdict::Reproduces
            } else if 2 * agree > of {
                Verdict::Partly
            } else {
                Verdict::DoesNot
            }
        }
        Basis::NotAttempted => Verdict::NotAttempted,
    }
}

/// A number as the report prints it: four significant digits, no trailing zeros.
///
/// ```
/// assert_eq!(kern_repro::items::num(0.23600), "0.236");
/// assert_eq!(kern_repro::items::num(1122.0), "1122");
/// ```
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".into();
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// One row of the per-item table.
#[derive(Clone, Debug, Serialize)]
pub struct Item {
    /// Where the item comes from ([`Kind::Paper`] items alone are counted).
    pub kind: Kind,
    /// The table cell, figure or statement ("Table 2, S at μ = 0.9").
    pub paper_ref: String,
    /// The paper's value.
    pub paper: String,
    /// Ours.
    pub ours: String,
    /// What the comparison is made of.
    pub basis: Basis,
    /// The verdict ([`verdict`] of `basis`).
    pub verdict: Verdict,
    /// One line on why it does not reproduce (empty when it does).
    pub reason: String,
}

impl Item {
    fn new(kind: Kind, paper_ref: &str, paper: String, ours: String, basis: Basis) -> Item {
        let verdict = verdict(&basis);
        let reason = match (&basis, verdict) {
            (_, Verdict::Reproduces) => String::new(),
            (Basis::Sampled { paper, ours, sd }, _) => {
                format!("|Δ| = {} > 2 sd = {}", num((ours - paper).abs()), num(SD_TOLERANCE * sd))
            }
            (Basis::Derived { paper, ours }, _) => format!(
                "|Δ| = {:.0} % of the larger value > {:.0} %",
                100.0 * (ours - paper).abs() / paper.abs().max(ours.abs()),
                100.0 * RELATIVE_TOLERANCE
            ),
            (Basis::Direction { agree, of }, _) => {
                format!("{agree} of {of} comparison(s) go the paper's way")
            }
            (Basis::NotAttempted, _) => String::new(),
        };
        Item { kind, paper_ref: paper_ref.into(), paper, ours, basis, verdict, reason }
    }

    /// A random draw with its sampling sd.
    pub fn sampled(kind: Kind, paper_ref: &str, paper: f64, ours: f64, sd: f64) -> Item {
        Item::new(kind, paper_ref, num(paper), num(ours), Basis::Sampled { paper, ours, sd })
    }

    /// A test-set error rate (as a fraction): the sd is the binomial one of both test sets at the paper's
    /// rate, √(p(1−p)(1/n_paper + 1/n_ours)).
    ///
    /// ```
    /// use kern_repro::{items::{Item, Verdict}, registry::Kind};
    /// let i = Item::error_rate(Kind::Paper, "Table 2, Gaussian", 0.228, 0.240, 1000, 2000);
    /// assert_eq!(i.verdict, Verdict::Reproduces); // 2 sd = 0.032
    /// ```
    pub fn error_rate(
        kind: Kind,
        paper_ref: &str,
        paper: f64,
        ours: f64,
        n_paper: usize,
        n_ours: usize,
    ) -> Item {
        let sd = binomial_sd(paper, n_paper, n_ours);
        Item::sampled(kind, paper_ref, paper, ours, sd)
    }

    /// The ratio `a / b` of two test-set error rates (fractions) measured on the same test sets: a random
    /// draw whose sd is propagated from the two rates' binomial sds ([`binomial_sd`] at the paper's rates)
    /// by the delta method, `r·√((sd_a / a)² + (sd_b / b)²)` at the paper's ratio `r`. The two errors'
    /// correlation (the same test images) is left out, which makes the sd larger, never smaller.
    ///
    /// ```
    /// use kern_repro::{items::{Item, Verdict}, registry::Kind};
    /// // The slides' 1.65 % / 5.84 % = 0.283 on 10,000 test images each side: 2 sd ≈ 0.070.
    /// let i = Item::error_ratio(Kind::Paper, "ratio", (0.0165, 0.0584), (0.0140, 0.0560), 10_000, 10_000);
    /// assert_eq!(i.verdict, Verdict::Reproduces);
    /// let i = Item::error_ratio(Kind::Paper, "ratio", (0.0165, 0.0584), (0.0300, 0.0560), 10_000, 10_000);
    /// assert_ne!(i.verdict, Verdict::Reproduces);
    /// ```
    pub fn error_ratio(
        kind: Kind,
        paper_ref: &str,
        paper: (f64, f64),
        ours: (f64, f64),
        n_paper: usize,
        n_ours: usize,
    ) -> Item {
        let r = paper.0 / paper.1;
        let rel = |p: f64| binomial_sd(p, n_paper, n_ours) / p;
        let sd = r * (rel(paper.0).powi(2) + rel(paper.1).powi(2)).sqrt();
        Item::sampled(kind, paper_ref, r, ours.0 / ours.1, sd)
    }

    /// A derived quantity.
    pub fn derived(kind: Kind, paper_ref: &str, paper: f64, ours: f64) -> Item {
        Item::new(kind, paper_ref, num(paper), num(ours), Basis::Derived { paper, ours })
    }

    /// An ordering, timing or qualitative statement: `agree` of `of` comparisons go the paper's way.
    pub fn direction(kind: Kind, paper_ref: &str, paper: &str, ours: &str, agree: usize, of: usize) -> Item {
        Item::new(kind, paper_ref, paper.into(), ours.into(), Basis::Direction { agree, of })
    }

    /// An item no experiment of ours produces, with the reason.
    pub fn not_attempted(paper_ref: &str, paper: &str, why: &str) -> Item {
        let mut i = Item::new(Kind::Paper, paper_ref, paper.into(), "—".into(), Basis::NotAttempted);
        i.reason = why.into();
        i
    }

    /// A checked claim as an item judged by direction (holds: the one comparison goes the paper's way).
    pub fn from_claim(c: &Claim) -> Item {
        let source = if c.source.is_empty() { "— (not the paper's)" } else { &c.source };
        Item::direction(c.kind, source, &c.claim, &c.evidence, usize::from(c.holds), 1)
    }

    /// Shows the values differently (units, percent) without changing the comparison.
    pub fn shown(mut self, paper: impl Into<String>, ours: impl Into<String>) -> Item {
        self.paper = paper.into();
        self.ours = ours.into();
        self
    }

    /// Adds the cause when the item does not reproduce (ignored when it does).
    pub fn because(mut self, cause: impl AsRef<str>) -> Item {
        if self.verdict != Verdict::Reproduces && !cause.as_ref().is_empty() {
            self.reason = if self.reason.is_empty() {
                cause.as_ref().to_string()
            } else {
                format!("{}; {}", self.reason, cause.as_ref())
            };
        }
        self
    }

    /// Marks the item as a labelled variant (the other reading of an ambiguous text): shown, not counted.
    pub fn variant(mut self, label: &str) -> Item {
        self.kind = Kind::OtherReading;
        self.paper_ref = format!("{} — variant: {label}", self.paper_ref);
        self
    }
}

/// The binomial sd of the difference of two error rates at the rate `p`, on test sets of `n1` and `n2`.
///
/// ```
/// let sd = kern_repro::items::binomial_sd(0.2, 100, 100);
/// assert!((sd - (0.2f64 * 0.8 * 0.02).sqrt()).abs() < 1e-15);
/// ```
pub fn binomial_sd(p: f64, n1: usize, n2: usize) -> f64 {
    (p * (1.0 - p) * (1.0 / n1.max(1) as f64 + 1.0 / n2.max(1) as f64)).sqrt()
}

/// Counts per verdict ([`Verdict::ALL`] order) of the items that count ([`Kind::counts`]).
///
/// ```
/// use kern_repro::{items::{Item, counts}, registry::Kind};
/// let items = [Item::derived(Kind::Paper, "a", 1.0, 1.0), Item::derived(Kind::Identity, "b", 1.0, 1.0)];
/// assert_eq!(counts(&items), [1, 0, 0, 0]);
/// ```
pub fn counts<'a>(items: impl IntoIterator<Item = &'a Item>) -> [usize; 4] {
    let mut c = [0; 4];
    for i in items.into_iter().filter(|i| i.kind.counts()) {
        c[Verdict::ALL.iter().position(|v| *v == i.verdict).unwrap_or(3)] += 1;
    }
    c
}

/// Mean and sample standard deviation (sd 0 for one value), the spread of our repeats.
///
/// ```
/// let (m, sd) = kern_repro::items::mean_sd(&[1.0, 3.0]);
/// assert_eq!((m, sd), (2.0, 2f64.sqrt()));
/// ```
pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let s =
        if v.len() > 1 { (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() } else { 0.0 };
    (m, s)
}
