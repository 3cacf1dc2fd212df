//! Zhang, Genton & Liu (2004), compactly supported RBF kernels.

use crate::Result;
use crate::figures::{Series, line_chart, line_chart_with};
use crate::items::{Item, mean_sd};
use crate::registry::{Claim, Ctx, Kind, Outcome, Row, Status};
use kern_core::{CompactlySupported, Gaussian, Kernel};
use serde_json::json;

/// Fig. 1: the Gaussian kernel with σ = 2.4 (exp(−r²/σ²)) beside its compactly supported versions:
/// left, C = 1 with ν ∈ {1, 3, 5, 7}; right, ν = 3 with C ∈ {1.5, 2.5, 3.5, 4.5}. Checks eq. 1's
/// properties on the curves: k_C ≤ k, k_C = 0 for r ≥ C, decreasing in ν, increasing in C.
pub fn kernels(ctx: &Ctx) -> Result<Status> {
    let sigma = 2.4;
    let g = Gaussian::with_sigma(sigma)?;
    let rs: Vec<f64> = (0..=500).map(|i| i as f64 * 5.0 / 500.0).collect();
    let curve = |k: &dyn Fn(f64) -> f64| rs.iter().map(|&r| (r, k(r))).collect::<Vec<_>>();
    let gauss = curve(&|r| g.eval(&[0.0], &[r]));
    let mut left = vec![Series { name: format!("Gaussian σ = {sigma}"), points: gauss.clone() }];
    let mut right = left.clone();
    let mut results = serde_json::Map::new();
    let mut below = true;
    let mut zero_beyond = true;
    for nu in [1.0, 3.0, 5.0, 7.0] {
        let k = CompactlySupported::new(g, 1.0, nu)?.allow_any_nu();
        let pts = curve(&|r| k.eval(&[0.0], &[r]));
        below &= pts.iter().zip(&gauss).all(|(a, b)| a.1 <= b.1);
        zero_beyond &= pts.iter().filter(|p| p.0 >= 1.0).all(|p| p.1 == 0.0);
        results.insert(format!("c1_nu{nu}_at_0.5"), json!(k.eval(&[0.0], &[0.5])));
        left.push(Series { name: format!("C = 1, ν = {nu}"), points: pts });
    }
    for c in [1.5, 2.5, 3.5, 4.5] {
        let k = CompactlySupported::new(g, c, 3.0)?;
        let pts = curve(&|r| k.eval(&[0.0], &[r]));
        below &= pts.iter().zip(&gauss).all(|(a, b)| a.1 <= b.1);
        zero_beyond &= pts.iter().filter(|p| p.0 >= c).all(|p| p.1 == 0.0);
        results.insert(format!("nu3_c{c}_at_1"), json!(k.eval(&[0.0], &[1.0])));
        right.push(Series { name: format!("ν = 3, C = {c}"), points: pts });
    }
    let dec_nu = (1..4).all(|i| {
        let a = left[i].points.iter().zip(&left[i + 1].points);
        a.filter(|(p, _)| p.0 < 1.0).all(|(p, q)| q.1 <= p.1)
    });
    let inc_c = (1..4).all(|i| right[i].points.iter().zip(&right[i + 1].points).all(|(p, q)| q.1 >= p.1));
    line_chart(&ctx.dir.join("csrbf-kernels-nu.svg"), "Fig. 1 (left): C = 1, varying ν", "r", "k(r)", &left)?;
    line_chart(
        &ctx.dir.join("csrbf-kernels-c.svg"),
        "Fig. 1 (right): ν = 3, varying C",
        "r",
        "k(r)",
        &right,
    )?;
    let table = vec![
        Row {
            quantity: "k_C(0.5) at C = 1, ν = 1, 3, 5, 7".into(),
            paper: "— (figure only)".into(),
            ours: [1.0, 3.0, 5.0, 7.0]
                .iter()
                .map(|nu| {
                    format!("{:.4}", results[&format!("c1_nu{nu}_at_0.5")].as_f64().unwrap_or(f64::NAN))
                })
                .collect::<Vec<_>>()
                .join(", "),
            note: format!("Gaussian k(0.5) = {:.4}", g.eval(&[0.0], &[0.5])),
        },
        Row {
            quantity: "k_C(1) at ν = 3, C = 1.5, 2.5, 3.5, 4.5".into(),
            paper: "— (figure only)".into(),
            ours: [1.5, 2.5, 3.5, 4.5]
                .iter()
                .map(|c| format!("{:.4}", results[&format!("nu3_c{c}_at_1")].as_f64().unwrap_or(f64::NAN)))
                .collect::<Vec<_>>()
                .join(", "),
            note: format!("Gaussian k(1) = {:.4}", g.eval(&[0.0], &[1.0])),
        },
    ];
    let claims = vec![
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "k_C ≤ k everywhere (φ_C ≤ 1)".into(),
            holds: below,
            evidence: "checked on 501 points r ∈ [0, 5] for all 8 curves".into(),
        },
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "k_C has support [0, C] (zero for r ≥ C)".into(),
            holds: zero_beyond,
            evidence: "every sampled r ≥ C gives exactly 0".into(),
        },
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "at fixed C, larger ν decays faster".into(),
            holds: dec_nu,
            evidence: "curves ordered ν = 1 ≥ 3 ≥ 5 ≥ 7 pointwise on [0, 1)".into(),
        },
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "at fixed ν, larger C is closer to the Gaussian".into(),
            holds: inc_c,
            evidence: "curves ordered C = 1.5 ≤ 2.5 ≤ 3.5 ≤ 4.5 pointwise".into(),
        },
    ];
    Ok(Status::Done(Outcome {
        results: serde_json::Value::Object(results),
        sizes: json!({ "points_per_curve": rs.len() }),
        seeds: vec![],
        table,
        claims,
        figures: vec!["csrbf-kernels-nu.svg".into(), "csrbf-kernels-c.svg".into()],
        items: Vec::new(),
        captions: Vec::new(),
    }))
}

