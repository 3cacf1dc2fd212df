//! The per-item verdict rule (one function, property-tested) and the report built on it: every item has a
//! verdict and, unless it reproduces, a reason; the headline's counts are the per-item tables' rows.

use kern_repro::items::{Basis, Item, Verdict, counts, verdict};
use kern_repro::registry::{self, Ctx, Experiment, Kind, Outcome, Paper, Status};
use kern_repro::report::{RunOptions, run};
use proptest::prelude::*;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kern-repro-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

proptest! {
    /// Swapping the paper's value and ours changes no verdict.
    #[test]
    fn the_rule_is_symmetric(a in -1e3f64..1e3, b in -1e3f64..1e3, sd in 0.0f64..50.0) {
        prop_assert_eq!(
            verdict(&Basis::Sampled { paper: a, ours: b, sd }),
            verdict(&Basis::Sampled { paper: b, ours: a, sd })
        );
        prop_assert_eq!(verdict(&Basis::Derived { paper: a, ours: b }), verdict(&Basis::Derived { paper: b, ours: a }));
    }

    /// A wider sampling sd never makes a verdict worse, and the value itself always reproduces.
    #[test]
    fn the_rule_is_monotone_in_the_tolerance(a in -1e3f64..1e3, b in -1e3f64..1e3, sd in 0.0f64..50.0, more in 0.0f64..50.0) {
        let narrow = verdict(&Basis::Sampled { paper: a, ours: b, sd });
        let wide = verdict(&Basis::Sampled { paper: a, ours: b, sd: sd + more });
        prop_assert!(wide <= narrow, "{:?} at sd {} but {:?} at {}", narrow, sd, wide, sd + more);
        prop_assert_eq!(verdict(&Basis::Sampled { paper: a, ours: a, sd }), Verdict::Reproduces);
        prop_assert_eq!(verdict(&Basis::Derived { paper: a, ours: a }), Verdict::Reproduces);
    }

    /// Moving our value away from the paper's never improves the verdict.
    #[test]
    fn the_rule_is_monotone_in_the_distance(a in -1e3f64..1e3, d in 0.0f64..100.0, more in 0.0f64..100.0, sd in 0.0f64..50.0) {
        let near = verdict(&Basis::Sampled { paper: a, ours: a + d, sd });
        let far = verdict(&Basis::Sampled { paper: a, ours: a + d + more, sd });
        prop_assert!(far >= near, "{:?} then {:?}", near, far);
    }

    /// Directions: more comparisons the paper's way never worsen the verdict; all of them reproduce.
    #[test]
    fn directions_are_monotone(of in 1usize..20, agree in 0usize..20) {
        let agree = agree.min(of);
        let v = verdict(&Basis::Direction { agree, of });
        if agree < of {
            let better = verdict(&Basis::Direction { agree: agree + 1, of });
            prop_assert!(better <= v);
        } else {
            prop_assert_eq!(v, Verdict::Reproduces);
        }
    }
}

#[test]
fn the_thresholds_are_those_stated() {
    // 2 sd reproduce, 4 sd partly, beyond does not; 10 % of the larger value, 20 % partly.
    let s = |ours: f64| verdict(&Basis::Sampled { paper: 0.0, ours, sd: 1.0 });
    assert_eq!(
        (s(2.0), s(2.01), s(4.0), s(4.01)),
        (Verdict::Reproduces, Verdict::Partly, Verdict::Partly, Verdict::DoesNot)
    );
    let d = |ours: f64| verdict(&Basis::Derived { paper: 100.0, ours });
    assert_eq!(
        (d(110.0), d(112.0), d(125.0), d(126.0)),
        (Verdict::Reproduces, Verdict::Partly, Verdict::Partly, Verdict::DoesNot)
    );
    assert_eq!(verdict(&Basis::Direction { agree: 0, of: 0 }), Verdict::DoesNot);
}

