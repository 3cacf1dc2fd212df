//! SVG figures with plotters (SVG backend), each also written as a PNG beside it (`FIG.png`, same size
//! in pixels) by resvg, in pure Rust: no system libraries and no external program. The PNG's text is
//! drawn with the system's fonts, found at run time; on a machine without fonts the PNG is still written,
//! without its text, and a note says so once on stderr. [`set_png_copies`] turns the PNGs off.
//!
//! Conventions of every figure: axis labels on both axes, legends in a panel to the right of the data
//! (never over it), short descriptive titles shrunk to fit the width (results belong in the report, not
//! in titles), colour-blind-safe colours (Okabe–Ito) except where a series is named after a colour
//! ("green", "red"), which is then drawn in that colour; decision fields carry a colour bar, and level
//! sets are traced by marching squares. Figures of points in the plane (fields, [`scatter_plot`] with
//! `equal_aspect`, spy plots) have an equal aspect ratio: one unit is as long on both axes.
//!
//! ```
//! use kern_repro::figures::{line_chart, set_png_copies, Series};
//! set_png_copies(false);
//! let p = std::env::temp_dir().join(format!("kern-doc-figures-{}.svg", std::process::id()));
//! let s = Series { name: "test error".into(), points: vec![(1.0, 0.3), (2.0, 0.2), (3.0, 0.25)] };
//! line_chart(&p, "error by step", "step", "error", &[s])?;
//! // An SVG with its title and both axis labels (a single series needs no legend).
//! let svg = std::fs::read_to_string(&p).unwrap();
//! assert!(svg.starts_with("<svg") && [">\nerror by step\n<", ">\nstep\n<", ">\nerror\n<"].iter().all(|t| svg.contains(t)));
//! # std::fs::remove_file(&p).unwrap();
//! # Ok::<(), kern_repro::ReproError>(())
//! ```

use crate::{ReproError, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Whether the figure functions write a PNG beside each SVG (on unless [`set_png_copies`] says off).
static PNG_COPIES: AtomicBool = AtomicBool::new(true);

/// Turns the PNG copies of the figures on (the default) or off, for the whole process.
///
/// ```
/// kern_repro::figures::set_png_copies(false);
/// let p = std::env::temp_dir().join("kern-doc-nopng.svg");
/// let s = kern_repro::figures::Series { name: "a".into(), points: vec![(0.0, 0.0), (1.0, 1.0)] };
/// kern_repro::figures::line_chart(&p, "no PNG", "x", "y", &[s])?;
/// assert!(!p.with_extension("png").exists());
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn set_png_copies(on: bool) {
    PNG_COPIES.store(on, Ordering::Relaxed);
}

/// The system's fonts, loaded once, with the generic `sans-serif` family (the one plotters writes) set
/// to an installed family; empty (with a note on stderr) on a machine without fonts.
fn font_db() -> Arc<resvg::usvg::fontdb::Database> {
    static DB: OnceLock<Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_system_fonts();
        let families: Vec<String> =
            db.faces().flat_map(|f| f.families.iter().map(|(name, _)| name.clone())).collect();
        let preferred = ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica", "Noto Sans", "FreeSans"];
        match preferred.iter().find(|p| families.iter().any(|f| f == *p)).map(|p| p.to_string()) {
            Some(f) => db.set_sans_serif_family(f),
            None => match families.first() {
                Some(f) => db.set_sans_serif_family(f.clone()),
                None => eprintln!(
                    "kern-repro: no system fonts found: the PNG copies of the figures are drawn without \
                     their text (the SVGs have it)"
                ),
            },
        }
        Arc::new(db)
    })
    .clone()
}