/// The support radius `C` that gives Gram sparsity `s` (eq. 7: zeros / n²) on `x`, from the sorted
/// pairwise distances: `n + 2·#{i < j : d_ij < C}` non-zeros must equal `(1 − s)·n²`.
pub fn c_for_sparsity(x: &kern_core::Samples, s: f64) -> f64 {
    let n = x.n();
    let mut d: Vec<f64> = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in 0..i {
            d.push(kern_core::sq_dist(x.row(i), x.row(j)).sqrt());
        }
    }
    d.sort_by(f64::total_cmp);
    let pairs = (((1.0 - s) * (n * n) as f64 - n as f64) / 2.0).round().max(0.0) as usize;
    if pairs >= d.len() {
        return d.last().copied().unwrap_or(1.0) * 1.01 + 1e-9;
    }
    if pairs == 0 {
        return d[0] * 0.5;
    }
    // Any C in (d[pairs-1], d[pairs]] keeps exactly `pairs` pairs.
    0.5 * (d[pairs - 1] + d[pairs])
}

/// Table 1 / Fig. 2: green-red n = 2000, σ = 0.6, ν = 3; C set for sparsity 95 / 75 / 50 / 0 %; bandwidth
/// of K_C before and after RCM (both `2·max bᵢ + 1` of §2.2 and the one-sided `max bᵢ + 1` that the
/// paper's dense value 2000 matches), Cholesky fill after RCM and after minimum degree (AMD), and spy plots
/// after each ordering. `results`: per sparsity level `{c, nnz, sparsity, bw_before, bw_rcm, one_sided_rcm,
/// profile_rcm, fill_rcm, fill_amd}`.
pub fn rcm(ctx: &Ctx) -> Result<Status> {
    use kern_sparse::{
        CholeskyPlan, GramMatrix, Ordering, bandwidth, bandwidth_permuted, order, pattern_density,
        sparse_gram,
    };
    let n = 2000;
    let (mixture, _, _) = paper_mixture(ctx.seed);
    let (x, _) = mixture.sample(n, ctx.seed + 1);
    let paper = [(0.95, 325usize), (0.75, 824), (0.50, 1122), (0.0, 2000)];
    let mut table = Vec::new();
    let mut results = serde_json::Map::new();
    let mut figures = Vec::new();
    let mut one_sided = Vec::new();
    let mut reduced = true;
    let mut amd_fills_less = true;
    let mut fills = Vec::new();
    let mut items = Vec::new();
    for (s, paper_bw) in paper {
        let c = c_for_sparsity(&x, s);
        let k = CompactlySupported::new(Gaussian::with_sigma(0.6)?, c, 3.0)?;
        let g = sparse_gram(&k, &x)?;
        let a = g.matrix();
        let before = bandwidth(a);
        let p_rcm = order(a, Ordering::Rcm)?;
        let after = bandwidth_permuted(a, &p_rcm)?;
        let p_amd = order(a, Ordering::Amd)?;
        let fill = |o: Ordering| -> Result<usize> {
            let plan = CholeskyPlan::new(GramMatrix::Sparse(a.clone()), o)?;
            Ok(plan.factor_nnz())
        };
        let (fill_rcm, fill_amd) = (fill(Ordering::Rcm)?, fill(Ordering::Amd)?);
        let pct = (s * 100.0).round() as u32;
        for (name, p) in [("rcm", &p_rcm), ("amd", &p_amd)] {
            let permuted = kern_sparse::permute_symmetric(a, p)?;
            let f = format!("csrbf-rcm-spy-{name}-{pct}.svg");
            let title = format!("{} ordering, {pct}% sparse", name.to_uppercase());
            let n = permuted.nrows();
            crate::figures::spy(&ctx.dir.join(&f), &title, &pattern_density(&permuted, 100), 100, n)?;
            figures.push(f);
        }
        reduced &= s == 0.0 || after.bw < before.bw;
        amd_fills_less &= s == 0.0 || fill_amd <= fill_rcm;
        fills.push(format!("{pct}%: AMD {fill_amd} vs RCM {fill_rcm}"));
        one_sided.push(after.one_sided);
        results.insert(
            format!("sparsity_{pct}"),
            json!({"c": c, "nnz": a.nnz(), "sparsity": g.sparsity(), "bw_before": before.bw, "bw_rcm": after.bw,
                   "one_sided_before": before.one_sided, "one_sided_rcm": after.one_sided,
                   "profile_rcm": after.profile, "fill_rcm": fill_rcm, "fill_amd": fill_amd}),
        );
        items.push(
            Item::derived(
                Kind::Paper,
                &format!("Table 1, bandwidth after RCM at {pct}% sparsity"),
                paper_bw as f64,
                after.one_sided as f64,
            )
            .because("the RCM bandwidth of our own 2,000-point draw (the paper's points are not published)"),
        );
        table.push(Row {
            quantity: format!("bandwidth after RCM, sparsity {pct}%"),
            paper: paper_bw.to_string(),
            ours: format!("{} (one-sided); {} (2·max bᵢ+1)", after.one_sided, after.bw),
            note: format!(
                "C = {c:.3}, S = {:.3}; before RCM {} / {}; Cholesky nnz(L) RCM {fill_rcm}, AMD {fill_amd}",
                g.sparsity(),
                before.one_sided,
                before.bw
            ),
        });
    }
    let monotone = one_sided.windows(2).all(|w| w[0] <= w[1]);
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "§2, Table 1".into(),
            claim: "RCM reduces the bandwidth of the sparse K_C".into(),
            holds: reduced,
            evidence: format!("one-sided bandwidths after RCM {one_sided:?} vs {n} before"),
        },
        Claim {
            kind: Kind::Paper,
            source: "§2, Table 1".into(),
            claim: "the bandwidth after RCM grows as sparsity falls (Table 1: 325 < 824 < 1122 < 2000)"
                .into(),
            holds: monotone,
            evidence: format!("ours {one_sided:?}"),
        },
        Claim {
            kind: Kind::Ours,
            source: "".into(),
            claim: "minimum degree fills less than RCM in the Cholesky factor at every sparsity (the paper \
                    only shows its block structure in Fig. 2; where it does not, kern's default ordering \
                    `auto` takes RCM)"
                .into(),
            holds: amd_fills_less,
            evidence: format!("nnz(L): {}", fills.join("; ")),
        },
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "the dense case (0%) reads 2000, i.e. the one-sided max bᵢ + 1, not 2·max bᵢ + 1".into(),
            holds: one_sided.last() == Some(&n),
            evidence: format!(
                "one-sided {} ; two-sided {}",
                one_sided.last().copied().unwrap_or(0),
                2 * n - 1
            ),
        },
    ];
    Ok(Status::Done(Outcome {
        results: serde_json::Value::Object(results),
        sizes: json!({"n": n, "sigma": 0.6, "nu": 3}),
        seeds: vec![ctx.seed, ctx.seed + 1],
        table,
        claims,
        figures,
        items,
        captions: Vec::new(),
    }))
}