#[test]
fn an_item_that_does_not_reproduce_says_why() {
    let i = Item::sampled(Kind::Paper, "x", 0.2, 0.5, 0.01).because("a cause");
    assert_eq!(i.verdict, Verdict::DoesNot);
    assert!(i.reason.contains("2 sd") && i.reason.contains("a cause"), "{}", i.reason);
    let ok = Item::derived(Kind::Paper, "x", 1.0, 1.05).because("a cause");
    assert!(ok.reason.is_empty());
    let v = Item::derived(Kind::Paper, "x", 1.0, 2.0).variant("other");
    assert_eq!(v.kind, Kind::OtherReading);
    assert_eq!(counts([&v]), [0, 0, 0, 0]);
}

/// A stand-in experiment with one item of each verdict and kind.
fn fake(_: &Ctx) -> kern_repro::Result<Status> {
    Ok(Status::Done(Outcome {
        items: vec![
            Item::derived(Kind::Paper, "a", 1.0, 1.0),
            Item::derived(Kind::Paper, "b", 1.0, 1.15),
            Item::derived(Kind::Paper, "c", 1.0, 2.0),
            Item::not_attempted("d", "a claim", "no data"),
            Item::derived(Kind::Identity, "e", 1.0, 2.0),
            Item::derived(Kind::Paper, "f", 1.0, 2.0).variant("other"),
        ],
        ..Default::default()
    }))
}

/// The headline table's counts, per paper title: `[reproduces, partly, does not, not attempted]`.
fn headline(report: &str) -> Vec<(String, [usize; 4])> {
    let start = report.find("| paper | reproduces |").unwrap();
    report[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|') && !l.starts_with("| **total"))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            (f[1].to_string(), [f[2], f[3], f[4], f[5]].map(|v| v.parse().unwrap()))
        })
        .collect()
}

/// Counts the counted rows (kind `paper`) of the per-item table under `### title`, by verdict.
fn table_counts(report: &str, title: &str) -> [usize; 4] {
    let at = report.find(&format!("### {title}\n")).unwrap();
    let mut c = [0; 4];
    for l in report[at..].lines().skip(1).skip_while(|l| !l.starts_with("| experiment")).skip(2) {
        if !l.starts_with('|') {
            break;
        }
        let f: Vec<&str> = l.split(" | ").collect();
        if f[2] != "paper" {
            continue;
        }
        let v = f[5].trim_matches('*');
        c[Verdict::ALL.iter().position(|x| x.label() == v).unwrap()] += 1;
    }
    c
}