/// Renders the SVG file `svg` to `svg` with extension `.png` (white background, one PNG pixel per SVG
/// pixel) and returns the PNG's path. The figure functions call it on every figure they write, unless
/// [`set_png_copies`] turned the copies off.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-png.svg");
/// std::fs::write(&p, r#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"/>"#).unwrap();
/// let png = kern_repro::figures::png_copy(&p)?;
/// assert_eq!(png, p.with_extension("png"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(&png).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn png_copy(svg: &Path) -> Result<PathBuf> {
    use resvg::{tiny_skia, usvg};
    let fig = fig_err(svg);
    let data = std::fs::read(svg).map_err(|e| ReproError::io(svg, e))?;
    let opt = usvg::Options { fontdb: font_db(), ..usvg::Options::default() };
    let tree = usvg::Tree::from_data(&data, &opt).map_err(|e| fig(&e))?;
    let size = tree.size().to_int_size();
    let mut pixmap =
        tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(|| fig(&"empty figure"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::identity(), &mut pixmap.as_mut());
    let png = svg.with_extension("png");
    pixmap.save_png(&png).map_err(|e| fig(&e))?;
    Ok(png)
}

/// Writes the figure's SVG file and, unless turned off, its PNG copy.
fn finish(root: &Area<'_>, path: &Path) -> Result<()> {
    root.present().map_err(|e| fig_err(path)(&e))?;
    if PNG_COPIES.load(Ordering::Relaxed) {
        png_copy(path)?;
    }
    Ok(())
}

/// The pixels to take off the width and the height of a plotting area of `px` pixels showing the ranges
/// `x` and `y`, so that one unit is as long on both axes (an equal aspect ratio): the axis with more
/// pixels per unit gives up the difference; the other keeps its length.
///
/// ```
/// // 400 × 200 px for 1 × 1 units: 200 px come off the width.
/// assert_eq!(kern_repro::figures::equal_aspect_inset((0.0, 1.0), (0.0, 1.0), (400, 200)), (200, 0));
/// ```
pub fn equal_aspect_inset(x: (f64, f64), y: (f64, f64), px: (u32, u32)) -> (u32, u32) {
    let (dx, dy) = ((x.1 - x.0).abs(), (y.1 - y.0).abs());
    if !(dx > 0.0 && dy > 0.0 && dx.is_finite() && dy.is_finite()) {
        return (0, 0);
    }
    let (w, h) = (px.0 as f64, px.1 as f64);
    if w / dx > h / dy {
        (px.0 - ((h * dx / dy).round() as u32).min(px.0), 0)
    } else {
        (0, px.1 - ((w * dy / dx).round() as u32).min(px.1))
    }
}

/// The frame of a chart: outer margin and the sizes of the label areas below and left of the data.
#[derive(Clone, Copy)]
struct Frame {
    margin: u32,
    x_labels: u32,
    y_labels: u32,
}

/// A chart over `x` × `y` on `area`; with `equal`, centred in `area` with an equal aspect ratio.
fn cartesian<'a, 'b>(
    area: &'a Area<'b>,
    f: Frame,
    x: (f64, f64),
    y: (f64, f64),
    equal: bool,
) -> std::result::Result<Chart<'a, 'b>, String> {
    let build = |(ex, ey): (u32, u32)| {
        ChartBuilder::on(area)
            .margin_left(f.margin + ex / 2)
            .margin_right(f.margin + ex - ex / 2)
            .margin_top(f.margin + ey / 2)
            .margin_bottom(f.margin + ey - ey / 2)
            .x_label_area_size(f.x_labels)
            .y_label_area_size(f.y_labels)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(|e| e.to_string())
    };
    let chart = build((0, 0))?;
    if !equal {
        return Ok(chart);
    }
    let px = chart.plotting_area().dim_in_pixel();
    build(equal_aspect_inset(x, y, px))
}