/// Figs. 3 and 5 (and the Ĉ column of Table 2): A(C), S(C) and A + γS (γ ∈ {0.5, 1}) over
/// log2 C ∈ [−5, 5] on the green-red training set of `csrbf-svm` (n = 200, σ = 0.6, ν = 3), with the C chosen
/// by eq. 8 for each γ and by eq. 9 for μ ∈ {0.90, 0.95, 0.98, 0.99}.
///
/// A(C) is eq. 3 as printed, over all n² entries, diagonal included (the main reading). Then
/// A(C) → √(n / Σᵢⱼ K²ᵢⱼ) > 0 as C → 0, so Theorem 1(i) fails as printed; the off-diagonal reading (under
/// which it holds) is reported beside it. Ĉ is compared with the paper's, with a tolerance of two
/// standard deviations of Ĉ over 10 other centre draws (each within 0.01 of the paper's Bayes error) and
/// their own 200-point training sets.
/// `results`: `{curve: {c, alignment, sparsity}, curve_offdiag: {…}, limit_c0, eq8: [{gamma, c, a, s}],
/// eq9: [{mu, c, a, s, c_spread: [Ĉ per training set]}]}`.
pub fn alignment(ctx: &Ctx) -> Result<Status> {
    use kern_tune::support::{Diagonal, Procedure, Search, SupportOptions, SupportProfile, default_c_grid};
    let n = 200;
    let (mixture, _, _) = paper_mixture(ctx.seed);
    let (x, _) = mixture.sample(n, ctx.seed + 10);
    let base = Gaussian::with_sigma(0.6)?;
    let printed = SupportOptions { diagonal: Diagonal::Include, ..Default::default() };
    let profile = SupportProfile::new(&base, &x, &printed)?;
    let profile_off = SupportProfile::new(&base, &x, &SupportOptions::default())?;
    let grid = default_c_grid();
    let curve = profile.curve(&grid)?;
    let curve_off = profile_off.curve(&grid)?;
    let search = Search::Grid(grid.clone());
    let lg: Vec<f64> = curve.c.iter().map(|c| c.log2()).collect();
    let mut series = vec![
        Series {
            name: "A(C)".into(),
            points: lg.iter().copied().zip(curve.alignment.iter().copied()).collect(),
        },
        Series {
            name: "S(C)".into(),
            points: lg.iter().copied().zip(curve.sparsity.iter().copied()).collect(),
        },
    ];
    let mut eq8 = Vec::new();
    for gamma in [0.5, 1.0] {
        let ch = profile.select(Procedure::Combined { gamma }, &search)?;
        let pts = lg
            .iter()
            .zip(curve.alignment.iter().zip(&curve.sparsity))
            .map(|(&l, (a, s))| (l, a + gamma * s))
            .collect();
        series.push(Series { name: format!("A + {gamma}·S"), points: pts });
        eq8.push(json!({"gamma": gamma, "c": ch.c, "a": ch.alignment, "s": ch.sparsity}));
    }
    line_chart(
        &ctx.dir.join("csrbf-alignment-fig3.svg"),
        "Fig. 3: alignment, sparsity and A + γS",
        "log2 C",
        "score",
        &series,
    )?;
    line_chart_with(
        &ctx.dir.join("csrbf-alignment-fig5.svg"),
        "Fig. 5: A(C), S(C) and the levels μ",
        ("log2 C", "score"),
        &series[..2],
        ("levels μ", &[0.90, 0.95, 0.98, 0.99]),
    )?;
    let paper = [
        (0.90, 1.583, 0.912, 0.482),
        (0.95, 2.239, 0.956, 0.301),
        (0.98, 3.394, 0.981, 0.209),
        (0.99, 4.800, 0.991, 0.185),
    ];
    // The sampling spread of Ĉ: 10 other centre draws of the same kind (Bayes error within 0.01 of the
    // paper's; its centres are not published), each with its own 200-point training set.
    let spread_sets: Vec<kern_core::Samples> = (0..10u64)
        .map(|j| paper_mixture(ctx.seed.wrapping_add(7919 * (j + 1))).0.sample(n, ctx.seed + 500 + j).0)
        .collect();
    let spread_profiles: Vec<SupportProfile> = spread_sets
        .iter()
        .map(|xs| SupportProfile::new(&base, xs, &printed))
        .collect::<std::result::Result<_, _>>()?;
    let spread_profiles_off: Vec<SupportProfile> = spread_sets
        .iter()
        .map(|xs| SupportProfile::new(&base, xs, &SupportOptions::default()))
        .collect::<std::result::Result<_, _>>()?;
    let mut items = Vec::new();
    let mut table = Vec::new();
    let mut eq9 = Vec::new();
    let mut cs = Vec::new();
    let mut c_agree: Vec<(bool, f64, f64, f64)> = Vec::new();
    for (mu, pc, pa, ps) in paper {
        let ch = profile.select(Procedure::MinAlignment { mu }, &Search::Exact)?;
        let ch_off = profile_off.select(Procedure::MinAlignment { mu }, &Search::Exact)?;
        let spread = |profiles: &[SupportProfile]| -> Result<(Vec<f64>, f64, f64)> {
            let picks: Vec<_> = profiles
                .iter()
                .map(|p| p.select(Procedure::MinAlignment { mu }, &Search::Exact))
                .collect::<std::result::Result<_, _>>()?;
            let c: Vec<f64> = picks.iter().map(|p| p.c).collect();
            let s: Vec<f64> = picks.iter().map(|p| p.sparsity).collect();
            Ok((c.clone(), mean_sd(&c).1, mean_sd(&s).1))
        };
        let (others, sd, sd_s) = spread(&spread_profiles)?;
        let (_, sd_off, sd_s_off) = spread(&spread_profiles_off)?;
        let m = others.iter().sum::<f64>() / others.len() as f64;
        let ch_grid = profile.select(Procedure::MinAlignment { mu }, &search)?;
        let why_s =
            "eq. 7's sparsity at our Ĉ: far from the paper's, though Ĉ and A are close (see READINGS.md)";
        items.extend([
            Item::sampled(Kind::Paper, &format!("Table 2, Ĉ at μ = {mu}"), pc, ch.c, sd)
                .because("our centres are a draw of the paper's kind, not its own"),
            Item::sampled(Kind::Paper, &format!("Table 2, Ĉ at μ = {mu}"), pc, ch_grid.c, sd)
                .variant("grid search over the 101-point log2 grid"),
            Item::sampled(Kind::Paper, &format!("Table 2, Ĉ at μ = {mu}"), pc, ch_off.c, sd_off)
                .variant("eq. 3 off the diagonal"),
            Item::derived(Kind::Paper, &format!("Table 2, A(Ĉ) at μ = {mu}"), pa, ch.alignment),
            Item::sampled(Kind::Paper, &format!("Table 2, S(Ĉ) at μ = {mu}"), ps, ch.sparsity, sd_s)
                .because(why_s),
            Item::sampled(Kind::Paper, &format!("Table 2, S(Ĉ) at μ = {mu}"), ps, ch_off.sparsity, sd_s_off)
                .variant("eq. 3 off the diagonal"),
        ]);
        c_agree.push(((ch.c - pc).abs() <= 2.0 * sd, ch.c, pc, sd));
        cs.push(ch.c);
        eq9.push(json!({"mu": mu, "c": ch.c, "a": ch.alignment, "s": ch.sparsity, "c_offdiag": ch_off.c,
                        "c_spread": others}));
        table.push(Row {
            quantity: format!("eq. 9, μ = {mu}: Ĉ / A / S"),
            paper: format!("{pc} / {pa} / {ps}"),
            ours: format!("{:.3} / {:.3} / {:.3}", ch.c, ch.alignment, ch.sparsity),
            note: format!(
                "eq. 3 as printed (diagonal included), exact search; off-diagonal reading Ĉ = {:.3}; Ĉ over 10 \
                 other centre draws and training sets: mean {m:.3}, sd {sd:.3}",
                ch_off.c
            ),
        });
    }
    let a_up = curve.alignment.windows(2).all(|w| w[1] >= w[0] - 1e-12);
    let s_down = curve.sparsity.windows(2).all(|w| w[1] <= w[0] + 1e-12);
    let (a0, a1) = (curve.alignment[0], *curve.alignment.last().unwrap_or(&f64::NAN));
    let (s0, s1) = (curve.sparsity[0], *curve.sparsity.last().unwrap_or(&f64::NAN));
    // A(C → 0) as printed: K_C keeps only its diagonal K_ii = 1, so A → n / (√ΣK² · √n).
    let k = kern_core::gram(&base, &x)?;
    let sum_k2: f64 = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| k[(i, j)].powi(2)).sum();
    let limit = (n as f64 / sum_k2).sqrt();
    // S(C → 0) as printed: every off-diagonal entry vanishes, the non-zero diagonal entries stay.
    let s_limit = 1.0 - (0..n).filter(|&i| k[(i, i)] != 0.0).count() as f64 / (n * n) as f64;
    let off_up = curve_off.alignment.windows(2).all(|w| w[1] >= w[0] - 1e-12);
    let (o0, o1) = (curve_off.alignment[0], *curve_off.alignment.last().unwrap_or(&f64::NAN));
    table.push(Row {
        quantity: "A(C) as C → 0, eq. 3 as printed".into(),
        paper: "0 (Theorem 1(i))".into(),
        ours: format!("{limit:.3}"),
        note: "√(n / Σᵢⱼ K²ᵢⱼ): the diagonal of K_C stays 1 for every C > 0".into(),
    });
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "§3.1, Theorem 1(i)".into(),
            claim: "Theorem 1(i): A(C) → 0 as C → 0 (eq. 3 as printed, diagonal included)".into(),
            holds: limit == 0.0,
            evidence: format!(
                "the limit is √(n / Σ K²) = {limit:.3} > 0 on every data set; A(2^-5) = {a0:.4}. Off the diagonal \
                 A(2^-5) = {o0:.4} and the limit is 0"
            ),
        },
        Claim {
            kind: Kind::Paper,
            source: "§3.1, Theorem 1(ii), (iii)".into(),
            claim: "Theorem 1(ii), (iii): A(C) increases in C towards 1".into(),
            holds: a_up && a1 > 0.99,
            evidence: format!("monotone on the 101-point grid: {a_up}; A(2^5) = {a1:.4}"),
        },
        Claim {
            kind: Kind::OtherReading,
            source: "§3.1, Theorem 1".into(),
            claim: "off-diagonal reading of eq. 3: A(C) increases in C, from 0 towards 1".into(),
            holds: off_up && o0 < 0.1 && o1 > 0.99,
            evidence: format!("monotone: {off_up}; A(2^-5) = {o0:.4}, A(2^5) = {o1:.4}"),
        },
        Claim {
            kind: Kind::Paper,
            source: "§3.2, Theorem 2(i)".into(),
            claim: "Theorem 2(i): S(C) → 1 as C → 0 (eq. 7 as printed, n² entries)".into(),
            holds: s_limit == 1.0,
            evidence: format!(
                "eq. 7 counts the diagonal entries k_C(x, x) = k(x, x), which are never 0, so the limit is \
                 {s_limit:.4} = 1 − 1/n (S(2^-5) = {s0:.4}); off the diagonal the limit is 1"
            ),
        },
        Claim {
            kind: Kind::Paper,
            source: "§3.2, Theorem 2(ii), (iii)".into(),
            claim: "Theorem 2(ii), (iii): S(C) decreases in C towards 0".into(),
            holds: s_down && s1 == 0.0,
            evidence: format!("monotone on the 101-point grid: {s_down}; S(2^5) = {s1:.4}"),
        },
        Claim {
            kind: Kind::Paper,
            source: "§3.3 eq. 9, Table 2 (Ĉ column)".into(),
            claim: "Ĉ of eq. 9 grows with μ".into(),
            holds: cs.windows(2).all(|w| w[1] >= w[0]),
            evidence: format!("Ĉ = {cs:.3?}"),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"curve": {"c": curve.c, "alignment": curve.alignment, "sparsity": curve.sparsity},
                        "curve_offdiag": {"c": curve_off.c, "alignment": curve_off.alignment, "sparsity": curve_off.sparsity},
                        "limit_c0": limit, "eq8": eq8, "eq9": eq9}),
        sizes: json!({"n": n, "sigma": 0.6, "nu": 3, "grid": grid.len(), "spread_sets": 10}),
        seeds: vec![ctx.seed, ctx.seed + 10, ctx.seed + 500],
        table,
        claims,
        figures: vec!["csrbf-alignment-fig3.svg".into(), "csrbf-alignment-fig5.svg".into()],
        items,
        captions: Vec::new(),
    }))
}

