//! A structure-aware random fuzz driver (no coverage feedback; the coverage-guided driver is `cov.rs`).
//! For each target it generates inputs from the
//! target's grammar with hostile values mixed in, and mutates seeds (valid files and models) with
//! byte flips, insertions, deletions and splices; every input runs under `catch_unwind`, and an input
//! that panics is saved under `fuzz/crashes/TARGET/` (copy it to `fuzz/corpus/TARGET/` to make it a
//! regression test).
//!
//! Usage: `cargo run --release -- TARGET EXECUTIONS [SEED]`, TARGET one of libsvm, csv, kernel_spec,
//! grid_spec, model, libsvm_model, precomputed_rows, scale_params.

#![allow(missing_docs)]

mod seeds;
mod targets;

use seeds::{fnv1a64, model_seeds};

use std::path::{Path, PathBuf};

/// xorshift64*: the driver's only source of randomness (seeded, reproducible).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

const NUMBERS: [&str; 24] = [
    "0",
    "1",
    "-1",
    "0.5",
    "-0",
    "2",
    "3",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "1e10",
    "64",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "",
    "+1",
    ".5",
    "1.",
    "99999999999",
];

fn number(r: &mut Rng) -> String {
    if r.chance(0.5) {
        format!("{}", (r.next() % 2000) as f64 / 100.0 - 10.0)
    } else {
        r.pick(&NUMBERS).to_string()
    }
}

fn gen_libsvm(r: &mut Rng) -> Vec<u8> {
    let mut s = String::new();
    for _ in 0..r.below(8) {
        s.push_str(&number(r));
        let mut idx = 0u64;
        for _ in 0..r.below(6) {
            // Any index a file can hold: the reader keeps sparse files sparse, so a huge index must be
            // read in O(nnz) memory or refused with an error (never a dense row of that size).
            let span = match r.below(20) {
                0 | 1 => 1u64 << 19,
                2 => 1u64 << 40,
                _ => 4,
            };
            idx = idx.saturating_add(1 + r.next() % span);
            let i = if r.chance(0.05) {
                r.pick(&["0", "-1", "x", "1.5", "", "18446744073709551615", "18446744073709551616"])
                    .to_string()
            } else {
                idx.to_string()
            };
            s.push_str(&format!(" {i}:{}", number(r)));
        }
        if r.chance(0.1) {
            s.push_str(r.pick(&[" # comment", " qid:3", ":", " 1:", " :1", "\t", "\r"]));
        }
        s.push('\n');
    }
    s.into_bytes()
}

fn gen_csv(r: &mut Rng) -> Vec<u8> {
    let cols = 1 + r.below(4);
    let mut s = String::new();
    if r.chance(0.1) {
        s.push('\u{feff}');
    }
    let sep = r.pick(&[",", ";", "\t", ","]);
    if r.chance(0.7) {
        let h: Vec<String> = (0..cols)
            .map(|c| r.pick(&["x", "y", "label", "\"q\"", "", "id"]).to_string() + &c.to_string())
            .collect();
        s.push_str(&h.join(sep));
        s.push('\n');
    }
    for _ in 0..r.below(8) {
        let n = if r.chance(0.1) { r.below(cols + 2) } else { cols };
        let f: Vec<String> = (0..n)
            .map(|_| {
                if r.chance(0.2) {
                    r.pick(&["a", "b", "?", "NA", "\"x,y\"", "\"", "id7"]).to_string()
                } else {
                    number(r)
                }
            })
            .collect();
        s.push_str(&f.join(sep));
        s.push_str(r.pick(&["\n", "\r\n", "\n"]));
    }
    s.into_bytes()
}

const KERNELS: [&str; 14] = [
    "linear",
    "gaussian",
    "laplacian",
    "poly",
    "sigmoid",
    "spline",
    "log",
    "cs-gaussian",
    "rbf",
    "indicator",
    "gausian",
    "cs-laplacian",
    "",
    "railway",
];
const KEYS: [&str; 12] =
    ["sigma", "beta", "gamma", "degree", "scale", "coef0", "c", "nu", "std", "center", "radius", "x"];