/// One named line of a chart.
///
/// ```
/// use kern_repro::figures::{color_for, line_chart, Series};
/// let p = std::env::temp_dir().join(format!("kern-doc-series-{}.svg", std::process::id()));
/// let a = Series { name: "training error".into(), points: vec![(1.0, 0.3), (2.0, 0.2), (3.0, 0.15)] };
/// let b = Series { name: "test error".into(), points: vec![(1.0, 0.35), (2.0, 0.3), (3.0, 0.32)] };
/// kern_repro::figures::set_png_copies(false);
/// line_chart(&p, "errors", "step", "error", &[a, b])?;
/// let svg = std::fs::read_to_string(&p).unwrap();
/// // Each series is drawn in its own colour and named in the legend.
/// let hex = |(r, g, b): (u8, u8, u8)| format!("#{r:02X}{g:02X}{b:02X}");
/// let (c0, c1) = (hex(color_for(0, "training error")), hex(color_for(1, "test error")));
/// assert!(c0 != c1 && svg.contains(&c0) && svg.contains(&c1));
/// assert!(svg.contains("training error") && svg.contains("test error"));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
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

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

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
    /// A dot with a black outline (markers on a shaded field).
    OutlinedDot,
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
            Mark::OutlinedDot => {
                area.draw(&Circle::new((18, y), 4, en.color.filled())).map_err(|x| e(&x))?;
                area.draw(&Circle::new((18, y), 4, BLACK.stroke_width(1))).map_err(|x| e(&x))?;
            }
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
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn line_chart(path: &Path, title: &str, xlabel: &str, ylabel: &str, series: &[Series]) -> Result<()> {
    line_chart_with(path, title, (xlabel, ylabel), series, ("", &[]))
}

/// [`line_chart`] with axis labels `(x, y)` and reference levels `(name, heights)`: horizontal lines at
/// the heights, thin, dashed and grey (not data), listed in the legend as "name: h1, h2, …".
///
/// ```
/// use kern_repro::figures::{line_chart_with, Series};
/// let p = std::env::temp_dir().join("kern-doc-levels.svg");
/// let s = Series { name: "A(C)".into(), points: vec![(0.0, 0.5), (1.0, 1.0)] };
/// line_chart_with(&p, "levels", ("C", "A"), &[s], ("levels μ", &[0.9, 0.95]))?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("levels μ: 0.9, 0.95"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn line_chart_with(
    path: &Path,
    title: &str,
    labels: (&str, &str),
    series: &[Series],
    levels: (&str, &[f64]),
) -> Result<()> {
    let fig = fig_err(path);
    let (x0, x1, mut y0, mut y1) =
        finite_bounds(series.iter().flat_map(|s| s.points.iter())).ok_or_else(|| fig(&"no finite points"))?;
    let (levels_name, levels) = levels;
    for &l in levels.iter().filter(|l| l.is_finite()) {
        (y0, y1) = (y0.min(l), y1.max(l));
    }
    let pad = ((y1 - y0) * 0.05).max(1e-12);
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, leg) = layout(&root, title, series.len() > 1 || !levels.is_empty(), 230)?;
    let frame = Frame { margin: 12, x_labels: 44, y_labels: 64 };
    let mut chart = cartesian(&plot, frame, (x0, x1.max(x0 + 1e-12)), (y0 - pad, y1 + pad), false)
        .map_err(|e| fig(&e))?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .x_desc(labels.0)
        .y_desc(labels.1)
        .draw()
        .map_err(|e| fig(&e))?;
    let grey = RGBColor(110, 110, 110);
    for &l in levels.iter().filter(|l| l.is_finite()) {
        chart
            .draw_series(DashedLineSeries::new([(x0, l), (x1, l)], 4, 4, grey.stroke_width(1)))
            .map_err(|e| fig(&e))?;
    }
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
    if !levels.is_empty() {
        let values: Vec<String> = levels.iter().map(|l| l.to_string()).collect();
        let label = format!("{levels_name}: {}", values.join(", "));
        entries.push(Entry { label, color: grey, kind: Mark::Dashed });
    }
    if let Some(l) = leg {
        draw_legend(&l, &entries).map_err(|e| fig(&e))?;
    }
    finish(&root, path)
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
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
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
    finish(&root, path)
}

