//! Running experiments and writing `results/<paper>/<id>.{json,md}` and `results/REPORT.md`.
//!
//! JSON schema of `<id>.json` (every experiment):
//! `{ "id", "paper", "reproduces", "status": "done"|"skipped"|"error", "reason"?, "quick", "seed",
//!    "seconds", "versions": {"kern"}, "sizes", "seeds", "results", "table": [{quantity, paper, ours, note}],
//!    "claims": [{kind: "paper"|"paper_stand_in"|"identity"|"ours", source, claim, holds, evidence}],
//!    "figures": [file names], "captions": [[file, caption]], "items": [{kind, paper_ref, paper, ours, basis: {rule, …}, verdict, reason}] }`.
//!
//! REPORT.md opens with the per-item headline (per paper: items of kind `paper` that reproduce, partly
//! reproduce, do not, or are not attempted, under [`crate::items::RULE`]) and the per-item table of each
//! paper; then the accounting of the papers' claims per paper: claims of kind `paper` that hold
//! or do not hold, and the papers' claims that are not checkable (checked only on stand-in data, or not
//! at all: [`crate::registry::unchecked`]). Identities and our own claims are listed apart and never
//! counted in the headline.
//! `results` is free-form per experiment and documented in its function's rustdoc.
//!
//! ```
//! use kern_repro::registry::{Ctx, Experiment, Outcome, Paper, Status};
//! use kern_repro::report::{run, RunOptions};
//! fn done(_: &Ctx) -> kern_repro::Result<Status> { Ok(Status::Done(Outcome::default())) }
//! fn skips(_: &Ctx) -> kern_repro::Result<Status> { Ok(Status::Skipped("no data".into())) }
//! let out = std::env::temp_dir().join(format!("kern-doc-report-mod-{}", std::process::id()));
//! let exps = [Experiment { id: "a", paper: Paper::Csrbf, reproduces: "a demo", run: done },
//!             Experiment { id: "b", paper: Paper::Rkhs, reproduces: "a demo", run: skips }];
//! run(&exps, &RunOptions { quick: true, full: false, only: None, out: out.clone(), seed: 1 })?;
//! // One JSON and one Markdown file per experiment, in its paper's directory, and the report.
//! assert!(["csrbf/a.json", "csrbf/a.md", "rkhs/b.json", "rkhs/b.md"].iter().all(|f| out.join(f).is_file()));
//! assert!(std::fs::read_to_string(out.join("REPORT.md")).unwrap().contains("1 experiments done, 1 skipped, 0 errors"));
//! # std::fs::remove_dir_all(&out).unwrap();
//! # Ok::<(), kern_repro::ReproError>(())
//! ```

use crate::items::{Item, RULE, Verdict, counts};
use crate::registry::{Ctx, Experiment, Kind, Outcome, Paper, Status, unchecked};
use crate::{ReproError, Result};
use serde_json::json;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of a run.
///
/// ```
/// use kern_repro::registry::{Ctx, Experiment, Outcome, Paper, Status};
/// use kern_repro::report::{RunOptions, run};
/// fn done(_: &Ctx) -> kern_repro::Result<Status> {
///     Ok(Status::Done(Outcome::default()))
/// }
/// let e = |id| Experiment { id, paper: Paper::Fvs, reproduces: "a demo", run: done };
/// let out = std::env::temp_dir().join(format!("kern-doc-run-options-{}", std::process::id()));
/// let mut opts = RunOptions { quick: true, full: false, only: Some("b".into()), out: out.clone(), seed: 1 };
/// // `only` selects one experiment by id; an unknown id is an error that lists the known ones.
/// let ran = run(&[e("a"), e("b")], &opts)?;
/// assert_eq!(ran.iter().map(|r| r.id).collect::<Vec<_>>(), ["b"]);
/// assert!(!out.join("fvs").join("a.json").exists() && out.join("fvs").join("b.json").exists());
/// opts.only = Some("c".into());
/// assert!(run(&[e("a"), e("b")], &opts).unwrap_err().to_string().contains("known: a, b"));
/// # std::fs::remove_dir_all(&out).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Reduced sizes.
    pub quick: bool,
    /// Full sizes for the experiments of our own claims too ([`Ctx::full`]).
    pub full: bool,
    /// Only this experiment.
    pub only: Option<String>,
    /// Output directory (`results/` by default).
    pub out: PathBuf,
    /// Base seed.
    pub seed: u64,
}