#[test]
fn the_headline_counts_are_the_tables_rows() {
    let dir = scratch("headline");
    let exps = [Experiment { id: "fake", paper: Paper::Rkhs, reproduces: "a test", run: fake }];
    let opts = RunOptions { quick: true, full: false, only: None, out: dir.clone(), seed: 1 };
    run(&exps, &opts).unwrap();
    let report = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    let rows = headline(&report);
    assert_eq!(rows.len(), 1);
    let unchecked = registry::unchecked().iter().filter(|u| u.paper == Paper::Rkhs).count();
    assert_eq!(rows[0].1, [1, 1, 1, 1 + unchecked]);
    assert_eq!(rows[0].1, table_counts(&report, Paper::Rkhs.title()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_item_of_a_real_run_has_a_verdict_and_a_reason() {
    let dir = scratch("real");
    let exps: Vec<Experiment> = registry::all()
        .into_iter()
        .filter(|e| ["csrbf-rcm", "csrbf-kpca", "railway-xor", "fvs-circles"].contains(&e.id))
        .collect();
    let opts = RunOptions { quick: true, full: false, only: None, out: dir.clone(), seed: 20260401 };
    let ran = run(&exps, &opts).unwrap();
    let mut n = 0;
    for r in &ran {
        let Ok(Status::Done(o)) = &r.status else { panic!("{} did not run", r.id) };
        for i in o.all_items() {
            n += 1;
            assert_eq!(i.verdict, verdict(&i.basis), "{}", i.paper_ref);
            assert!(!i.paper_ref.is_empty() && !i.paper.is_empty() && !i.ours.is_empty());
            assert_eq!(
                i.verdict == Verdict::Reproduces,
                i.reason.is_empty(),
                "{}: {:?}",
                i.paper_ref,
                i.reason
            );
        }
    }
    assert!(n > 10);
    let report = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    for (title, c) in headline(&report) {
        let paper = [Paper::Csrbf, Paper::Letchford, Paper::Fvs, Paper::Rkhs, Paper::Railway]
            .into_iter()
            .find(|p| p.title() == title)
            .unwrap();
        assert_eq!(c, table_counts(&report, paper.title()), "{title}");
    }
    for u in registry::unchecked() {
        assert!(!u.item().reason.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Fig. 6A/6B are compared per data set: two items per set (mean-to-half varies least, grid search most),
/// of kind *paper* on the paper's own sets and *paper, stand-in data* on ours, and no aggregate row.
#[test]
fn fig6_is_compared_per_data_set() {
    let dir = scratch("fig6");
    let exps: Vec<Experiment> =
        registry::all().into_iter().filter(|e| e.id == "bandwidth-robustness").collect();
    let opts = RunOptions { quick: true, full: false, only: None, out: dir.clone(), seed: 20260401 };
    let ran = run(&exps, &opts).unwrap();
    let Ok(Status::Done(o)) = &ran[0].status else { panic!("bandwidth-robustness did not run") };
    let fig6: Vec<Item> = o.all_items().into_iter().filter(|i| i.paper_ref.starts_with("Fig. 6")).collect();
    let paper = ["HIV-1 746", "HIV-1 Impens", "Students maths", "Students Portuguese"];
    let stand_in = ["MAGIC", "Wisconsin", "Cleveland"];
    for set in paper.iter().chain(&stand_in) {
        let rows: Vec<&Item> = fig6.iter().filter(|i| i.paper_ref.contains(&format!(", {set}: "))).collect();
        let kind = if paper.contains(set) { Kind::Paper } else { Kind::PaperStandIn };
        assert_eq!(rows.len(), 2, "{set}");
        assert!(rows.iter().all(|i| i.kind == kind && i.verdict == verdict(&i.basis)), "{set}");
    }
    assert_eq!(fig6.len(), 2 * (paper.len() + stand_in.len()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An experiment with a figure, its caption, and sizes that say it ran reduced unless `--full`.
fn captioned(ctx: &Ctx) -> kern_repro::Result<Status> {
    Ok(Status::Done(Outcome {
        figures: vec!["a.svg".into(), "b.svg".into()],
        captions: vec![("a.svg".into(), "error 0.25 | 12 SVs".into())],
        sizes: serde_json::json!({"n": if ctx.full { 1000 } else { 100 }, "reduced": !ctx.full}),
        ..Default::default()
    }))
}

#[test]
fn captions_go_under_their_figure_and_reduced_sizes_are_named() {
    let dir = scratch("captions");
    let exps = [Experiment { id: "cap", paper: Paper::Rkhs, reproduces: "a test", run: captioned }];
    for full in [false, true] {
        let opts = RunOptions { quick: false, full, only: None, out: dir.clone(), seed: 1 };
        run(&exps, &opts).unwrap();
        let report = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
        // The caption follows its figure's entry (paths are relative to the report), cells escaped.
        let fig = report.find("![a.svg](rkhs/a.svg)").unwrap();
        let cap = report.find("*a.svg*: error 0.25 \\| 12 SVs").unwrap();
        assert!(fig < cap && cap < report.find("![b.svg](rkhs/b.svg)").unwrap());
        assert!(!report.contains("*b.svg*"));
        let n = if full { 1000 } else { 100 };
        assert!(report.contains(&format!("Sizes: `{{\"n\":{n},\"reduced\":{}}}`", !full)), "{report}");
        assert_eq!(report.contains("ran at reduced sizes: `cap`"), !full);
        assert_eq!(report.contains("`cargo xtask repro --full` runs them at full size"), !full);
        assert_eq!(report.contains("Generated by `cargo xtask repro --full`"), full);
        let json = std::fs::read_to_string(dir.join("rkhs").join("cap.json")).unwrap();
        assert!(json.contains("\"captions\""));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
