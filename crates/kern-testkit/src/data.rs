//! Seeded data generators the tests and benchmarks share. Each is a pure function of its arguments.
//!
//! The product's own generators for the papers' experiments live in `kern_repro::datasets`; these feed
//! tests only.

use kern_core::{BinaryTargets, Samples};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A standard normal draw by Box–Muller (two uniforms per draw, the cosine branch).
///
/// ```
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(1);
/// assert!(kern_testkit::data::normal(&mut rng).is_finite());
/// ```
pub fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u: f64 = rng.random::<f64>().max(1e-300);
    let v: f64 = rng.random::<f64>();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Hastie et al.'s green-red mixture (CS-RBF paper, §4 Example 1): 10 centres per class from
/// `N((1,0), I)` (green, +1) and `N((0,1), I)` (red, −1); each point is a random centre of its class
/// plus `N(0, I/5)`. Classes alternate, green first. Returns the 2-D samples and the ±1 labels.
///
/// ```
/// let (x, y) = kern_testkit::data::green_red(10, 7);
/// assert_eq!((x.n(), x.d()), (10, 2));
/// assert_eq!(&y[..2], &[1.0, -1.0]);
/// ```
pub fn green_red(n: usize, seed: u64) -> (Samples, Vec<f64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut centres = [[[0.0; 2]; 10]; 2];
    for (c, mean) in [[1.0, 0.0], [0.0, 1.0]].iter().enumerate() {
        for centre in &mut centres[c] {
            *centre = [mean[0] + normal(&mut rng), mean[1] + normal(&mut rng)];
        }
    }
    let s = 0.2f64.sqrt();
    let mut rows = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let c = i % 2;
        let m = centres[c][rng.random_range(0..10)];
        rows.push([m[0] + s * normal(&mut rng), m[1] + s * normal(&mut rng)]);
        y.push(if c == 0 { 1.0 } else { -1.0 });
    }
    (Samples::from_rows(&rows).expect("finite rows"), y)
}

/// [`green_red`] with its labels as binary targets (green +1, red −1).
///
/// ```
/// let (x, y) = kern_testkit::data::green_red_binary(6, 7);
/// assert_eq!((x.n(), y.len()), (6, 6));
/// ```
pub fn green_red_binary(n: usize, seed: u64) -> (Samples, BinaryTargets) {
    let (x, y) = green_red(n, seed);
    (x, BinaryTargets::from_f64(&y).expect("two classes"))
}

/// `n` points uniform in `[0, scale)^d`.
///
/// ```
/// let x = kern_testkit::data::uniform(5, 3, 1.0, 2);
/// assert!(x.row(4).iter().all(|&v| (0.0..1.0).contains(&v)));
/// ```
pub fn uniform(n: usize, d: usize, scale: f64, seed: u64) -> Samples {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let data: Vec<f64> = (0..n * d).map(|_| scale * rng.random::<f64>()).collect();
    Samples::from_flat(data, n, d).expect("finite values")
}

/// `per` points around each of `k` centres in `d` dimensions: centre `c` has coordinate `j` equal to
/// `spacing · ((c + j) mod k)`, plus `N(0, spread²)` noise. Returns the samples and the class
/// (`0..k`) of every point, classes in blocks.
///
/// ```
/// let (x, class) = kern_testkit::data::blobs(4, 3, 2, 5.0, 0.1, 1);
/// assert_eq!(x.n(), 12);
/// assert_eq!(class[11], 2);
/// ```
pub fn blobs(per: usize, k: usize, d: usize, spacing: f64, spread: f64, seed: u64) -> (Samples, Vec<usize>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut data = Vec::with_capacity(per * k * d);
    let mut class = Vec::with_capacity(per * k);
    for c in 0..k {
        for _ in 0..per {
            data.extend((0..d).map(|j| spacing * ((c + j) % k) as f64 + spread * normal(&mut rng)));
            class.push(c);
        }
    }
    (Samples::from_flat(data, per * k, d).expect("finite values"), class)
}

/// Two concentric circles of radius 1 (label +1) and 2 (label −1), `per` points each at evenly spaced
/// angles with radial noise `N(0, noise²)`: the Baudat–Anouar two-circles experiment's shape.
///
/// ```
/// let (x, y) = kern_testkit::data::two_circles(8, 0.0, 3);
/// assert_eq!(x.n(), 16);
/// let r: f64 = x.row(0).iter().map(|v| v * v).sum::<f64>().sqrt();
/// assert!((r - 1.0).abs() < 1e-12 && y[0] == 1.0);
/// ```
pub fn two_circles(per: usize, noise: f64, seed: u64) -> (Samples, Vec<f64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut rows = Vec::with_capacity(2 * per);
    let mut y = Vec::with_capacity(2 * per);
    for (radius, label) in [(1.0, 1.0), (2.0, -1.0)] {
        for i in 0..per {
            let t = std::f64::consts::TAU * i as f64 / per as f64;
            let r = radius + noise * normal(&mut rng);
            rows.push([r * t.cos(), r * t.sin()]);
            y.push(label);
        }
    }
    (Samples::from_rows(&rows).expect("finite rows"), y)
}
