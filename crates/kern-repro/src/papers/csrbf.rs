//! Zhang, Genton & Liu (2004), compactly supported RBF kernels.

use crate::Result;
use crate::figures::{Series, line_chart};
use crate::registry::{Claim, Ctx, Outcome, Row, Status};
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
            claim: "k_C ≤ k everywhere (φ_C ≤ 1)".into(),
            holds: below,
            evidence: "checked on 501 points r ∈ [0, 5] for all 8 curves".into(),
        },
        Claim {
            claim: "k_C has support [0, C] (zero for r ≥ C)".into(),
            holds: zero_beyond,
            evidence: "every sampled r ≥ C gives exactly 0".into(),
        },
        Claim {
            claim: "at fixed C, larger ν decays faster".into(),
            holds: dec_nu,
            evidence: "curves ordered ν = 1 ≥ 3 ≥ 5 ≥ 7 pointwise on [0, 1)".into(),
        },
        Claim {
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
    }))
}
