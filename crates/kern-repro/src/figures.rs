//! SVG figures with plotters (SVG backend only: no system libraries needed).

use crate::{ReproError, Result};
use plotters::prelude::*;
use std::path::Path;

/// One named line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
}

/// Draws line series into an SVG file.
///
/// ```
/// use kern_repro::figures::{line_chart, Series};
/// let p = std::env::temp_dir().join("kern-doc-chart.svg");
/// let s = Series { name: "y = x".into(), points: vec![(0.0, 0.0), (1.0, 1.0)] };
/// line_chart(&p, "demo", "x", "y", &[s])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn line_chart(path: &Path, title: &str, xlabel: &str, ylabel: &str, series: &[Series]) -> Result<()> {
    let fig = |e: &dyn std::fmt::Display| ReproError::Figure(format!("{}: {e}", path.display()));
    let (mut x0, mut x1, mut y0, mut y1) =
        (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for s in series {
        for &(x, y) in &s.points {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if !(x0.is_finite() && y0.is_finite()) {
        return Err(fig(&"no finite points"));
    }
    let pad = ((y1 - y0) * 0.05).max(1e-12);
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1.max(x0 + 1e-12), (y0 - pad)..(y1 + pad))
        .map_err(|e| fig(&e))?;
    chart.configure_mesh().x_desc(xlabel).y_desc(ylabel).draw().map_err(|e| fig(&e))?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))
            .map_err(|e| fig(&e))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fig(&e))?;
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}

/// Draws a `cells × cells` density grid (row-major, values in [0, 1]) as a grey-scale spy plot.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-spy.svg");
/// kern_repro::figures::spy(&p, "spy", &[1.0, 0.0, 0.5, 1.0], 2)?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn spy(path: &Path, title: &str, density: &[f64], cells: usize) -> Result<()> {
    let fig = |e: &dyn std::fmt::Display| ReproError::Figure(format!("{}: {e}", path.display()));
    if cells == 0 || density.len() != cells * cells {
        return Err(fig(&"density grid is not cells × cells"));
    }
    let root = SVGBackend::new(path, (420, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .build_cartesian_2d(0..cells, 0..cells)
        .map_err(|e| fig(&e))?;
    chart
        .draw_series((0..cells).flat_map(|i| {
            (0..cells).filter_map(move |j| {
                let v = density[i * cells + j].clamp(0.0, 1.0);
                (v > 0.0).then(|| {
                    let g = (255.0 * (1.0 - v)) as u8;
                    // Row i is drawn from the top, as in MATLAB's spy.
                    Rectangle::new([(j, cells - i - 1), (j + 1, cells - i)], RGBColor(g, g, g).filled())
                })
            })
        }))
        .map_err(|e| fig(&e))?;
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}