fn gen_spec(r: &mut Rng, depth: usize) -> String {
    let atom = |r: &mut Rng| {
        let mut s = r.pick(&KERNELS).to_string();
        let n = r.below(4);
        for i in 0..n {
            s.push(if i == 0 { ':' } else { ',' });
            s.push_str(r.pick(&KEYS));
            s.push('=');
            s.push_str(&number(r));
            if r.chance(0.05) {
                s.push(';');
                s.push_str(&number(r));
            }
        }
        s
    };
    if depth > 70 || r.chance(0.4) {
        return atom(r);
    }
    match r.below(6) {
        0 => format!("{} + {}", gen_spec(r, depth + 1), gen_spec(r, depth + 1)),
        1 => format!("{} * {}", gen_spec(r, depth + 1), gen_spec(r, depth + 1)),
        2 => format!("{} * {}", number(r), gen_spec(r, depth + 1)),
        3 => format!("({})", gen_spec(r, depth + 1)),
        4 => format!("{}{}{}", "(".repeat(r.below(80)), atom(r), ")".repeat(r.below(80))),
        _ => atom(r),
    }
}

fn gen_grid(r: &mut Rng) -> String {
    let mut axes = Vec::new();
    for _ in 0..1 + r.below(4) {
        let name = r.pick(&["c", "sigma", "lambda", "k.c", "1x", "", "c"]);
        let range = match r.below(4) {
            0 => format!(
                "{}..{}:{}",
                number(r),
                number(r),
                r.pick(&["1", "3", "0", "1000000", "1000001", "18446744073709551615", "-1", "x"])
            ),
            1 => format!("2^{}..2^{}:{}", number(r), number(r), r.below(20)),
            2 => format!("[{},{}]", number(r), number(r)),
            _ => number(r),
        };
        axes.push(format!("{name}={range}"));
    }
    axes.join(r.pick(&[",", ",", ";", ",,"]))
}

fn mutate(r: &mut Rng, mut v: Vec<u8>) -> Vec<u8> {
    for _ in 0..1 + r.below(4) {
        if v.is_empty() {
            v.push(r.next() as u8);
            continue;
        }
        let i = r.below(v.len());
        match r.below(5) {
            0 => v[i] ^= 1 << r.below(8),
            1 => v[i] = r.next() as u8,
            2 => v.insert(i, r.next() as u8),
            3 => {
                v.remove(i);
            }
            _ => {
                let j = r.below(v.len());
                let len = r.below(16).min(v.len() - i.max(j));
                let chunk = v[j..j + len].to_vec();
                v.splice(i..i, chunk);
            }
        }
    }
    v
}

fn gen_model(r: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let seed = &seeds[r.below(seeds.len())];
    let mut payload = mutate(r, seed[40..].to_vec());
    if r.chance(0.3) {
        payload = mutate(r, payload);
    }
    let mut out = seed[..40].to_vec();
    if r.chance(0.05) {
        // Relabel the kind tag.
        let kinds: [&[u8; 12]; 4] = [
            b"svc\0\0\0\0\0\0\0\0\0",
            b"krr\0\0\0\0\0\0\0\0\0",
            b"lssvm\0\0\0\0\0\0\0",
            b"kpca\0\0\0\0\0\0\0\0",
        ];
        out[12..24].copy_from_slice(kinds[r.below(4)]);
    }
    // Mostly a valid header, so the payload decoder and validation are what is exercised.
    if r.chance(0.9) {
        out[24..32].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        out[32..40].copy_from_slice(&fnv1a64(&payload).to_le_bytes());
    }
    out.extend_from_slice(&payload);
    if r.chance(0.02) { mutate(r, out) } else { out }
}