/// The three clusters of Example 3 (Schölkopf & Smola): 30 points each around (−0.5, −0.2), (0, 0.6),
/// (0.5, 0) with covariance 0.01·I; returns the samples and the cluster of each point.
pub fn three_clusters(seed: u64) -> (kern_core::Samples, Vec<usize>) {
    use rand_distr::{Distribution, Normal};
    let mut r = crate::datasets::rng(seed);
    let noise = Normal::new(0.0, 0.1).expect("valid normal");
    let centres = [[-0.5, -0.2], [0.0, 0.6], [0.5, 0.0]];
    let mut data = Vec::with_capacity(180);
    let mut labels = Vec::with_capacity(90);
    for (c, m) in centres.iter().enumerate() {
        for _ in 0..30 {
            data.push(m[0] + noise.sample(&mut r));
            data.push(m[1] + noise.sample(&mut r));
            labels.push(c);
        }
    }
    (kern_core::Samples::from_flat(data, 90, 2).expect("finite"), labels)
}

/// Example 3 / Fig. 8: kernel PCA of the three clusters with the compactly supported Gaussian, C chosen
/// by eq. 8 with γ = 0.3. The paper does not give the Gaussian's width; we use exp(−r²/0.1) (σ² = 0.1,
/// the width of Schölkopf & Smola's version of this example, which the paper says it follows). Eight
/// components, drawn in one figure as grey-level maps over [−1, 1] × [−0.6, 1] (dark = large) with
/// contour lines and the clusters. `results`:
/// `{c, alignment, sparsity, eigenvalues_cs, eigenvalues_gaussian, separated}`.
pub fn kpca(ctx: &Ctx) -> Result<Status> {
    use kern_core::KernelSpec;
    use kern_models::kpca::KernelPcaParams;
    use kern_tune::support::{Procedure, Search, SupportOptions, select_support};
    let (x, labels) = three_clusters(ctx.seed + 3);
    let sigma = 0.1f64.sqrt();
    let base = Gaussian::with_sigma(sigma)?;
    let choice = select_support(
        &base,
        &x,
        Procedure::Combined { gamma: 0.3 },
        &Search::Exact,
        &SupportOptions::default(),
    )?;
    let cs: KernelSpec = format!("cs-gaussian:sigma={sigma},c={},nu=3", choice.c).parse()?;
    let gauss: KernelSpec = format!("gaussian:sigma={sigma}").parse()?;
    let m_cs = KernelPcaParams::new(cs, 8).fit(&x)?;
    let m_g = KernelPcaParams::new(gauss, 8).fit(&x)?;
    // Separation in the first two components: every point nearest to its own cluster's centroid.
    let z = m_cs.training_scores();
    let mut cent = [[0.0f64; 2]; 3];
    for (i, &c) in labels.iter().enumerate() {
        cent[c][0] += z[(i, 0)] / 30.0;
        cent[c][1] += z[(i, 1)] / 30.0;
    }
    let d2 = |p: [f64; 2], q: [f64; 2]| (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
    let separated = labels.iter().enumerate().all(|(i, &c)| {
        let p = [z[(i, 0)], z[(i, 1)]];
        (0..3).all(|o| o == c || d2(p, cent[c]) < d2(p, cent[o]))
    });
    // Component maps: one figure, a panel per component, with the clusters on top.
    let cells = 60;
    let (gx, gy) = ((-1.0, 1.0), (-0.6, 1.0));
    let centres = crate::figures::Grid::centres(gx, gy, cells);
    let flat: Vec<f64> = centres.iter().flat_map(|&(a, b)| [a, b]).collect();
    let g = kern_core::Samples::from_flat(flat, cells * cells, 2)?;
    let proj = m_cs.transform(&g)?;
    let panels: Vec<crate::figures::Panel> = (0..8.min(proj.ncols()))
        .map(|comp| crate::figures::Panel {
            title: format!("component {}", comp + 1),
            grid: crate::figures::Grid {
                x: gx,
                y: gy,
                cells,
                values: (0..proj.nrows()).map(|r| proj[(r, comp)]).collect(),
            },
            levels: 7,
        })
        .collect();
    let groups: Vec<crate::figures::Group> = (0..3)
        .map(|c| {
            let pts = (0..x.n()).filter(|&i| labels[i] == c).map(|i| (x.row(i)[0], x.row(i)[1])).collect();
            crate::figures::Group::points(&format!("cluster {}", c + 1), pts)
        })
        .collect();
    let f = "csrbf-kpca-components.svg";
    crate::figures::field_panels(
        &ctx.dir.join(f),
        "Fig. 8: kernel PCA components, compactly supported Gaussian",
        ("x1", "x2"),
        &panels,
        &groups,
        4,
    )?;
    let figures = vec![f.to_string()];
    let ev = m_cs.eigenvalues().to_vec();
    let evg = m_g.eigenvalues().to_vec();
    let table = vec![
        Row {
            quantity: "Ĉ / S / A (eq. 8, γ = 0.3)".into(),
            paper: "0.758 / 0.559 / 0.936".into(),
            ours: format!("{:.3} / {:.3} / {:.3}", choice.c, choice.sparsity, choice.alignment),
            note: "exact search over the sorted distances; our own draw; σ² = 0.1 (paper silent)".into(),
        },
        Row {
            quantity: "eigenvalues 1–8, k_C".into(),
            paper: "— (figure)".into(),
            ours: ev.iter().map(|v| format!("{v:.4}")).collect::<Vec<_>>().join(", "),
            note: format!(
                "Gaussian: {}",
                evg.iter().map(|v| format!("{v:.4}")).collect::<Vec<_>>().join(", ")
            ),
        },
    ];
    let draw = "Ĉ of our own 90-point draw (the paper's points are not published)";
    let items = vec![
        Item::derived(Kind::Paper, "Example 3, Ĉ (eq. 8, γ = 0.3)", 0.758, choice.c).because(draw),
        Item::derived(Kind::Paper, "Example 3, S(Ĉ)", 0.559, choice.sparsity).because(draw),
        Item::derived(Kind::Paper, "Example 3, A(Ĉ)", 0.936, choice.alignment).because(draw),
    ];
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "Example 3, Fig. 8".into(),
            claim: "the first two components have the largest eigenvalues and separate the three clusters"
                .into(),
            holds: separated && ev.len() > 2 && ev[1] > 1.5 * ev[2],
            evidence: format!(
                "nearest-centroid separation in (z1, z2): {separated}; λ2/λ3 = {:.2}",
                ev[1] / ev[2]
            ),
        },
        Claim {
            kind: Kind::Paper,
            source: "Example 3".into(),
            claim: "the large eigenvalues of K_C are attenuated relative to the Gaussian's".into(),
            holds: ev[0] < evg[0] && ev[1] < evg[1],
            evidence: format!("λ1 {:.4} vs {:.4}, λ2 {:.4} vs {:.4}", ev[0], evg[0], ev[1], evg[1]),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"c": choice.c, "alignment": choice.alignment, "sparsity": choice.sparsity,
                        "eigenvalues_cs": ev, "eigenvalues_gaussian": evg, "separated": separated}),
        sizes: json!({"n": 90, "sigma2": 0.1, "nu": 3, "components": 8}),
        seeds: vec![ctx.seed + 3],
        table,
        claims,
        figures,
        items,
        captions: Vec::new(),
    }))
}