/// What happened to one experiment.
///
/// ```
/// use kern_repro::registry::{Ctx, Experiment, Paper, Status};
/// use kern_repro::report::{RunOptions, run};
/// use kern_repro::{ReproError, Result};
/// fn fails(_: &Ctx) -> Result<Status> {
///     Err(ReproError::Other("the solver diverged".into()))
/// }
/// fn skips(_: &Ctx) -> Result<Status> {
///     Ok(Status::Skipped("no data".into()))
/// }
/// let out = std::env::temp_dir().join(format!("kern-doc-ran-{}", std::process::id()));
/// let exps = [
///     Experiment { id: "fails", paper: Paper::Railway, reproduces: "a demo", run: fails },
///     Experiment { id: "skips", paper: Paper::Csrbf, reproduces: "a demo", run: skips },
/// ];
/// let opts = RunOptions { quick: true, full: false, only: None, out: out.clone(), seed: 1 };
/// // An experiment's error is recorded in its `Ran`, not returned by `run`.
/// let ran = run(&exps, &opts)?;
/// assert_eq!((ran[0].id, ran[0].paper), ("fails", "railway"));
/// assert_eq!(ran[0].status.as_ref().unwrap_err(), "the solver diverged");
/// assert!(matches!(&ran[1].status, Ok(Status::Skipped(why)) if why == "no data"));
/// assert!(ran.iter().all(|r| r.seconds >= 0.0 && r.reproduces == "a demo"));
/// # std::fs::remove_dir_all(&out).unwrap();
/// # Ok::<(), ReproError>(())
/// ```
#[derive(Debug)]
pub struct Ran {
    /// The experiment.
    pub id: &'static str,
    /// Paper directory.
    pub paper: &'static str,
    /// Wall time.
    pub seconds: f64,
    /// Done / skipped / error message.
    pub status: Result<Status, String>,
    /// What it reproduces.
    pub reproduces: &'static str,
}

fn write(path: &Path, s: &str) -> Result<()> {
    std::fs::write(path, s).map_err(|e| ReproError::io(path, e))
}

/// The per-item table of `items` (Markdown), empty when there are none.
fn items_md(items: &[Item]) -> String {
    let mut s = String::new();
    if items.is_empty() {
        return s;
    }
    s.push_str("| item | kind | paper | kern | verdict | reason |\n|---|---|---|---|---|---|\n");
    for i in items {
        let _ = writeln!(s, "{}", item_row(i));
    }
    s.push('\n');
    s
}

/// A table cell: no line breaks, no bare `|`.
fn cell(t: &str) -> String {
    t.replace('\n', " ").replace('|', "\\|")
}

/// The per-item table with the experiment of each row in front.
fn items_md_with(rows: &[(String, Item)]) -> String {
    let mut s = String::from(
        "| experiment | item | kind | paper | kern | verdict | reason |\n|---|---|---|---|---|---|---|\n",
    );
    for (id, i) in rows {
        let _ = writeln!(s, "| {id} {}", item_row(i));
    }
    s.push('\n');
    s
}

/// One item as a Markdown table row (`| item | kind | paper | kern | verdict | reason |`).
fn item_row(i: &Item) -> String {
    let v = match i.verdict {
        Verdict::Reproduces => i.verdict.label().to_string(),
        other => format!("**{}**", other.label()),
    };
    format!(
        "| {} | {} | {} | {} | {v} | {} |",
        cell(&i.paper_ref),
        i.kind.tag(),
        cell(&i.paper),
        cell(&i.ours),
        cell(&i.reason)
    )
}

