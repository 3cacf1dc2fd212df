//! Running experiments and writing `results/<paper>/<id>.{json,md}` and `results/REPORT.md`.
//!
//! JSON schema of `<id>.json` (every experiment):
//! `{ "id", "paper", "reproduces", "status": "done"|"skipped"|"error", "reason"?, "quick", "seed",
//!    "seconds", "versions": {"kern"}, "sizes", "seeds", "results", "table": [{quantity, paper, ours, note}],
//!    "claims": [{claim, holds, evidence}], "figures": [file names] }`.
//! `results` is free-form per experiment and documented in its function's rustdoc.

use crate::registry::{Ctx, Experiment, Outcome, Status};
use crate::{ReproError, Result};
use serde_json::json;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Reduced sizes.
    pub quick: bool,
    /// Only this experiment.
    pub only: Option<String>,
    /// Output directory (`results/` by default).
    pub out: PathBuf,
    /// Base seed.
    pub seed: u64,
}

/// What happened to one experiment.
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
        s.push_str("| claim | verdict | evidence |\n|---|---|---|\n");
        for c in &o.claims {
            let v = if c.holds { "holds" } else { "**does not hold**" };
            let _ = writeln!(s, "| {} | {} | {} |", c.claim, v, c.evidence);
        }
        s.push('\n');
    }
    for f in &o.figures {
        let _ = writeln!(s, "![{f}]({f})\n");
    }
    s
}

/// Runs the selected experiments, writes every file, and returns what happened. An experiment that
/// returns an error is recorded (and makes the binary exit non-zero); claims that do not hold are not
/// errors.
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
    for e in selected {
        bar.set_message(e.id);
        let dir = opts.out.join(e.paper.dir());
        std::fs::create_dir_all(&dir).map_err(|err| ReproError::io(&dir, err))?;
        let ctx = Ctx { quick: opts.quick, dir: dir.clone(), seed: opts.seed };
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
            "claims": o.claims, "figures": o.figures,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|err| ReproError::Other(err.to_string()))?;
        write(&dir.join(format!("{}.json", e.id)), &text)?;
        let mut md = format!("# {} — {}\n\n{}\n\n", e.id, e.reproduces, e.paper.title());
        match &status {
            Ok(Status::Done(o)) => md.push_str(&table_md(o)),
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
                let held = o.claims.iter().filter(|c| c.holds).count();
                format!("done in {seconds:.2} s, {held}/{} claims hold", o.claims.len())
            }
            Ok(Status::Skipped(r)) => format!("SKIPPED: {r}"),
            Err(m) => format!("ERROR: {m}"),
        };
        bar.println(format!("{:<22} {summary}", e.id));
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
        "Generated by `cargo xtask repro{}` (seed {}). Paper values beside ours; every qualitative claim \
         checked on our numbers. Experiments that could not run are listed as skipped with the reason.\n",
        if opts.quick { " --quick" } else { "" },
        opts.seed
    );
    let (mut done, mut skipped, mut errors, mut held, mut claims) = (0, 0, 0, 0, 0);
    for r in ran {
        match &r.status {
            Ok(Status::Done(o)) => {
                done += 1;
                claims += o.claims.len();
                held += o.claims.iter().filter(|c| c.holds).count();
            }
            Ok(Status::Skipped(_)) => skipped += 1,
            Err(_) => errors += 1,
        }
    }
    let _ =
        writeln!(s, "**{done} done, {skipped} skipped, {errors} errors; {held} of {claims} claims hold.**\n");
    let failing: Vec<String> = ran
        .iter()
        .filter_map(|r| match &r.status {
            Ok(Status::Done(o)) => Some((r.id, o)),
            _ => None,
        })
        .flat_map(|(id, o)| {
            o.claims
                .iter()
                .filter(|c| !c.holds)
                .map(move |c| format!("- `{id}`: {} — {}", c.claim, c.evidence))
        })
        .collect();
    if !failing.is_empty() {
        s.push_str("## Claims that do not hold on our data\n\n");
        s.push_str(&failing.join("\n"));
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