/// Draws a `cells × cells` density grid (row-major, values in [0, 1]) of an `n × n` matrix as a
/// grey-scale spy plot, axes in matrix indices (row 0 at the top, as in MATLAB's `spy`), square.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-spy.svg");
/// kern_repro::figures::spy(&p, "spy", &[1.0, 0.0, 0.5, 1.0], 2, 2000)?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("2000"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn spy(path: &Path, title: &str, density: &[f64], cells: usize, n: usize) -> Result<()> {
    let fig = fig_err(path);
    if cells == 0 || n == 0 || density.len() != cells * cells {
        return Err(fig(&"density grid is not cells × cells"));
    }
    let root = SVGBackend::new(path, (480, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, _) = layout(&root, title, false, 0)?;
    let nf = n as f64;
    let frame = Frame { margin: 14, x_labels: 36, y_labels: 52 };
    let mut chart = cartesian(&plot, frame, (0.0, nf), (0.0, nf), true).map_err(|e| fig(&e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("column")
        .y_desc("row")
        .x_label_formatter(&|v: &f64| format!("{v:.0}"))
        .y_label_formatter(&|v: &f64| format!("{:.0}", nf - v))
        .draw()
        .map_err(|e| fig(&e))?;
    let d = nf / cells as f64;
    chart
        .draw_series((0..cells).flat_map(|i| {
            (0..cells).filter_map(move |j| {
                let v = density[i * cells + j].clamp(0.0, 1.0);
                (v > 0.0).then(|| {
                    let g = (255.0 * (1.0 - v)) as u8;
                    let (x, y) = (j as f64 * d, nf - (i + 1) as f64 * d);
                    Rectangle::new([(x, y), (x + d, y + d)], RGBColor(g, g, g).filled())
                })
            })
        }))
        .map_err(|e| fig(&e))?;
    finish(&root, path)
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
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn scatter(path: &Path, title: &str, xlabel: &str, ylabel: &str, groups: &[Group]) -> Result<()> {
    scatter_plot(path, title, (xlabel, ylabel), groups, &[], false)
}

/// [`scatter`] with axis labels `(x, y)`, line series drawn under the points (fitted curves), and, with
/// `equal_aspect`, one unit as long on both axes (for points in the plane).
///
/// ```
/// use kern_repro::figures::{scatter_plot, Group, Series};
/// let p = std::env::temp_dir().join("kern-doc-scatter-plot.svg");
/// let fit = Series { name: "fit".into(), points: vec![(0.0, 0.0), (2.0, 1.0)] };
/// scatter_plot(&p, "plane", ("x1", "x2"), &[Group::points("a", vec![(1.0, 0.4)])], &[fit], true)?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<polyline"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn scatter_plot(
    path: &Path,
    title: &str,
    labels: (&str, &str),
    groups: &[Group],
    lines: &[Series],
    equal_aspect: bool,
) -> Result<()> {
    let fig = fig_err(path);
    let (x0, x1, y0, y1) =
        padded(groups.iter().flat_map(|g| g.points.iter()).chain(lines.iter().flat_map(|s| s.points.iter())))
            .ok_or_else(|| fig(&"no finite points"))?;
    let root = SVGBackend::new(path, (820, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (plot, leg) = layout(&root, title, true, 220)?;
    let frame = Frame { margin: 12, x_labels: 44, y_labels: 56 };
    let mut chart = cartesian(&plot, frame, (x0, x1), (y0, y1), equal_aspect).map_err(|e| fig(&e))?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(240, 240, 240))
        .x_desc(labels.0)
        .y_desc(labels.1)
        .draw()
        .map_err(|e| fig(&e))?;
    let mut entries = Vec::new();
    for (i, s) in lines.iter().enumerate() {
        let color = rgb(groups.len() + i, &s.name);
        let pts: Vec<(f64, f64)> =
            s.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
        chart.draw_series(LineSeries::new(pts, color.stroke_width(2))).map_err(|e| fig(&e))?;
        entries.push(Entry { label: s.name.clone(), color, kind: Mark::Line });
    }
    let mut points = draw_groups(&mut chart, groups, 0, false).map_err(|e| fig(&e))?;
    points.extend(entries);
    if let Some(l) = leg {
        draw_legend(&l, &points).map_err(|e| fig(&e))?;
    }
    finish(&root, path)
}

/// Draws the groups (colours from palette index `first` on); with `outline`, plain markers get a black
/// outline so that they stay visible on a shaded field of any colour.
fn draw_groups(
    chart: &mut Chart<'_, '_>,
    groups: &[Group],
    first: usize,
    outline: bool,
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
        if outline && !sized {
            chart
                .draw_series(g.points.iter().map(|&p| Circle::new(p, 3, BLACK.stroke_width(1))))
                .map_err(|e| e.to_string())?;
        }
        let kind = match (sized, outline) {
            (true, _) => Mark::Ring,
            (false, true) => Mark::OutlinedDot,
            (false, false) => Mark::Dot,
        };
        entries.push(Entry { label: g.name.clone(), color, kind });
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
        self.level_segments(0.0)
    }

    /// The level set `f = level`, traced as [`Grid::zero_segments`] traces the zero set.
    ///
    /// ```
    /// let g = kern_repro::figures::Grid::sample((-1.0, 1.0), (-1.0, 1.0), 40, |_, y| 2.0 * y);
    /// let segs = g.level_segments(0.5);
    /// assert!(!segs.is_empty());
    /// assert!(segs.iter().all(|s| (s[0].1 - 0.25).abs() < 1e-9 && (s[1].1 - 0.25).abs() < 1e-9));
    /// ```
    pub fn level_segments(&self, level: f64) -> Vec<[(f64, f64); 2]> {
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
                let v: Vec<f64> = ks.iter().map(|&k| self.values[k] - level).collect();
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
///
/// ```
/// use kern_repro::figures::{field_with, Contour, Grid};
/// let p = std::env::temp_dir().join(format!("kern-doc-contour-{}.svg", std::process::id()));
/// let circle = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 30, |x, y| x * x + y * y - 0.25);
/// let line = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 30, |x, y| x - y);
/// let contours = [
///     Contour { grid: &circle, label: "circle r = 0.5", dashed: false },
///     Contour { grid: &line, label: "x = y (green)", dashed: true },
/// ];
/// kern_repro::figures::set_png_copies(false);
/// field_with(&p, "two contours", ("a", "b", "f"), &circle, false, &contours, &[])?;
/// let svg = std::fs::read_to_string(&p).unwrap();
/// assert!(svg.contains("circle r = 0.5") && svg.contains("x = y (green)"));
/// // The line is drawn in green, as its label asks, in dashes along the whole diagonal.
/// let (r, g, b) = kern_repro::figures::color_for(1, "x = y (green)");
/// assert!(svg.matches(&format!("#{r:02X}{g:02X}{b:02X}")).count() > 10);
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
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
/// top, axes `x1` and `x2`, with an equal aspect ratio. See [`field_with`] for named contours and axis
/// labels.
///
/// ```
/// use kern_repro::figures::{field, Grid, Group};
/// let p = std::env::temp_dir().join("kern-doc-field.svg");
/// let g = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 20, |x, y| x * x + y * y - 0.5);
/// field(&p, "circle", &g, true, &[&g], &[Group::points("o", vec![(0.0, 0.0)])])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("<svg"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
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

/// [`field`] with named contours and axis labels `(x, y, colour bar)`; the plane's two axes have an
/// equal aspect ratio.
///
/// ```
/// use kern_repro::figures::{field_with, Contour, Grid, Group};
/// let p = std::env::temp_dir().join("kern-doc-field-with.svg");
/// let g = Grid::sample((-1.0, 1.0), (-1.0, 1.0), 20, |x, y| x - y);
/// let c = [Contour { grid: &g, label: "f = 0", dashed: false }];
/// field_with(&p, "plane", ("a", "b", "f"), &g, true, &c, &[])?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("f = 0"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
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
    let frame = Frame { margin: 12, x_labels: 44, y_labels: 56 };
    let mut chart = cartesian(&plot, frame, g.x, g.y, true).map_err(|e| fig(&e))?;
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
    entries.extend(draw_groups(&mut chart, groups, 1, shade).map_err(|e| fig(&e))?);
    let plot_area = chart.plotting_area().strip_coord_spec();
    if let Some(b) = bar {
        // The colour bar: f / max|f| from −1 (blue) to +1 (red), labelled in f's units.
        // Level with the data panel's plotting area.
        let (data_top, data_h) = (plot_area.get_base_pixel().1, plot_area.dim_in_pixel().1 as i32);
        let (bar_top, bar_h) = (b.get_base_pixel().1, b.dim_in_pixel().1 as i32);
        let mut cb = ChartBuilder::on(&b)
            .margin_top((data_top - bar_top).max(0) as u32)
            .margin_bottom((bar_top + bar_h - data_top - data_h).max(0) as u32)
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
    finish(&root, path)
}

/// One panel of [`field_panels`]: a field drawn as grey levels with its level sets.
///
/// ```
/// use kern_repro::figures::{field_panels, Grid, Panel};
/// let p = std::env::temp_dir().join(format!("kern-doc-panel-{}.svg", std::process::id()));
/// let panel = |title: &str, levels| Panel {
///     title: title.into(),
///     grid: Grid::sample((-1.0, 1.0), (-1.0, 1.0), 10, |x, y| x + y),
///     levels,
/// };
/// kern_repro::figures::set_png_copies(false);
/// field_panels(&p, "panels", ("x", "y"), &[panel("first panel", 3), panel("second panel", 0)], &[], 2)?;
/// let svg = std::fs::read_to_string(&p).unwrap();
/// // Each panel has its title; the legend names the level sets (the first panel draws 3).
/// assert!(svg.contains("first panel") && svg.contains("second panel") && svg.contains("level sets"));
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Panel {
    /// The panel's title.
    pub title: String,
    /// The field.
    pub grid: Grid,
    /// Contour lines at this many levels evenly spaced strictly between the field's minimum and maximum.
    pub levels: usize,
}

/// Draws several fields over the plane side by side, `cols` panels a row, each as grey levels (dark =
/// large, scaled to the panel's own range) with contour lines and the same scatter groups on top, axes
/// `(x, y)` with an equal aspect ratio; one legend to the right.
///
/// ```
/// use kern_repro::figures::{field_panels, Grid, Group, Panel};
/// let p = std::env::temp_dir().join("kern-doc-panels.svg");
/// let panel = |t: &str, f: fn(f64, f64) -> f64| Panel {
///     title: t.into(),
///     grid: Grid::sample((-1.0, 1.0), (-1.0, 1.0), 20, f),
///     levels: 5,
/// };
/// let panels = [panel("x", |x, _| x), panel("y", |_, y| y), panel("xy", |x, y| x * y)];
/// field_panels(&p, "three fields", ("x1", "x2"), &panels, &[Group::points("o", vec![(0.0, 0.0)])], 2)?;
/// assert!(std::fs::read_to_string(&p).unwrap().contains("xy"));
/// # std::fs::remove_file(&p).unwrap();
/// # std::fs::remove_file(p.with_extension("png")).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn field_panels(
    path: &Path,
    title: &str,
    labels: (&str, &str),
    panels: &[Panel],
    groups: &[Group],
    cols: usize,
) -> Result<()> {
    let fig = fig_err(path);
    if panels.is_empty() || cols == 0 {
        return Err(fig(&"no panels"));
    }
    if panels.iter().any(|p| p.grid.cells == 0 || p.grid.values.len() != p.grid.cells * p.grid.cells) {
        return Err(fig(&"grid values are not cells × cells"));
    }
    let cols = cols.min(panels.len());
    let rows = panels.len().div_ceil(cols);
    let (pw, ph) = (320u32, 300u32);
    let root = SVGBackend::new(path, (pw * cols as u32 + 200, ph * rows as u32 + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fig(&e))?;
    let (main, leg) = layout(&root, title, true, 200)?;
    let cells = main.split_evenly((rows, cols));
    let line = RGBColor(0, 0, 0);
    let mut entries = Vec::new();
    for (p, area) in panels.iter().zip(&cells) {
        let g = &p.grid;
        let n = g.cells;
        let titled =
            area.titled(&p.title, ("sans-serif", fit(&p.title, pw - 10, 14))).map_err(|e| fig(&e))?;
        let frame = Frame { margin: 6, x_labels: 34, y_labels: 44 };
        let mut chart = cartesian(&titled, frame, g.x, g.y, true).map_err(|e| fig(&e))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(5)
            .y_labels(5)
            .label_style(("sans-serif", 11))
            .axis_desc_style(("sans-serif", 12))
            .x_desc(labels.0)
            .y_desc(labels.1)
            .draw()
            .map_err(|e| fig(&e))?;
        let finite = || g.values.iter().copied().filter(|v| v.is_finite());
        let (lo, hi) = finite().fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| (a.0.min(v), a.1.max(v)));
        let span = if hi > lo { hi - lo } else { 1.0 };
        let (dx, dy) = ((g.x.1 - g.x.0) / n as f64, (g.y.1 - g.y.0) / n as f64);
        chart
            .draw_series((0..n * n).filter(|&k| g.values[k].is_finite()).map(|k| {
                let (x, y) = (g.x.0 + (k % n) as f64 * dx, g.y.0 + (k / n) as f64 * dy);
                // Light grey (small) to dark grey (large), so that black lines and markers stay visible.
                let v = (235.0 - 160.0 * (g.values[k] - lo) / span) as u8;
                Rectangle::new([(x, y), (x + dx, y + dy)], RGBColor(v, v, v).filled())
            }))
            .map_err(|e| fig(&e))?;
        for l in 1..=p.levels {
            let level = lo + span * l as f64 / (p.levels + 1) as f64;
            chart
                .draw_series(
                    g.level_segments(level)
                        .into_iter()
                        .map(|s| PathElement::new(s.to_vec(), line.stroke_width(1))),
                )
                .map_err(|e| fig(&e))?;
        }
        entries = draw_groups(&mut chart, groups, 0, true).map_err(|e| fig(&e))?;
    }
    if panels.iter().any(|p| p.levels > 0) {
        entries.push(Entry { label: "level sets".into(), color: line, kind: Mark::Line });
    }
    if let Some(l) = leg {
        draw_legend(&l, &entries).map_err(|e| fig(&e))?;
    }
    finish(&root, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pixel lengths of the x range and of the y range of a chart built by `cartesian`.
    fn axis_lengths(size: (u32, u32), x: (f64, f64), y: (f64, f64), equal: bool) -> (f64, f64) {
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let frame = Frame { margin: 12, x_labels: 44, y_labels: 56 };
        let chart = cartesian(&root, frame, x, y, equal).unwrap();
        let (a, b, c) = (
            chart.backend_coord(&(x.0, y.0)),
            chart.backend_coord(&(x.1, y.0)),
            chart.backend_coord(&(x.0, y.1)),
        );
        ((b.0 - a.0).abs() as f64, (c.1 - a.1).abs() as f64)
    }

    #[test]
    fn equal_aspect_gives_a_unit_the_same_length_on_both_axes() {
        // Wide and tall areas, wide and tall ranges, off-centre ranges.
        for (size, x, y) in [
            ((860, 620), (-1.0, 1.0), (-1.0, 1.0)),
            ((860, 620), (-3.0, 12.5), (-3.5, 9.0)),
            ((400, 900), (0.0, 10.0), (0.0, 1.0)),
            ((900, 300), (0.0, 0.5), (-20.0, 20.0)),
        ] {
            let (dx, dy) = (x.1 - x.0, y.1 - y.0);
            let (lx, ly) = axis_lengths(size, x, y, true);
            // Lengths are whole pixels: each may be off by one pixel, which moves lx·dy − ly·dx by at
            // most dy + dx.
            assert!((lx * dy - ly * dx).abs() <= dx + dy, "{size:?} {x:?} {y:?}: {lx} px, {ly} px");
            // And the inset takes pixels off one axis only: the other keeps the whole plotting area.
            let (fx, fy) = axis_lengths(size, x, y, false);
            assert!(lx == fx || ly == fy, "{size:?}: {lx} of {fx} px, {ly} of {fy} px");
        }
    }

    #[test]
    fn equal_aspect_inset_shrinks_the_axis_with_more_pixels_per_unit() {
        assert_eq!(equal_aspect_inset((0.0, 2.0), (0.0, 1.0), (400, 400)), (0, 200));
        assert_eq!(equal_aspect_inset((0.0, 1.0), (0.0, 1.0), (300, 300)), (0, 0));
        // Degenerate ranges are left alone.
        assert_eq!(equal_aspect_inset((1.0, 1.0), (0.0, 1.0), (300, 200)), (0, 0));
    }
}