fn table_md(o: &Outcome) -> String {
    let mut s = String::new();
    if !o.table.is_empty() {
        s.push_str("| quantity | paper | ours | note |\n|---|---|---|---|\n");
        for r in &o.table {
            let _ = writeln!(s, "| {} | {} | {} | {} |", r.quantity, r.paper, r.ours, r.note);
        }
        s.push('\n');
    }
    if !o.claims.is_empty() {
        s.push_str("| kind | source | claim | verdict | evidence |\n|---|---|---|---|---|\n");
        for c in &o.claims {
            let v = if c.holds { "holds" } else { "**does not hold**" };
            let _ = writeln!(s, "| {} | {} | {} | {} | {} |", c.kind.tag(), c.source, c.claim, v, c.evidence);
        }
        s.push('\n');
    }
    for f in &o.figures {
        let _ = writeln!(s, "![{f}]({f})\n");
        for (_, c) in o.captions.iter().filter(|(g, _)| g == f) {
            let _ = writeln!(s, "*{f}*: {}\n", cell(c));
        }
    }
    s
}

/// Runs the selected experiments, writes every file, and returns what happened. An experiment that
/// returns an error is recorded (and makes the binary exit non-zero); claims that do not hold are not
/// errors.
///
/// ```
/// use kern_repro::items::Item;
/// use kern_repro::registry::{Ctx, Experiment, Kind, Outcome, Paper, Status};
/// use kern_repro::report::{RunOptions, run};
/// fn demo(_: &Ctx) -> kern_repro::Result<Status> {
///     Ok(Status::Done(Outcome {
///         items: vec![Item::derived(Kind::Paper, "Table 9, a count", 100.0, 104.0)],
///         ..Default::default()
///     }))
/// }
/// let out = std::env::temp_dir().join(format!("kern-doc-run-{}", std::process::id()));
/// let exps = [Experiment { id: "demo", paper: Paper::Rkhs, reproduces: "Table 9", run: demo }];
/// let opts = RunOptions { quick: true, full: false, only: None, out: out.clone(), seed: 7 };
/// let ran = run(&exps, &opts)?;
/// assert_eq!(ran.len(), 1);
/// // The experiment's JSON and Markdown go into its paper's directory, the report beside them.
/// let json: serde_json::Value =
///     serde_json::from_str(&std::fs::read_to_string(out.join("rkhs/demo.json")).unwrap()).unwrap();
/// assert_eq!((json["status"].as_str(), json["seed"].as_u64()), (Some("done"), Some(7)));
/// assert_eq!(json["items"][0]["verdict"], "reproduces");
/// let md = std::fs::read_to_string(out.join("rkhs/demo.md")).unwrap();
/// assert!(md.contains("| Table 9, a count | paper | 100 | 104 | reproduces |"));
/// let report = std::fs::read_to_string(out.join("REPORT.md")).unwrap();
/// assert!(report.contains("**1 experiments done, 0 skipped, 0 errors."));
/// # std::fs::remove_dir_all(&out).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn run(experiments: &[Experiment], opts: &RunOptions) -> Result<Vec<Ran>> {
    let selected: Vec<&Experiment> =
        experiments.iter().filter(|e| opts.only.as_deref().is_none_or(|id| id == e.id)).collect();
    if selected.is_empty() {
        let ids: Vec<&str> = experiments.iter().map(|e| e.id).collect();
        return Err(ReproError::Other(format!(
            "no experiment {:?}; known: {}",
            opts.only.as_deref().unwrap_or(""),
            ids.join(", ")
        )));
    }
    let bar = indicatif::ProgressBar::new(selected.len() as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    let mut out = Vec::new();
    let total = selected.len();
    for (k, e) in selected.into_iter().enumerate() {
        bar.set_message(e.id);
        // One line per experiment start and finish, also when stderr is not a terminal (the bar is then
        // hidden, and with it anything printed through it).
        bar.suspend(|| eprintln!("kern-repro: [{}/{total}] {} started", k + 1, e.id));
        let dir = opts.out.join(e.paper.dir());
        std::fs::create_dir_all(&dir).map_err(|err| ReproError::io(&dir, err))?;
        let ctx = Ctx { quick: opts.quick, full: opts.full, dir: dir.clone(), seed: opts.seed };
        let t = Instant::now();
        let status = (e.run)(&ctx).map_err(|err| err.to_string());
        let seconds = t.elapsed().as_secs_f64();
        let (state, reason, outcome) = match &status {
            Ok(Status::Done(o)) => ("done", None, Some(o)),
            Ok(Status::Skipped(r)) => ("skipped", Some(r.clone()), None),
            Err(m) => ("error", Some(m.clone()), None),
        };
        let o = outcome.cloned().unwrap_or_default();
        let doc = json!({
            "id": e.id, "paper": e.paper.dir(), "reproduces": e.reproduces, "status": state,
            "reason": reason, "quick": opts.quick, "seed": opts.seed, "seconds": seconds,
            "versions": { "kern": env!("CARGO_PKG_VERSION") },
            "sizes": o.sizes, "seeds": o.seeds, "results": o.results, "table": o.table,
            "claims": o.claims, "figures": o.figures, "captions": o.captions, "items": o.all_items(),
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|err| ReproError::Other(err.to_string()))?;
        write(&dir.join(format!("{}.json", e.id)), &text)?;
        let mut md = format!("# {} — {}\n\n{}\n\n", e.id, e.reproduces, e.paper.title());
        match &status {
            Ok(Status::Done(o)) => {
                md.push_str(&items_md(&o.all_items()));
                md.push_str(&table_md(o));
            }
            Ok(Status::Skipped(r)) => {
                let _ = writeln!(md, "**Skipped**: {r}");
            }
            Err(m) => {
                let _ = writeln!(md, "**Error**: {m}");
            }
        }
        write(&dir.join(format!("{}.md", e.id)), &md)?;
        let summary = match &status {
            Ok(Status::Done(o)) => {
                let c = counts(&o.all_items());
                format!(
                    "done in {seconds:.2} s: items {} reproduce, {} partly, {} do not, {} not attempted",
                    c[0], c[1], c[2], c[3]
                )
            }
            Ok(Status::Skipped(r)) => format!("SKIPPED: {r}"),
            Err(m) => format!("ERROR: {m}"),
        };
        bar.suspend(|| eprintln!("kern-repro: [{}/{total}] {:<22} {summary}", k + 1, e.id));
        bar.inc(1);
        out.push(Ran { id: e.id, paper: e.paper.dir(), seconds, status, reproduces: e.reproduces });
    }
    bar.finish_and_clear();
    write_report(&opts.out, &out, opts)?;
    Ok(out)
}

fn write_report(out_dir: &Path, ran: &[Ran], opts: &RunOptions) -> Result<()> {
    let mut s = String::from("# kern reproduction report\n\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask repro{}` (seed {}). Every table cell, figure and quantitative statement \
         of the papers that an experiment touches is an item below, the paper's value beside ours, with a \
         verdict under the one rule stated after the headline; items of kind *paper* alone are counted. \
         Experiments that could not run are listed as skipped with the reason.\n",
        if opts.quick {
            " --quick"
        } else if opts.full {
            " --full"
        } else {
            ""
        },
        opts.seed
    );
    let reduced: Vec<&str> = ran
        .iter()
        .filter(|r| matches!(&r.status, Ok(Status::Done(o)) if o.sizes.get("reduced") == Some(&json!(true))))
        .map(|r| r.id)
        .collect();
    if !reduced.is_empty() {
        let _ = writeln!(
            s,
            "Experiments that check only our own claims and take minutes ran at reduced sizes: {} (their \
             sizes are listed under each; `cargo xtask repro --full` runs them at full size).\n",
            reduced.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
        );
    }
    let (mut done, mut skipped, mut errors) = (0, 0, 0);
    for r in ran {
        match &r.status {
            Ok(Status::Done(_)) => done += 1,
            Ok(Status::Skipped(_)) => skipped += 1,
            Err(_) => errors += 1,
        }
    }
    let outcomes = || {
        ran.iter().filter_map(|r| match &r.status {
            Ok(Status::Done(o)) => Some((r, o)),
            _ => None,
        })
    };
    let papers = [Paper::Csrbf, Paper::Letchford, Paper::Fvs, Paper::Rkhs, Paper::Railway];
    // The per-item tables, per paper: every item of the paper's experiments that ran, then the paper's
    // items no experiment attempts (when any of its experiments ran).
    let mut item_rows = Vec::new();
    let mut item_total = [0usize; 4];
    let mut item_tables = String::new();
    for p in papers {
        let mut rows: Vec<(String, Item)> = Vec::new();
        for (r, o) in outcomes().filter(|(r, _)| r.paper == p.dir()) {
            rows.extend(o.all_items().into_iter().map(|i| (format!("`{}`", r.id), i)));
        }
        if !ran.iter().any(|r| r.paper == p.dir()) {
            continue;
        }
        rows.extend(unchecked().iter().filter(|u| u.paper == p).map(|u| ("—".to_string(), u.item())));
        let c = counts(rows.iter().map(|(_, i)| i));
        let not_counted = rows.iter().filter(|(_, i)| !i.kind.counts()).count();
        for (t, v) in item_total.iter_mut().zip(c) {
            *t += v;
        }
        item_rows.push((p, c, not_counted));
        let _ = writeln!(item_tables, "### {}\n", p.title());
        let _ = writeln!(
            item_tables,
            "{} reproduce, {} partly, {} do not, {} not attempted ({} rows not counted).\n",
            c[0], c[1], c[2], c[3], not_counted
        );
        item_tables.push_str(&items_md_with(&rows));
    }
    let _ = writeln!(
        s,
        "**{done} experiments done, {skipped} skipped, {errors} errors. Of the papers' items (table cells, \
         figures and quantitative statements), {} reproduce, {} partly, {} do not and {} are not \
         attempted.**\n",
        item_total[0], item_total[1], item_total[2], item_total[3]
    );
    s.push_str(
        "| paper | reproduces | partly | does not | not attempted | not counted |\n|---|---|---|---|---|---|\n",
    );
    for (p, c, nc) in &item_rows {
        let _ = writeln!(s, "| {} | {} | {} | {} | {} | {nc} |", p.title(), c[0], c[1], c[2], c[3]);
    }
    let _ = writeln!(
        s,
        "| **total** | **{}** | **{}** | **{}** | **{}** | |\n",
        item_total[0], item_total[1], item_total[2], item_total[3]
    );
    s.push_str(RULE);
    s.push_str(
        "\n\nThe main reading of every ambiguous passage, and why, is in the crate's READINGS.md; the other \
                reading is shown as a labelled variant beside it.\n\n## Per-item reproduction\n\n",
    );
    s.push_str(&item_tables);
    s.push_str("## The papers' claims\n\n");
    // Per paper: [holds, does not hold, not checkable] over the paper's claims, and [identity, ours] counts.
    let mut rows = Vec::new();
    let mut total = [0usize; 6];
    for p in papers {
        let mut c = [0usize; 6];
        for (_, o) in outcomes().filter(|(r, _)| r.paper == p.dir()) {
            for cl in &o.claims {
                let k = match (cl.kind, cl.holds) {
                    (Kind::Paper, true) => 0,
                    (Kind::Paper, false) => 1,
                    (Kind::PaperStandIn, _) => 2,
                    (Kind::Identity, _) => 3,
                    (Kind::Ours, _) => 4,
                    (Kind::OtherReading, _) => 5,
                };
                c[k] += 1;
            }
        }
        c[2] += unchecked().iter().filter(|u| u.paper == p).count();
        for (t, v) in total.iter_mut().zip(c) {
            *t += v;
        }
        rows.push((p, c));
    }
    let _ = writeln!(
        s,
        "Of the papers' own claims (each also an item above, judged by direction), {} hold, {} do \
         not hold and {} are not checkable ({} checks of our implementation, {} claims of ours and {} \
         checks of a claim on the other reading of an ambiguous text are listed apart and not counted).\n",
        total[0], total[1], total[2], total[3], total[4], total[5]
    );
    s.push_str(
        "| paper | holds | does not hold | not checkable | identities | ours | other readings |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for (p, c) in &rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            p.title(),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[5]
        );
    }
    let _ = writeln!(
        s,
        "| **total** | **{}** | **{}** | **{}** | {} | {} | {} |\n",
        total[0], total[1], total[2], total[3], total[4], total[5]
    );
    s.push_str(
        "Kinds: *paper* = a claim the paper makes (source cited), checked on data built as the paper \
         describes, with tolerances from the paper's precision or a stated sampling error; *paper, other \
         reading* = the same claim on the other reading of an ambiguous text (not counted; the main reading \
         is); *paper, stand-in data* = the paper's data are not given (a missing figure), so our check cannot confirm or refute \
         it (counted as not checkable); *identity* = a check of our implementation; *ours* = a claim we \
         add.\n\n",
    );
    let failing: Vec<String> = outcomes()
        .flat_map(|(r, o)| {
            o.claims
                .iter()
                .filter(|c| c.kind == Kind::Paper && !c.holds)
                .map(move |c| format!("- `{}` ({}): {} — {}", r.id, c.source, c.claim, c.evidence))
        })
        .collect();
    if !failing.is_empty() {
        s.push_str("### The papers' claims that do not hold on our data\n\n");
        s.push_str(&failing.join("\n"));
        s.push_str("\n\n");
    }
    s.push_str("### The papers' claims that are not checkable\n\n");
    for (r, o) in outcomes() {
        for c in o.claims.iter().filter(|c| c.kind == Kind::PaperStandIn) {
            let v = if c.holds { "holds" } else { "does not hold" };
            let _ = writeln!(
                s,
                "- `{}` ({}): {} — on our stand-in data it {v}: {}",
                r.id, c.source, c.claim, c.evidence
            );
        }
    }
    for u in unchecked() {
        let _ = writeln!(s, "- {} ({}): {} — not run: {}", u.paper.dir(), u.source, u.claim, u.why);
    }
    s.push('\n');
    let others: Vec<String> = outcomes()
        .flat_map(|(r, o)| {
            o.claims
                .iter()
                .filter(|c| !matches!(c.kind, Kind::Paper | Kind::PaperStandIn) && !c.holds)
                .map(move |c| format!("- `{}` ({}): {} — {}", r.id, c.kind.tag(), c.claim, c.evidence))
        })
        .collect();
    if !others.is_empty() {
        s.push_str("### Other checks that do not hold (identities, our claims, other readings)\n\n");
        s.push_str(&others.join("\n"));
        s.push_str("\n\n");
    }
    let mut last_paper = "";
    for r in ran {
        if r.paper != last_paper {
            let _ = writeln!(s, "## {}\n", r.paper);
            last_paper = r.paper;
        }
        let _ = writeln!(s, "### `{}` — {} ({:.2} s)\n", r.id, r.reproduces, r.seconds);
        match &r.status {
            Ok(Status::Done(o)) => {
                if !o.sizes.is_null() {
                    let _ = writeln!(s, "Sizes: `{}`\n", o.sizes);
                }
                let md = table_md(o).replace("](", &format!("]({}/", r.paper));
                s.push_str(&md);
            }
            Ok(Status::Skipped(why)) => {
                let _ = writeln!(s, "Skipped: {why}\n");
            }
            Err(m) => {
                let _ = writeln!(s, "Error: {m}\n");
            }
        }
    }
    write(&out_dir.join("REPORT.md"), &s)
}
