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
    legend(&mut chart).map_err(|e| fig(&e))?;
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

/// One group of a scatter plot: points, and optionally one size per point (a bubble plot).
#[derive(Clone, Debug)]
pub struct Group {
    /// Legend label.
    pub name: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
    /// Bubble sizes (any non-negative scale; drawn with radii up to 12 px), or empty for plain markers.
    pub sizes: Vec<f64>,
}

impl Group {
    /// A group of plain markers.
    ///
    /// ```
    /// let g = kern_repro::figures::Group::points("class +1", vec![(0.0, 1.0)]);
    /// assert!(g.sizes.is_empty());
    /// ```
    pub fn points(name: &str, points: Vec<(f64, f64)>) -> Self {
        Group { name: name.into(), points, sizes: Vec::new() }
    }
}

fn bounds<'a>(pts: impl Iterator<Item = &'a (f64, f64)>) -> Option<(f64, f64, f64, f64)> {
    let (mut x0, mut x1, mut y0, mut y1) =
        (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts.filter(|(x, y)| x.is_finite() && y.is_finite()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    x0.is_finite().then(|| {
        let (px, py) = (((x1 - x0) * 0.04).max(1e-9), ((y1 - y0) * 0.04).max(1e-9));
        (x0 - px, x1 + px, y0 - py, y1 + py)
    })
}

/// Draws scatter groups (bubbles where `sizes` is given) into an SVG file.
///
/// ```
/// use kern_repro::figures::{scatter, Group};
/// let p = std::env::temp_dir().join("kern-doc-scatter.svg");
/// let a = Group { name: "|a_i|".into(), points: vec![(0.0, 0.0), (1.0, 1.0)], sizes: vec![0.5, 2.0] };
/// scatter(&p, "bubbles", "x1", "x2", &[a, Group::points("b", vec![(0.5, 0.2)])])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<circle"));
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn scatter(path: &Path, title: &str, xlabel: &str, ylabel: &str, groups: &[Group]) -> Result<()> {
    let fig = |e: &dyn std::fmt::Display| ReproError::Figure(format!("{}: {e}", path.display()));
    let (x0, x1, y0, y1) =
        bounds(groups.iter().flat_map(|g| g.points.iter())).ok_or_else(|| fig(&"no finite points"))?;
    let root = SVGBackend::new(path, (640, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| fig(&e))?;
    chart.configure_mesh().x_desc(xlabel).y_desc(ylabel).draw().map_err(|e| fig(&e))?;
    draw_groups(&mut chart, groups).map_err(|e| fig(&e))?;
    legend(&mut chart).map_err(|e| fig(&e))?;
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}

type Chart<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The legend box of every chart of this module.
fn legend(chart: &mut Chart<'_>) -> std::result::Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

fn draw_groups(chart: &mut Chart<'_>, groups: &[Group]) -> std::result::Result<(), String> {
    let smax = groups.iter().flat_map(|g| g.sizes.iter()).fold(0.0f64, |m, &s| m.max(s.abs()));
    for (i, g) in groups.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let sized = !g.sizes.is_empty() && g.sizes.len() == g.points.len() && smax > 0.0;
        let radius =
            |k: usize| if sized { (12.0 * (g.sizes[k].abs() / smax).sqrt()).round() as i32 } else { 3 };
        chart
            .draw_series(g.points.iter().enumerate().filter(|(k, _)| radius(*k) > 0).map(|(k, &p)| {
                Circle::new(p, radius(k), if sized { color.stroke_width(1) } else { color.filled() })
            }))
            .map_err(|e| e.to_string())?
            .label(g.name.clone())
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
    }
    Ok(())
}

/// A scalar field sampled on a regular grid over a rectangle, for [`field`].
#[derive(Clone, Debug)]
pub struct Grid {
    /// `x` range.
    pub x: (f64, f64),
    /// `y` range.
    pub y: (f64, f64),
    /// Cells per side.
    pub cells: usize,
    /// Values, row-major with row `i` at `y = y.0 + (i + ½)·Δy` and column `j` at `x = x.0 + (j + ½)·Δx`.
    pub values: Vec<f64>,
}

impl Grid {
    /// Samples `f` at the cell centres.
    ///
    /// ```
    /// let g = kern_repro::figures::Grid::sample((0.0, 1.0), (0.0, 1.0), 4, |x, y| x - y);
    /// assert_eq!(g.values.len(), 16);
    /// assert!((g.values[0] - 0.0).abs() < 1e-12);
    /// ```
    pub fn sample(x: (f64, f64), y: (f64, f64), cells: usize, f: impl Fn(f64, f64) -> f64) -> Self {
        let values = Self::centres(x, y, cells).into_iter().map(|(a, b)| f(a, b)).collect();
        Grid { x, y, cells, values }
    }

    /// The cell centres in the order of `values` (for evaluating a model in one batch).
    ///
    /// ```
    /// let c = kern_repro::figures::Grid::centres((0.0, 2.0), (0.0, 2.0), 2);
    /// assert_eq!(c, vec![(0.5, 0.5), (1.5, 0.5), (0.5, 1.5), (1.5, 1.5)]);
    /// ```
    pub fn centres(x: (f64, f64), y: (f64, f64), cells: usize) -> Vec<(f64, f64)> {
        let (dx, dy) = ((x.1 - x.0) / cells as f64, (y.1 - y.0) / cells as f64);
        (0..cells * cells)
            .map(|k| (x.0 + (k % cells) as f64 * dx + dx / 2.0, y.0 + (k / cells) as f64 * dy + dy / 2.0))
            .collect()
    }
}

/// Draws a field as a blue–white–red heat map (symmetric around 0; shading off with `shade = false`),
/// its zero level sets as black lines (one per entry of `zero_of`: a grid whose sign change is drawn, e.g.
/// a decision function and the Bayes rule), and scatter groups on top.
///
/// ```
/// use kern_repro::figures::{field, Grid, Group};
/// let p = std::env::temp_dir().join("kern-doc-field.svg");
/// let g = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 20, |x, y| x * x + y * y - 0.5);
/// field(&p, "circle", &g, true, &[&g], &[Group::points("o", vec![(0.0, 0.0)])])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn field(
    path: &Path,
    title: &str,
    g: &Grid,
    shade: bool,
    zero_of: &[&Grid],
    groups: &[Group],
) -> Result<()> {
    let fig = |e: &dyn std::fmt::Display| ReproError::Figure(format!("{}: {e}", path.display()));
    let n = g.cells;
    if n == 0 || g.values.len() != n * n || zero_of.iter().any(|z| z.values.len() != z.cells * z.cells) {
        return Err(fig(&"grid values are not cells × cells"));
    }
    let root = SVGBackend::new(path, (600, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(40)
        .build_cartesian_2d(g.x.0..g.x.1, g.y.0..g.y.1)
        .map_err(|e| fig(&e))?;
    chart.configure_mesh().disable_mesh().draw().map_err(|e| fig(&e))?;
    if shade {
        let m =
            g.values.iter().fold(0.0f64, |m, v| if v.is_finite() { m.max(v.abs()) } else { m }).max(1e-300);
        let (dx, dy) = ((g.x.1 - g.x.0) / n as f64, (g.y.1 - g.y.0) / n as f64);
        chart
            .draw_series((0..n * n).map(|k| {
                let t = (g.values[k] / m).clamp(-1.0, 1.0);
                let c = |s: f64| (255.0 * (1.0 - 0.6 * s)) as u8;
                let col = if t >= 0.0 { RGBColor(255, c(t), c(t)) } else { RGBColor(c(-t), c(-t), 255) };
                let (x, y) = (g.x.0 + (k % n) as f64 * dx, g.y.0 + (k / n) as f64 * dy);
                Rectangle::new([(x, y), (x + dx, y + dy)], col.filled())
            }))
            .map_err(|e| fig(&e))?;
    }
    for (z, style) in
        zero_of.iter().zip([BLACK.stroke_width(2), RGBColor(0, 140, 0).stroke_width(2)].iter().cycle())
    {
        let zn = z.cells;
        let c = Grid::centres(z.x, z.y, zn);
        let mut segs = Vec::new();
        for i in 0..zn {
            for j in 0..zn {
                let k = i * zn + j;
                // Sign changes to the right and upwards: a segment across the shared cell edge.
                for (k2, horiz) in
                    [(j + 1 < zn).then_some((k + 1, true)), (i + 1 < zn).then_some((k + zn, false))]
                        .into_iter()
                        .flatten()
                {
                    let (a, b) = (z.values[k], z.values[k2]);
                    if a.is_finite() && b.is_finite() && (a > 0.0) != (b > 0.0) {
                        let t = a / (a - b);
                        let (p, q) = (c[k], c[k2]);
                        let (mx, my) = (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1));
                        let (hx, hy) = ((z.x.1 - z.x.0) / zn as f64 / 2.0, (z.y.1 - z.y.0) / zn as f64 / 2.0);
                        segs.push(if horiz {
                            vec![(mx, my - hy), (mx, my + hy)]
                        } else {
                            vec![(mx - hx, my), (mx + hx, my)]
                        });
                    }
                }
            }
        }
        chart.draw_series(segs.into_iter().map(|s| PathElement::new(s, *style))).map_err(|e| fig(&e))?;
    }
    draw_groups(&mut chart, groups).map_err(|e| fig(&e))?;
    if !groups.is_empty() {
        legend(&mut chart).map_err(|e| fig(&e))?;
    }
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}
