//! The figures' PNG copies: written beside each SVG, of the SVG's size, and not blank.

use kern_repro::figures::{Grid, Group, Series, field, line_chart};
use resvg::tiny_skia::Pixmap;
use std::path::{Path, PathBuf};

/// A fresh directory under the system's temporary directory, named after the test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kern-repro-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `width` and `height` attributes of the SVG's root element, in pixels.
fn svg_size(svg: &Path) -> (u32, u32) {
    let text = std::fs::read_to_string(svg).unwrap();
    let root = &text[text.find("<svg").unwrap()..];
    let root = &root[..root.find('>').unwrap()];
    let attr = |name: &str| -> u32 {
        let at = root.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        root[at..].split('"').next().unwrap().parse().unwrap()
    };
    (attr("width"), attr("height"))
}

/// Checks the PNG beside `svg`: same size, and some pixels differ from the white background (here, the
/// data's colours: neither white nor grey).
fn assert_png_copy(svg: &Path) {
    let png = svg.with_extension("png");
    let pixmap = Pixmap::load_png(&png).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), svg_size(svg), "{}", png.display());
    let coloured =
        pixmap.pixels().iter().filter(|p| !(p.red() == p.green() && p.green() == p.blue())).count();
    assert!(coloured > 0, "{}: no coloured pixel", png.display());
    let background = pixmap.pixels()[0];
    assert!(pixmap.pixels().iter().any(|p| *p != background));
}

#[test]
fn line_chart_writes_a_png_of_the_svg_size() {
    let dir = scratch("line");
    let svg = dir.join("line.svg");
    let s = Series { name: "y = x²".into(), points: (0..20).map(|i| (i as f64, (i * i) as f64)).collect() };
    line_chart(&svg, "a small figure", "x", "y", &[s]).unwrap();
    assert_png_copy(&svg);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn field_writes_a_png_of_the_svg_size() {
    let dir = scratch("field");
    let svg = dir.join("field.svg");
    let g = Grid::sample((-1.0, 1.0), (-0.5, 0.5), 16, |x, y| x * x + 4.0 * y * y - 0.5);
    field(&svg, "a small field", &g, true, &[&g], &[Group::points("o", vec![(0.0, 0.0)])]).unwrap();
    assert_png_copy(&svg);
    std::fs::remove_dir_all(&dir).unwrap();
}
