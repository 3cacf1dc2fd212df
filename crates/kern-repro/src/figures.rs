//! SVG figures with plotters (SVG backend only: no system libraries needed).
//!
//! Conventions of every figure: axis labels on both axes, legends in a panel to the right of the data
//! (never over it), titles shrunk to fit the width, colour-blind-safe colours (Okabe–Ito) except where a
//! series is named after a colour ("green", "red"), which is then drawn in that colour; decision fields
//! carry a colour bar, and level sets are traced by marching squares.

use crate::{ReproError, Result};
use plotters::coord::Shift;
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

/// The Okabe–Ito palette (colour-blind safe), black last.
const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// The colour of series `i` named `name`: a series named after a colour gets that colour.
///
/// ```
/// use kern_repro::figures::color_for;
/// assert_eq!(color_for(0, "class −1 (green)"), color_for(5, "green points"));
/// assert_ne!(color_for(0, "a"), color_for(1, "b"));
/// ```
pub fn color_for(i: usize, name: &str) -> (u8, u8, u8) {
    let n = name.to_lowercase();
    let c = if n.contains("green") {
        RGBColor(0, 140, 60)
    } else if n.contains("red") {
        RGBColor(200, 30, 30)
    } else if n.contains("black") {
        RGBColor(0, 0, 0)
    } else if n.contains("grey") {
        RGBColor(180, 180, 180)
    } else if n.contains("blue") {
        RGBColor(0, 114, 178)
    } else {
        OKABE_ITO[i % OKABE_ITO.len()]
    };
    (c.0, c.1, c.2)
}

fn rgb(i: usize, name: &str) -> RGBColor {
    let (r, g, b) = color_for(i, name);
    RGBColor(r, g, b)
}

/// A font size at most `max` at which `text` fits in `width` pixels (plotters' SVG text is laid out by
/// the viewer; sans-serif glyphs average about 0.55 em).
fn fit(text: &str, width: u32, max: u32) -> u32 {
    let chars = text.chars().count().max(1) as f64;
    ((width as f64 / (0.56 * chars)).floor() as u32).clamp(9, max)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn fig_err(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> ReproError + '_ {
    move |e| ReproError::Figure(format!("{}: {e}", path.display()))
}

/// One legend entry: label, colour, and how it is drawn.
struct Entry {
    label: String,
    color: RGBColor,
    kind: Mark,
}

#[derive(Clone, Copy)]
enum Mark {
    Line,
    Dashed,
    Dot,
    Ring,
}

/// Draws the legend entries top-down in `area` (a panel beside the data).
fn draw_legend(area: &Area<'_>, entries: &[Entry]) -> std::result::Result<(), String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let w = area.dim_in_pixel().0;
    for (k, en) in entries.iter().enumerate() {
        let y = 40 + 22 * k as i32;
        match en.kind {
            Mark::Line => area
                .draw(&PathElement::new(vec![(6, y), (30, y)], en.color.stroke_width(2)))
                .map_err(|x| e(&x))?,
            Mark::Dashed => {
                for s in 0..3 {
                    area.draw(&PathElement::new(
                        vec![(6 + 9 * s, y), (12 + 9 * s, y)],
                        en.color.stroke_width(2),
                    ))
                    .map_err(|x| e(&x))?;
                }
            }
            Mark::Dot => area.draw(&Circle::new((18, y), 4, en.color.filled())).map_err(|x| e(&x))?,
            Mark::Ring => area.draw(&Circle::new((18, y), 6, en.color.stroke_width(1))).map_err(|x| e(&x))?,
        }
        let size = fit(&en.label, w.saturating_sub(40), 13);
        area.draw(&Text::new(en.label.clone(), (36, y - size as i32 / 2), ("sans-serif", size)))
            .map_err(|x| e(&x))?;
    }
    Ok(())
}

/// Splits a figure into the title strip, the data panel and (when `legend`) a legend panel on the right.
fn layout<'a>(
    root: &Area<'a>,
    title: &str,
    legend: bool,
    legend_w: u32,
) -> Result<(Area<'a>, Option<Area<'a>>)> {
    let (w, _) = root.dim_in_pixel();
    let size = fit(title, w - 20, 20);
    let titled =
        root.titled(title, ("sans-serif", size)).map_err(|e| ReproError::Figure(format!("title: {e}")))?;
    if legend {
        let (tw, _) = titled.dim_in_pixel();
        let (a, b) = titled.split_horizontally(tw.saturating_sub(legend_w));
        Ok((a, Some(b)))
    } else {
        Ok((titled, None))
    }
}