/// The committed seeds of a target (`corpus/TARGET/`), to mutate.
fn corpus_seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .map(|es| es.flatten().filter_map(|e| std::fs::read(e.path()).ok()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// A seed with one to four mutations.
fn gen_from_seeds(r: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seeds.get(r.below(seeds.len())).cloned().unwrap_or_default();
    for _ in 0..1 + r.below(4) {
        v = mutate(r, v);
    }
    v
}

/// Rows of a precomputed kernel: `LABEL 0:ROW 1:K 2:K ...`, with hostile values mixed in.
fn gen_precomputed(r: &mut Rng) -> Vec<u8> {
    let mut s = String::new();
    for row in 0..r.below(6) {
        s += &number(r);
        let id = if r.chance(0.8) { (row + 1).to_string() } else { number(r) };
        s += &format!(" 0:{id}");
        for k in 1..=r.below(6) {
            let k = if r.chance(0.9) { k.to_string() } else { number(r) };
            s += &format!(" {k}:{}", number(r));
        }
        s.push_str(if r.chance(0.1) { " # c\n" } else { "\n" });
    }
    s.into_bytes()
}

/// An svm-scale parameter file: optional `y` section, `x` section, `INDEX MIN MAX` lines.
fn gen_scale(r: &mut Rng) -> Vec<u8> {
    let mut s = String::new();
    if r.chance(0.3) {
        s += &format!("y\n{} {}\n{} {}\n", number(r), number(r), number(r), number(r));
    }
    s += &format!("x\n{} {}\n", number(r), number(r));
    for j in 1..=r.below(6) {
        let j = if r.chance(0.8) { j.to_string() } else { number(r) };
        s += &format!("{j} {} {}\n", number(r), number(r));
    }
    s.into_bytes()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).map(String::as_str).unwrap_or("kernel_spec").to_string();
    let execs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    assert!(targets::TARGETS.contains(&target.as_str()), "target must be one of {:?}", targets::TARGETS);
    kern_core::memory::set_limit(Some(2 << 30));
    let scratch: PathBuf = std::env::temp_dir().join(format!("kern-fuzz-{target}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let crashes = Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes").join(&target);
    let seeds = match target.as_str() {
        "model" => model_seeds(),
        "libsvm_model" => corpus_seeds(&target),
        _ => Vec::new(),
    };
    std::panic::set_hook(Box::new(|_| {}));
    let mut r = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let (mut n_crash, t0) = (0u64, std::time::Instant::now());
    let mut last: Vec<u8> = Vec::new();
    for i in 0..execs {
        let fresh = match target.as_str() {
            "libsvm" => gen_libsvm(&mut r),
            "csv" => gen_csv(&mut r),
            "kernel_spec" => gen_spec(&mut r, 0).into_bytes(),
            "grid_spec" => gen_grid(&mut r).into_bytes(),
            "libsvm_model" => gen_from_seeds(&mut r, &seeds),
            "precomputed_rows" => gen_precomputed(&mut r),
            "scale_params" => gen_scale(&mut r),
            _ => gen_model(&mut r, &seeds),
        };
        let input = if target != "model" && !last.is_empty() && r.chance(0.3) {
            mutate(&mut r, last.clone())
        } else {
            fresh
        };
        let ok = std::panic::catch_unwind(|| targets::run(&target, &input, &scratch)).is_ok();
        if !ok {
            n_crash += 1;
            std::fs::create_dir_all(&crashes).unwrap();
            let name = format!("crash-{:016x}", fnv1a64(&input));
            std::fs::write(crashes.join(&name), &input).unwrap();
            eprintln!(
                "crash at execution {i}: saved {name}: {:?}",
                String::from_utf8_lossy(&input[..input.len().min(200)])
            );
        }
        last = input;
        if (i + 1) % 1_000_000 == 0 {
            eprintln!(
                "{target}: {} executions, {n_crash} crashes, {:.0} s",
                i + 1,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "{{\"target\": \"{target}\", \"executions\": {execs}, \"crashes\": {n_crash}, \"seed\": {seed}, \"seconds\": {:.1}}}",
        t0.elapsed().as_secs_f64()
    );
}