/// The Bayes error of the green-red mixture (equal priors): `½ ∫ min(p₊, p₋) dx`, integrated on a
/// 600 × 600 grid over the mixture's support (±2 around every centre, where the densities are
/// negligible beyond).
pub fn bayes_error(m: &crate::datasets::GreenRed) -> f64 {
    bayes_error_on(m, 600)
}

fn bayes_error_on(m: &crate::datasets::GreenRed, cells: usize) -> f64 {
    let all: Vec<[f64; 2]> = m.centres_neg.iter().chain(&m.centres_pos).copied().collect();
    let (mut x0, mut x1, mut y0, mut y1) =
        (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for c in &all {
        x0 = x0.min(c[0] - 2.0);
        x1 = x1.max(c[0] + 2.0);
        y0 = y0.min(c[1] - 2.0);
        y1 = y1.max(c[1] + 2.0);
    }
    let (hx, hy) = ((x1 - x0) / cells as f64, (y1 - y0) / cells as f64);
    let mut s = 0.0;
    for i in 0..cells {
        for j in 0..cells {
            let p = [x0 + (i as f64 + 0.5) * hx, y0 + (j as f64 + 0.5) * hy];
            s += m.density(p, true).min(m.density(p, false));
        }
    }
    0.5 * s * hx * hy
}

/// The paper's Bayes error of its green-red draw (§4.1: "The Bayes rule has the test error 0.218").
pub const PAPER_BAYES: f64 = 0.218;

/// The green-red centre draw of every csrbf experiment: the first of `GreenRed::new(seed + 1000 + k)`,
/// k = 0, 1, …, 199, whose Bayes error is within 0.01 of the paper's [`PAPER_BAYES`] (the paper's centres
/// are not published; over random draws the Bayes error has mean ≈ 0.19 and sd ≈ 0.056, so a draw
/// taken blindly usually puts every classifier on a much lower floor than the paper's). The target comes
/// from the paper, never from our classifiers. Returns the mixture, the draw index `k` and its Bayes error.
pub fn paper_mixture(seed: u64) -> (crate::datasets::GreenRed, u64, f64) {
    let mut best: Option<(crate::datasets::GreenRed, u64, f64)> = None;
    for k in 0..200 {
        let m = crate::datasets::GreenRed::new(seed.wrapping_add(1000 + k));
        // A coarse grid screens; the chosen draw is confirmed on the fine one.
        let coarse = bayes_error_on(&m, 150);
        if (coarse - PAPER_BAYES).abs() <= 0.015 {
            let fine = bayes_error(&m);
            if (fine - PAPER_BAYES).abs() <= 0.01 {
                return (m, k, fine);
            }
        }
        let better = best.as_ref().is_none_or(|b| (coarse - PAPER_BAYES).abs() < (b.2 - PAPER_BAYES).abs());
        if better {
            best = Some((m, k, coarse));
        }
    }
    // No draw within 0.01 in 200 (never seen): the closest one, its Bayes error recomputed finely.
    let (m, k, _) = best.expect("200 draws were made");
    let b = bayes_error(&m);
    (m, k, b)
}

/// One SVM fitted by [`svm`]'s grid search: C, test error, support vectors, model, searched range.
struct Fitted {
    c: f64,
    err: f64,
    n_sv: usize,
    model: kern_models::svm::Svc,
    range: String,
}

/// Table 2 / Fig. 6 (numbers): green-red ([`paper_mixture`]), σ = 0.6, 200 training and 10,000 test points
/// (2000 with `--quick`); the support C of the compact kernel chosen by eq. 9 (eq. 3 as printed) for
/// μ ∈ {0.90, 0.95, 0.98, 0.99}; the SVM's C by 10-fold CV over
/// 2^-7..2^9 (17 values), extended by 2^4 on a side whose edge is chosen; test error beside the Gaussian SVM and the Bayes error of our mixture
/// (computed by integrating the exact densities); decision-boundary figures (Fig. 6) of the Gaussian and the
/// μ = 0.98 k_C machines (the paper's choice) with the Bayes boundary.
/// `results`: `{bayes_error, bayes_rule_test_error, gaussian: {c_svm, test_error, n_sv}, cs: [{mu, c, a, s,
/// c_svm, test_error, n_sv}]}`.
pub fn svm(ctx: &Ctx) -> Result<Status> {
    use crate::tuning::search_extending;
    use kern_core::{BinaryTargets, KernelSpec, learner::Model};
    use kern_models::svm::SvcParams;
    use kern_tune::cv::CvConfig;
    use kern_tune::grid::{GridSearchConfig, ParamGrid, grid_search};
    use kern_tune::support::{Procedure, Search, SupportOptions, SupportProfile};
    let (mixture, draw, _) = paper_mixture(ctx.seed);
    let (x, y) = mixture.sample(200, ctx.seed + 10);
    // A larger test set than the paper's 1000 points narrows our sampling error; it changes nothing else.
    let n_test = if ctx.quick { 2000 } else { 10_000 };
    let (xt, yt) = mixture.sample(n_test, ctx.seed + 11);
    let y = BinaryTargets::from_f64(&y)?;
    let cfg = GridSearchConfig { cv: CvConfig::k_fold(10, ctx.seed + 12), refit: true };
    // C by 10-fold CV over 2^-7..2^9; a choice on the grid's edge extends the grid by 2^4 on that side
    // (up to 2^-19..2^21) and searches again, so no selection rests on the edge.
    let fit = |spec: KernelSpec| -> Result<Fitted> {
        let ext = search_extending(&"c=2^-7..2^9:17".parse::<ParamGrid>()?, &["c"], 16.0, |g| {
            Ok(grid_search(
                g,
                |p| Ok::<_, kern_models::ModelsError>(SvcParams::new(spec.clone()).c(p["c"])),
                &x,
                &y,
                &cfg,
            )?)
        })?;
        let range = ext.describe();
        let report = ext.report;
        let c = report.best_params()["c"];
        let model = crate::tuning::refitted(&report.model)?;
        let pred = model.predict(&xt)?;
        let err =
            pred.iter().zip(&yt).filter(|(p, t)| (**p > 0.0) != (**t > 0.0)).count() as f64 / yt.len() as f64;
        let n_sv = model.stats().iter().map(|s| s.n_sv).sum();
        Ok(Fitted { c, err, n_sv, model: model.clone(), range })
    };
    let bayes = bayes_error(&mixture);
    let yv: Vec<f64> = y.y().to_vec();
    fig4(
        &ctx.dir.join("csrbf-svm-fig4-train.svg"),
        "Fig. 4 (left): the 200 training points and the Bayes boundary",
        &mixture,
        &x,
        &yv,
    )?;
    let first: Vec<usize> = (0..1000.min(xt.n())).collect();
    fig4(
        &ctx.dir.join("csrbf-svm-fig4-test.svg"),
        "Fig. 4 (right): 1000 test points and the Bayes boundary",
        &mixture,
        &xt.select(&first)?,
        &yt[..first.len()],
    )?;
    let bayes_rule = (0..xt.n())
        .filter(|&i| (mixture.bayes([xt.row(i)[0], xt.row(i)[1]]) > 0.0) != (yt[i] > 0.0))
        .count() as f64
        / xt.n() as f64;
    let Fitted { c: gc, err: gerr, n_sv: gsv, model: gmodel, range: grange } =
        fit("gaussian:sigma=0.6".parse()?)?;
    let printed = SupportOptions { diagonal: kern_tune::support::Diagonal::Include, ..Default::default() };
    let profile = SupportProfile::new(&Gaussian::with_sigma(0.6)?, &x, &printed)?;
    let paper = [(0.90, 0.236), (0.95, 0.229), (0.98, 0.229), (0.99, 0.228)];
    let mut rows = Vec::new();
    let mut table = Vec::new();
    let mut errs = Vec::new();
    let mut items = Vec::new();
    let mut figures = vec!["csrbf-svm-fig4-train.svg".to_string(), "csrbf-svm-fig4-test.svg".to_string()];
    let mut captions = Vec::new();
    for (mu, paper_err) in paper {
        let ch = profile.select(Procedure::MinAlignment { mu }, &Search::Exact)?;
        let Fitted { c: c_svm, err, n_sv, model, range } =
            fit(format!("cs-gaussian:sigma=0.6,c={},nu=3", ch.c).parse()?)?;
        if mu == 0.98 {
            let f = "csrbf-svm-boundary-cs.svg";
            let title = "Fig. 6: k_C SVM, C by eq. 9 (μ = 0.98)";
            boundary_figure(&ctx.dir.join(f), title, &model, &mixture, &x, &y)?;
            figures.push(f.to_string());
            captions.push((
                f.to_string(),
                format!(
                    "Ĉ = {:.3} (S = {:.3}); SVM C = {c_svm} by 10-fold CV over {range}; {n_sv} SVs; test error \
                     {err:.3} on {n_test} points.",
                    ch.c, ch.sparsity
                ),
            ));
        }
        errs.push(err);
        items.push(
            Item::error_rate(
                Kind::Paper,
                &format!("Table 2, test error at μ = {mu}"),
                paper_err,
                err,
                1000,
                n_test,
            )
            .because("our centre draw and training set (the paper's are not published)"),
        );
        rows.push(json!({"mu": mu, "c": ch.c, "a": ch.alignment, "s": ch.sparsity, "c_svm": c_svm, "test_error": err, "n_sv": n_sv}));
        table.push(Row {
            quantity: format!("test error, k_C with μ = {mu}"),
            paper: format!("{paper_err}"),
            ours: format!("{err:.3}"),
            note: format!(
                "Ĉ = {:.3}, S = {:.3}; SVM C = {c_svm} by 10-fold CV over {range}; {n_sv} SVs",
                ch.c, ch.sparsity,
            ),
        });
    }
    items.push(
        Item::error_rate(
            Kind::Paper,
            "Table 2, test error of the Gaussian kernel",
            0.228,
            gerr,
            1000,
            n_test,
        )
        .because("our centre draw and training set (the paper's are not published)"),
    );
    items.push(Item::derived(Kind::Identity, "§4.1, Bayes error", 0.218, bayes).because(
        "the centre draw is picked for a Bayes error within 0.01 of the paper's, so this cannot fail",
    ));
    table.push(Row {
        quantity: "test error, Gaussian".into(),
        paper: "0.228".into(),
        ours: format!("{gerr:.3}"),
        note: format!("SVM C = {gc} by 10-fold CV over {grange}; {gsv} SVs"),
    });
    table.push(Row {
        quantity: "Bayes error".into(),
        paper: "0.218".into(),
        ours: format!("{bayes:.3}"),
        note: format!(
            "exact densities of our mixture (centre draw {draw}: the first whose Bayes error is within 0.01 of \
             the paper's 0.218); the Bayes rule errs on {bayes_rule:.3} of our {n_test} test points"
        ),
    });
    let f = "csrbf-svm-boundary-gaussian.svg";
    boundary_figure(&ctx.dir.join(f), "Gaussian SVM, σ = 0.6", &gmodel, &mixture, &x, &y)?;
    figures.push(f.to_string());
    captions.push((
        f.to_string(),
        format!(
            "SVM C = {gc} by 10-fold CV over {grange}; {gsv} SVs; test error {gerr:.3} on {n_test} points."
        ),
    ));
    let best_cs = errs.iter().copied().fold(f64::INFINITY, f64::min);
    let tol = 1.96 * (2.0 * 0.228 * 0.772 / n_test as f64).sqrt();
    let claims = vec![
        Claim {
            kind: Kind::Paper,
            source: "§4.1, Table 2".into(),
            claim: "compactly supported kernels (μ ≥ 0.95) reach the Gaussian's test error (paper: 0.229 vs 0.228)".into(),
            holds: errs[1..].iter().all(|e| *e <= gerr + tol),
            evidence: format!(
                "k_C errors {errs:.3?} vs Gaussian {gerr:.3}; tolerance {tol:.4} = 1.96·√(2p(1−p)/n_test) with the \
                 paper's p = 0.228 and n_test = {n_test}"
            ),
        },
        Claim {
            kind: Kind::Identity,
            source: "".into(),
            claim: "no classifier beats the Bayes error".into(),
            holds: best_cs.min(gerr) >= bayes - 0.03,
            evidence: format!("best test error {:.3} vs Bayes {bayes:.3} (tolerance 0.03)", best_cs.min(gerr)),
        },
    ];
    Ok(Status::Done(Outcome {
        results: json!({"bayes_error": bayes, "bayes_rule_test_error": bayes_rule,
                        "gaussian": {"c_svm": gc, "test_error": gerr, "n_sv": gsv}, "cs": rows}),
        sizes: json!({"train": 200, "test": n_test, "sigma": 0.6, "nu": 3, "cv_folds": 10, "centre_draw": draw}),
        seeds: vec![ctx.seed, ctx.seed + 10, ctx.seed + 11, ctx.seed + 12],
        table,
        claims,
        figures,
        items,
        captions,
    }))
}

/// Fig. 6: the SVM's decision function as a heat map with its zero level (black), the Bayes boundary of the
/// mixture (green, log-density ratio = 0) and the training points, support vectors as bubbles.
fn boundary_figure(
    path: &std::path::Path,
    title: &str,
    model: &kern_models::svm::Svc,
    mixture: &crate::datasets::GreenRed,
    x: &kern_core::Samples,
    y: &kern_core::BinaryTargets,
) -> Result<()> {
    use crate::figures::{Contour, Grid, Group, field_with};
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for r in x.rows() {
        for k in 0..2 {
            lo[k] = lo[k].min(r[k]);
            hi[k] = hi[k].max(r[k]);
        }
    }
    let (xr, yr) = ((lo[0] - 0.3, hi[0] + 0.3), (lo[1] - 0.3, hi[1] + 0.3));
    let cells = 96;
    let centres = Grid::centres(xr, yr, cells);
    let flat: Vec<f64> = centres.iter().flat_map(|&(a, b)| [a, b]).collect();
    let dec = model.decision_function(&kern_core::Samples::from_flat(flat, centres.len(), 2)?)?;
    let g = Grid { x: xr, y: yr, cells, values: dec.col(0).iter().copied().collect() };
    let bayes = bayes_grid(mixture, xr, yr, cells);
    let sv = model.support_vectors();
    let pts = |sign: f64| -> Vec<(f64, f64)> {
        x.rows().zip(y.y()).filter(|(_, t)| **t == sign).map(|(r, _)| (r[0], r[1])).collect()
    };
    let groups = [
        Group::points("class −1 (green)", pts(-1.0)),
        Group::points("class +1 (red)", pts(1.0)),
        Group {
            name: "support vectors".into(),
            points: sv.rows().map(|r| (r[0], r[1])).collect(),
            sizes: vec![1.0; sv.n()],
        },
    ];
    let contours = [
        Contour { grid: &bayes, label: "Bayes rule boundary", dashed: false },
        Contour { grid: &g, label: "SVM boundary f(x) = 0", dashed: true },
    ];
    field_with(path, title, ("x1", "x2", "SVM decision value f(x)"), &g, true, &contours, &groups)
}

/// The log-density ratio `log p₊/p₋` of the mixture on a grid (its zero set is the Bayes boundary).
fn bayes_grid(
    mixture: &crate::datasets::GreenRed,
    xr: (f64, f64),
    yr: (f64, f64),
    cells: usize,
) -> crate::figures::Grid {
    crate::figures::Grid::sample(xr, yr, cells, |a, b| {
        (mixture.density([a, b], true).max(1e-300) / mixture.density([a, b], false).max(1e-300)).ln()
    })
}

/// Fig. 4: the points of one sample by class, the 20 centres, and the Bayes boundary.
fn fig4(
    path: &std::path::Path,
    title: &str,
    mixture: &crate::datasets::GreenRed,
    x: &kern_core::Samples,
    y: &[f64],
) -> Result<()> {
    use crate::figures::{Contour, Group, field_with};
    let (xr, yr) = ((-3.0, 4.5), (-3.0, 4.5));
    let bayes = bayes_grid(mixture, xr, yr, 160);
    let pts = |sign: f64| -> Vec<(f64, f64)> {
        x.rows().zip(y).filter(|(_, t)| **t == sign).map(|(r, _)| (r[0], r[1])).collect()
    };
    let groups = [
        Group::points("class −1 (green)", pts(-1.0)),
        Group::points("class +1 (red)", pts(1.0)),
        Group {
            name: "centres, green class".into(),
            points: mixture.centres_neg.iter().map(|c| (c[0], c[1])).collect(),
            sizes: vec![1.0; mixture.centres_neg.len()],
        },
        Group {
            name: "centres, red class".into(),
            points: mixture.centres_pos.iter().map(|c| (c[0], c[1])).collect(),
            sizes: vec![1.0; mixture.centres_pos.len()],
        },
    ];
    let contours = [Contour { grid: &bayes, label: "Bayes rule boundary", dashed: false }];
    field_with(path, title, ("x1", "x2", ""), &bayes, false, &contours, &groups)
}

#[cfg(test)]
mod tests {
    #[test]
    fn paper_mixture_as_documented() {
        let (m, k, b) = crate::papers::csrbf::paper_mixture(1);
        assert!((b - 0.218).abs() <= 0.0101, "k = {k}, Bayes error {b}");
        assert_eq!(m.centres_neg.len(), 10);
    }
}