fn finite_bounds<'a>(pts: impl Iterator<Item = &'a (f64, f64)>) -> Option<(f64, f64, f64, f64)> {
    let (mut x0, mut x1, mut y0, mut y1) =
        (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts.filter(|(x, y)| x.is_finite() && y.is_finite()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    x0.is_finite().then_some((x0, x1, y0, y1))
}

/// Draws line series into an SVG file (legend to the right of the data).
///
/// ```
/// use kern_repro::figures::{line_chart, Series};
/// let p = std::env::temp_dir().join("kern-doc-chart.svg");
/// let s = Series { name: "y = x".into(), points: vec![(0.0, 0.0), (1.0, 1.0)] };
/// line_chart(&p, "demo", "x", "y", &[s])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn line_chart(path: &Path, title: &str, xlabel: &str, ylabel: &str, series: &[Series]) -> Result<()> {
    let fig = fig_err(path);
    let (x0, x1, y0, y1) =
        finite_bounds(series.iter().flat_map(|s| s.points.iter())).ok_or_else(|| fig(&"no finite points"))?;
    let pad = ((y1 - y0) * 0.05).max(1e-12);
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, leg) = layout(&root, title, series.len() > 1, 230)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1.max(x0 + 1e-12), (y0 - pad)..(y1 + pad))
        .map_err(|e| fig(&e))?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .x_desc(xlabel)
        .y_desc(ylabel)
        .draw()
        .map_err(|e| fig(&e))?;
    let mut entries = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let color = rgb(i, &s.name);
        let pts: Vec<(f64, f64)> =
            s.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
        let named =
            ["green", "red", "black", "grey", "blue"].iter().any(|c| s.name.to_lowercase().contains(c));
        let seen = entries.iter().any(|e: &Entry| e.label == s.name);
        if i >= OKABE_ITO.len() - 1 && !named {
            // Past the palette: dashed, so that no two series look alike.
            chart
                .draw_series(DashedLineSeries::new(pts, 6, 4, color.stroke_width(2)))
                .map_err(|e| fig(&e))?;
            entries.push(Entry { label: s.name.clone(), color, kind: Mark::Dashed });
        } else {
            chart.draw_series(LineSeries::new(pts, color.stroke_width(2))).map_err(|e| fig(&e))?;
            if !seen {
                entries.push(Entry { label: s.name.clone(), color, kind: Mark::Line });
            }
        }
    }
    if let Some(l) = leg {
        draw_legend(&l, &entries).map_err(|e| fig(&e))?;
    }
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}

/// Draws values per category (e.g. per dataset) as markers on a categorical axis — no lines join
/// categories — one marker style per series, with the category names on the axis.
///
/// ```
/// use kern_repro::figures::{category_chart, Series};
/// let p = std::env::temp_dir().join("kern-doc-cat.svg");
/// let s = Series { name: "method".into(), points: vec![(1.0, 0.9), (2.0, 0.8)] };
/// category_chart(&p, "accuracy", &["wisconsin".into(), "heart".into()], "accuracy", &[s])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("heart"));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn category_chart(
    path: &Path,
    title: &str,
    categories: &[String],
    ylabel: &str,
    series: &[Series],
) -> Result<()> {
    let fig = fig_err(path);
    let (_, _, y0, y1) =
        finite_bounds(series.iter().flat_map(|s| s.points.iter())).ok_or_else(|| fig(&"no finite points"))?;
    let pad = ((y1 - y0) * 0.08).max(1e-9);
    let k = categories.len().max(1);
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, leg) = layout(&root, title, true, 230)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(64)
        .build_cartesian_2d(0.5..(k as f64 + 0.5), (y0 - pad)..(y1 + pad))
        .map_err(|e| fig(&e))?;
    let cats = categories.to_vec();
    let label = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 1.0 && (i as usize) <= cats.len() {
            cats[i as usize - 1].clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .x_labels(k)
        .x_label_formatter(&label)
        .x_desc("dataset")
        .y_desc(ylabel)
        .draw()
        .map_err(|e| fig(&e))?;
    let m = series.len().max(1) as f64;
    let mut entries = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let color = rgb(i, &s.name);
        // Side by side within each category, so equal values stay visible.
        let dx = 0.5 * ((i as f64 + 0.5) / m - 0.5);
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| (x + dx, y))
            .collect();
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, color.filled()))).map_err(|e| fig(&e))?;
        entries.push(Entry { label: s.name.clone(), color, kind: Mark::Dot });
    }
    if let Some(l) = leg {
        draw_legend(&l, &entries).map_err(|e| fig(&e))?;
    }
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}

/// Draws a `cells × cells` density grid (row-major, values in [0, 1]) as a grey-scale spy plot.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-spy.svg");
/// kern_repro::figures::spy(&p, "spy", &[1.0, 0.0, 0.5, 1.0], 2)?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn spy(path: &Path, title: &str, density: &[f64], cells: usize) -> Result<()> {
    let fig = fig_err(path);
    if cells == 0 || density.len() != cells * cells {
        return Err(fig(&"density grid is not cells × cells"));
    }
    let root = SVGBackend::new(path, (460, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, _) = layout(&root, title, false, 0)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(0..cells, 0..cells)
        .map_err(|e| fig(&e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("column")
        .y_desc("row (from the top)")
        .y_label_formatter(&|v: &usize| format!("{}", cells - v))
        .draw()
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
    /// Legend label (a label naming a colour, "green" or "red", is drawn in it).
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

fn padded<'a>(pts: impl Iterator<Item = &'a (f64, f64)>) -> Option<(f64, f64, f64, f64)> {
    finite_bounds(pts).map(|(x0, x1, y0, y1)| {
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
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn scatter(path: &Path, title: &str, xlabel: &str, ylabel: &str, groups: &[Group]) -> Result<()> {
    let fig = fig_err(path);
    let (x0, x1, y0, y1) =
        padded(groups.iter().flat_map(|g| g.points.iter())).ok_or_else(|| fig(&"no finite points"))?;
    let root = SVGBackend::new(path, (820, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, leg) = layout(&root, title, true, 220)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| fig(&e))?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(240, 240, 240))
        .x_desc(xlabel)
        .y_desc(ylabel)
        .draw()
        .map_err(|e| fig(&e))?;
    let entries = draw_groups(&mut chart, groups, 0).map_err(|e| fig(&e))?;
    if let Some(l) = leg {
        draw_legend(&l, &entries).map_err(|e| fig(&e))?;
    }
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}

type Chart<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn draw_groups(
    chart: &mut Chart<'_>,
    groups: &[Group],
    first: usize,
) -> std::result::Result<Vec<Entry>, String> {
    let smax = groups.iter().flat_map(|g| g.sizes.iter()).fold(0.0f64, |m, &s| m.max(s.abs()));
    let mut entries = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let color = rgb(first + i, &g.name);
        let sized = !g.sizes.is_empty() && g.sizes.len() == g.points.len() && smax > 0.0;
        let radius =
            |k: usize| if sized { (12.0 * (g.sizes[k].abs() / smax).sqrt()).round() as i32 } else { 3 };
        chart
            .draw_series(g.points.iter().enumerate().filter(|(k, _)| radius(*k) > 0).map(|(k, &p)| {
                Circle::new(p, radius(k), if sized { color.stroke_width(1) } else { color.filled() })
            }))
            .map_err(|e| e.to_string())?;
        entries.push(Entry {
            label: g.name.clone(),
            color,
            kind: if sized { Mark::Ring } else { Mark::Dot },
        });
    }
    Ok(entries)
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

    /// The zero level set traced by marching squares over the cell centres: line segments, each
    /// crossing one square of four neighbouring centres, with crossings placed by linear interpolation.
    /// Ambiguous saddles (opposite corners of equal sign) are resolved by the square's centre value.
    ///
    /// ```
    /// let g = kern_repro::figures::Grid::sample((-1.0, 1.0), (-1.0, 1.0), 40, |x, _| x - 0.1);
    /// let segs = g.zero_segments();
    /// assert!(!segs.is_empty());
    /// assert!(segs.iter().all(|s| (s[0].0 - 0.1).abs() < 1e-9 && (s[1].0 - 0.1).abs() < 1e-9));
    /// ```
    pub fn zero_segments(&self) -> Vec<[(f64, f64); 2]> {
        let n = self.cells;
        let c = Self::centres(self.x, self.y, n);
        let mut out = Vec::new();
        if n < 2 || self.values.len() != n * n {
            return out;
        }
        for i in 0..n - 1 {
            for j in 0..n - 1 {
                // Corners counter-clockwise: (i, j), (i, j+1), (i+1, j+1), (i+1, j).
                let ks = [i * n + j, i * n + j + 1, (i + 1) * n + j + 1, (i + 1) * n + j];
                let v: Vec<f64> = ks.iter().map(|&k| self.values[k]).collect();
                if v.iter().any(|a| !a.is_finite()) {
                    continue;
                }
                let mut cuts = Vec::new();
                for e in 0..4 {
                    let (a, b) = (v[e], v[(e + 1) % 4]);
                    if (a > 0.0) != (b > 0.0) {
                        let t = a / (a - b);
                        let (p, q) = (c[ks[e]], c[ks[(e + 1) % 4]]);
                        cuts.push((e, (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1))));
                    }
                }
                match cuts.len() {
                    2 => out.push([cuts[0].1, cuts[1].1]),
                    4 => {
                        // Saddle: pair the cuts so that the centre's side stays connected.
                        let centre = v.iter().sum::<f64>() / 4.0;
                        if (centre > 0.0) == (v[0] > 0.0) {
                            out.push([cuts[0].1, cuts[3].1]);
                            out.push([cuts[1].1, cuts[2].1]);
                        } else {
                            out.push([cuts[0].1, cuts[1].1]);
                            out.push([cuts[2].1, cuts[3].1]);
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// A level set to draw on a [`field`]: the zero set of `grid`, with its legend label.
#[derive(Clone, Copy, Debug)]
pub struct Contour<'a> {
    /// The field whose zero set is drawn.
    pub grid: &'a Grid,
    /// Legend label (named colours "green", "red", "black" are honoured).
    pub label: &'a str,
    /// Dashed instead of solid.
    pub dashed: bool,
}

/// Draws a field as a blue–white–red heat map with a colour bar (symmetric around 0; shading off with
/// `shade = false`), its zero level sets (one per entry of `zero_of`; with two, the first is labelled the
/// model's boundary, black, and the second the Bayes boundary, green and dashed), and scatter groups on
/// top, axes `x1` and `x2`. See [`field_with`] for named contours and axis labels.
///
/// ```
/// use kern_repro::figures::{field, Grid, Group};
/// let p = std::env::temp_dir().join("kern-doc-field.svg");
/// let g = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 20, |x, y| x * x + y * y - 0.5);
/// field(&p, "circle", &g, true, &[&g], &[Group::points("o", vec![(0.0, 0.0)])])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # std::fs::remove_file(&p).unwrap();
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
    // Two level sets are, at every caller, a model's boundary and the Bayes boundary.
    const MANY: [&str; 4] = ["level set 1 (black)", "level set 2", "level set 3", "further level sets"];
    let contours: Vec<Contour<'_>> = zero_of
        .iter()
        .enumerate()
        .map(|(i, z)| Contour {
            grid: z,
            label: match (zero_of.len(), i) {
                (1 | 2, 0) => "boundary f(x) = 0 (black)",
                (2, _) => "Bayes boundary (green, dashed)",
                _ => MANY[i.min(3)],
            },
            dashed: zero_of.len() == 2 && i == 1,
        })
        .collect();
    field_with(path, title, ("x1", "x2", "f(x)"), g, shade, &contours, groups)
}

/// [`field`] with named contours and axis labels `(x, y, colour bar)`.
///
/// ```
/// use kern_repro::figures::{field_with, Contour, Grid, Group};
/// let p = std::env::temp_dir().join("kern-doc-field-with.svg");
/// let g = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 20, |x, y| x - y);
/// let c = [Contour { grid: &g, label: "f = 0", dashed: false }];
/// field_with(&p, "plane", ("a", "b", "f"), &g, true, &c, &[])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("f = 0"));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn field_with(
    path: &Path,
    title: &str,
    labels: (&str, &str, &str),
    g: &Grid,
    shade: bool,
    contours: &[Contour<'_>],
    groups: &[Group],
) -> Result<()> {
    let fig = fig_err(path);
    let n = g.cells;
    if n == 0
        || g.values.len() != n * n
        || contours.iter().any(|z| z.grid.values.len() != z.grid.cells * z.grid.cells)
    {
        return Err(fig(&"grid values are not cells × cells"));
    }
    let root = SVGBackend::new(path, (860, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (main, leg) = layout(&root, title, true, 230)?;
    let (plot, bar) = if shade {
        let (w, _) = main.dim_in_pixel();
        let (a, b) = main.split_horizontally(w.saturating_sub(90));
        (a, Some(b))
    } else {
        (main, None)
    };
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(g.x.0..g.x.1, g.y.0..g.y.1)
        .map_err(|e| fig(&e))?;
    chart.configure_mesh().disable_mesh().x_desc(labels.0).y_desc(labels.1).draw().map_err(|e| fig(&e))?;
    let m = g.values.iter().fold(0.0f64, |m, v| if v.is_finite() { m.max(v.abs()) } else { m }).max(1e-300);
    let shade_of = |t: f64| {
        let t = t.clamp(-1.0, 1.0);
        let c = |s: f64| (255.0 * (1.0 - 0.6 * s)) as u8;
        if t >= 0.0 { RGBColor(255, c(t), c(t)) } else { RGBColor(c(-t), c(-t), 255) }
    };
    if shade {
        let (dx, dy) = ((g.x.1 - g.x.0) / n as f64, (g.y.1 - g.y.0) / n as f64);
        chart
            .draw_series((0..n * n).map(|k| {
                let (x, y) = (g.x.0 + (k % n) as f64 * dx, g.y.0 + (k / n) as f64 * dy);
                Rectangle::new([(x, y), (x + dx, y + dy)], shade_of(g.values[k] / m).filled())
            }))
            .map_err(|e| fig(&e))?;
    }
    let mut entries = Vec::new();
    for (i, z) in contours.iter().enumerate() {
        let named = ["green", "red", "black"].iter().any(|c| z.label.to_lowercase().contains(c));
        let color = if named {
            rgb(i, z.label)
        } else if i == 0 {
            BLACK
        } else {
            OKABE_ITO[i % OKABE_ITO.len()]
        };
        let segs = z.grid.zero_segments();
        if z.dashed {
            chart
                .draw_series(segs.into_iter().map(|s| {
                    plotters::element::DashedPathElement::new(s.to_vec(), 5, 4, color.stroke_width(2))
                }))
                .map_err(|e| fig(&e))?;
        } else {
            chart
                .draw_series(segs.into_iter().map(|s| PathElement::new(s.to_vec(), color.stroke_width(2))))
                .map_err(|e| fig(&e))?;
        }
        if entries.iter().all(|e: &Entry| e.label != z.label) {
            entries.push(Entry {
                label: z.label.to_string(),
                color,
                kind: if z.dashed { Mark::Dashed } else { Mark::Line },
            });
        }
    }
    entries.extend(draw_groups(&mut chart, groups, 1).map_err(|e| fig(&e))?);
    if let Some(b) = bar {
        // The colour bar: f / max|f| from −1 (blue) to +1 (red), labelled in f's units.
        let mut cb = ChartBuilder::on(&b)
            .margin_top(20)
            .margin_bottom(56)
            .margin_right(8)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..1.0, -m..m)
            .map_err(|e| fig(&e))?;
        cb.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_labels(5)
            .y_label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 12))
            .y_desc(labels.2)
            .y_label_formatter(&|v: &f64| format!("{v:.2}"))
            .draw()
            .map_err(|e| fig(&e))?;
        let steps = 64;
        cb.draw_series((0..steps).map(|s| {
            let (a, b) =
                (-m + 2.0 * m * s as f64 / steps as f64, -m + 2.0 * m * (s + 1) as f64 / steps as f64);
            Rectangle::new([(0.0, a), (1.0, b)], shade_of((a + b) / (2.0 * m)).filled())
        }))
        .map_err(|e| fig(&e))?;
    }
    if let Some(l) = leg {
        draw_legend(&l, &entries).map_err(|e| fig(&e))?;
    }
    root.present().map_err(|e| fig(&e))?;
    Ok(())
}
