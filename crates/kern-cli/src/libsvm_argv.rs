//! LIBSVM's command lines, read as kern's: `kern train [options] DATA [MODEL]` takes svm-train's
//! options (`-s -t -d -g -r -c -n -p -m -e -h -b -wi -v -q`), `kern predict [options] TEST MODEL
//! OUTPUT` svm-predict's (`-b -q`), and `kern scale [options] DATA` svm-scale's (its `-l -u -y -s -r`
//! are flags of `kern scale` itself). The arguments are rewritten into kern's long flags before
//! clap reads them, so each option has one implementation: `-c 4` is `--c 4`, `-t 2 -g 0.5` is
//! `--kernel rbf:gamma=0.5`, `-v 5` is `kern cv --folds 5` over a one-cell grid. A file given by
//! position is `--data`; the model of `kern train DATA` is written to `DATA.model` (the file name
//! of DATA in the current folder), as svm-train writes it.

use std::ffi::OsString;
use std::path::Path;

/// svm-train's options that take a value, by letter, with the kern flag each one is.
const TRAIN_VALUE: [(char, &str); 13] = [
    ('s', "--type"),
    ('t', "kernel type"),
    ('d', "degree"),
    ('g', "gamma"),
    ('r', "coef0"),
    ('c', "--c"),
    ('n', "--nu"),
    ('p', "--epsilon-tube"),
    ('m', "--cache-mb"),
    ('e', "--tol"),
    ('h', "--no-shrinking"),
    ('b', "--probability"),
    ('v', "--folds"),
];

/// The long flags of `kern train`, `kern cv`, `kern predict` and `kern scale` that take no value
/// (every other long flag takes one).
const SWITCHES: [&str; 14] = [
    "--auto",
    "--one-hot",
    "--probability",
    "--regression",
    "--allow-many-classes",
    "--no-shrinking",
    "--scale",
    "--progress",
    "--quiet",
    "--force",
    "--help",
    "--no-warm-start",
    "--vote-label",
    "--version",
];

/// The subcommands whose data file may be given by position.
const POSITIONAL: [&str; 5] = ["train", "predict", "scale", "cv", "info"];

/// svm-train's `-s` codes.
const SVM_TYPES: [&str; 5] = ["c-svc", "nu-svc", "one-class", "epsilon-svr", "nu-svr"];

/// Rewrites a command line that uses LIBSVM's options or positional files into kern's flags
/// (anything else is returned as given). The error says which option is wrong and what LIBSVM's
/// options are.
///
/// ```ignore
/// let a = rewrite(args(&["kern", "train", "-c", "4", "-t", "0", "heart"]))?;
/// assert_eq!(a, args(&["kern", "train", "--type", "c-svc", "--kernel", "linear", "--c", "4", "--data", "heart", "--out", "heart.model"]));
/// ```
pub fn rewrite(argv: Vec<OsString>) -> Result<Vec<OsString>, String> {
    // The subcommand: the first word that is not a global flag or its value.
    let mut i = 1;
    while i < argv.len() {
        let w = argv[i].to_string_lossy();
        if w == "--max-memory" {
            i += 2;
        } else if w.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let Some(cmd) = argv.get(i).map(|c| c.to_string_lossy().into_owned()) else { return Ok(argv) };
    if !POSITIONAL.contains(&cmd.as_str()) {
        return Ok(argv);
    }
    let head: Vec<OsString> = argv[..i].to_vec();
    let rest: Vec<String> = argv[i + 1..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let (cmd, out) = match cmd.as_str() {
        "train" => train(rest)?,
        "predict" => predict(rest)?,
        c => (c.to_string(), other(c, rest)?),
    };
    Ok(head
        .into_iter()
        .chain(std::iter::once(cmd.into()))
        .chain(out.into_iter().map(OsString::from))
        .collect())
}

/// The words of a command line split into long flags (with their values), short options (letter
/// and value) and positional words.
#[derive(Default)]
struct Split {
    long: Vec<String>,
    short: Vec<(String, String)>,
    positional: Vec<String>,
    /// The short options without a value (also in `long`, for clap).
    switches: Vec<String>,
}

impl Split {
    /// Whether long flag `flag` is given.
    fn has(&self, flag: &str) -> bool {
        self.long.iter().any(|w| w == flag || w.starts_with(&format!("{flag}=")))
    }

    /// The value of short option `letter` (the last one given).
    fn short(&self, letter: &str) -> Option<&str> {
        self.short.iter().rev().find(|(l, _)| l == letter).map(|(_, v)| v.as_str())
    }
}

/// Splits `words`, where `valued(letter)` says whether short option `-letter` takes a value (the
/// short options without one are kept as long words, as clap reads them).
fn split(words: Vec<String>, valued: &dyn Fn(&str) -> bool) -> Result<Split, String> {
    let mut s = Split::default();
    let mut it = words.into_iter().peekable();
    while let Some(w) = it.next() {
        if w == "--" {
            s.positional.extend(it.by_ref());
            break;
        }
        if let Some(name) = w.strip_prefix("--") {
            let takes_value = !SWITCHES.contains(&w.as_str()) && !name.contains('=');
            s.long.push(w.clone());
            if takes_value && let Some(v) = it.next() {
                s.long.push(v);
            }
        } else if let Some(letter) = w.strip_prefix('-').filter(|l| !l.is_empty()) {
            // `-h 0`/`-h 1` is svm-train's shrinking; `-h` alone is the help.
            let help = letter == "h" && !it.peek().is_some_and(|v| v == "0" || v == "1");
            if valued(letter) && !help {
                let v = it.next().ok_or_else(|| format!("-{letter} needs a value"))?;
                s.short.push((letter.to_string(), v));
            } else {
                s.switches.push(w.clone());
                s.long.push(w);
            }
        } else {
            s.positional.push(w);
        }
    }
    Ok(s)
}

/// Whether `letter` is one of svm-train's options with a value (`-wLABEL` too).
fn train_valued(letter: &str) -> bool {
    letter.starts_with('w') && letter.len() > 1 || TRAIN_VALUE.iter().any(|(c, _)| letter == c.to_string())
}

/// The refusal of an unknown short option `-x` of `cmd`, with the nearest known option.
fn unknown(cmd: &str, w: &str, known: &[&str]) -> String {
    let letter = w.trim_start_matches('-');
    let near = known.iter().find(|k| k.trim_start_matches('-').eq_ignore_ascii_case(letter));
    // The long flag of the option, when it is one of kern's.
    let long = |k: &str| {
        TRAIN_VALUE
            .iter()
            .find(|(c, f)| k == format!("-{c}") && f.starts_with("--"))
            .map_or(String::new(), |(_, f)| format!(" / {f}"))
    };
    let hint = match near {
        Some(k) => format!("did you mean {k}{}?", if cmd == "train" { long(k) } else { String::new() }),
        None => format!("kern {cmd} takes {}", known.join(" ")),
    };
    format!("unknown option {w} of kern {cmd}: {hint} (kern {cmd} --help lists the long flags)")
}

/// The short options clap knows of every command (the global `-q`, the help and the version).
const CLAP_SHORT: [&str; 3] = ["-q", "-h", "-V"];

/// `kern train` with svm-train's options and files (or `kern cv` for `-v N`).
fn train(words: Vec<String>) -> Result<(String, Vec<String>), String> {
    let s = split(words, &train_valued)?;
    let libsvm = !s.short.is_empty() || !s.positional.is_empty();
    let known =
        ["-s", "-t", "-d", "-g", "-r", "-c", "-n", "-p", "-m", "-e", "-h", "-b", "-wLABEL", "-v", "-q"];
    if let Some(w) = s.switches.iter().find(|w| !CLAP_SHORT.contains(&w.as_str())) {
        return Err(unknown("train", w, &known));
    }
    let mut out: Vec<String> = Vec::new();
    let number = |letter: &str, v: &str| -> Result<(), String> {
        v.parse::<f64>().map(|_| ()).map_err(|_| format!("-{letter} {v}: expected a number"))
    };
    // The model: -s, else LIBSVM's default c-svc when the line is LIBSVM's.
    let given_model = s.has("--model") || s.has("--type");
    let svm_type = match s.short("s") {
        Some(code) => {
            if given_model {
                return Err("give -s or --model/--type, not both".into());
            }
            let t = code.parse::<usize>().ok().and_then(|c| SVM_TYPES.get(c)).ok_or_else(|| {
                format!(
                    "-s {code}: svm-train's types are 0 (c-svc), 1 (nu-svc), 2 (one-class), 3 (epsilon-svr) \
                     and 4 (nu-svr)"
                )
            })?;
            Some(*t)
        }
        None if libsvm && !given_model => Some("c-svc"),
        None => None,
    };
    if let Some(t) = svm_type {
        out.extend(["--type".into(), t.into()]);
    }
    // The kernel: -t with -g, -d, -r (LIBSVM's defaults: rbf, gamma 1/d, degree 3, coef0 0).
    let kernel_opts = ["t", "g", "d", "r"].iter().any(|l| s.short(l).is_some());
    if kernel_opts && s.has("--kernel") {
        return Err("give -t/-g/-d/-r or --kernel, not both".into());
    }
    for l in ["g", "d", "r"] {
        if let Some(v) = s.short(l) {
            number(l, v)?;
        }
    }
    if kernel_opts || (libsvm && !s.has("--kernel")) {
        let g = s.short("g").unwrap_or("1/d");
        let (d, r) = (s.short("d").unwrap_or("3"), s.short("r").unwrap_or("0"));
        let k = match s.short("t").unwrap_or("2") {
            "0" => "linear".to_string(),
            "1" => format!("poly:degree={d},scale={g},coef0={r}"),
            "2" => format!("rbf:gamma={g}"),
            "3" => format!("sigmoid:a={g},b={r}"),
            "4" => "precomputed".to_string(),
            t => {
                return Err(format!(
                    "-t {t}: svm-train's kernel types are 0 (linear), 1 (polynomial), 2 (radial basis \
                     function), 3 (sigmoid) and 4 (precomputed)"
                ));
            }
        };
        out.extend(["--kernel".into(), k]);
    }
    let folds = s.short("v");
    // With -v, the model parameter of the type is the one-cell grid (kern cv sets it from the grid).
    let axis = match svm_type.unwrap_or("c-svc") {
        "nu-svc" => "n",
        _ => "c",
    };
    for (letter, flag) in
        [("c", "--c"), ("n", "--nu"), ("p", "--epsilon-tube"), ("m", "--cache-mb"), ("e", "--tol")]
    {
        if let Some(v) = s.short(letter) {
            number(letter, v)?;
            if folds.is_none() || letter != axis {
                out.extend([flag.into(), v.into()]);
            }
        }
    }
    match s.short("h") {
        Some("0") => out.push("--no-shrinking".into()),
        Some("1") | None => {}
        Some(v) => return Err(format!("-h {v}: expected 0 or 1 (shrinking off or on)")),
    }
    match s.short("b") {
        Some("1") => out.push("--probability".into()),
        Some("0") | None => {}
        Some(v) => return Err(format!("-b {v}: expected 0 or 1 (probability estimates off or on)")),
    }
    for (l, v) in &s.short {
        if let Some(label) = l.strip_prefix('w') {
            number(l, v)?;
            out.extend(["--class-weight".into(), format!("{label}:{v}")]);
        }
    }
    out.extend(s.long.iter().cloned());
    let mut files = s.positional.clone().into_iter();
    let data = files.next();
    let model = files.next();
    if let Some(extra) = files.next() {
        return Err(format!("unexpected argument {extra:?}: kern train takes [options] DATA [MODEL]"));
    }
    if let Some(d) = &data {
        if s.long.iter().any(|w| w == "--data" || w.starts_with("--data=")) {
            return Err(format!("the data file is given twice: {d:?} and --data"));
        }
        out.extend(["--data".into(), d.clone()]);
    }
    if let Some(v) = folds {
        if model.is_some() || s.has("--out") {
            return Err("-v (cross-validation) writes no model: leave out MODEL and --out".into());
        }
        let n: usize =
            v.parse().ok().filter(|&n| n >= 2).ok_or_else(|| format!("-v {v}: expected 2 or more folds"))?;
        let value =
            s.short(axis).map(str::to_string).unwrap_or_else(|| if axis == "n" { "0.5" } else { "1" }.into());
        let name = if axis == "n" { "nu" } else { "c" };
        out.extend([
            "--folds".into(),
            n.to_string(),
            "--grid".into(),
            format!("{name}=[{value}]"),
            "--libsvm-report".into(),
        ]);
        return Ok(("cv".into(), out));
    }
    if !s.has("--out") {
        let default = data.as_deref().filter(|d| *d != "-").and_then(|d| Path::new(d).file_name());
        match (model, default) {
            (Some(m), _) => out.extend(["--out".into(), m]),
            (None, Some(name)) => out.extend(["--out".into(), format!("{}.model", name.to_string_lossy())]),
            (None, None) => {}
        }
    } else if model.is_some() {
        return Err("the model file is given twice: as MODEL and --out".into());
    }
    Ok(("train".into(), out))
}

/// `kern predict` with svm-predict's options and files: `[-b 0|1] TEST MODEL OUTPUT`.
fn predict(words: Vec<String>) -> Result<(String, Vec<String>), String> {
    let s = split(words, &|l| l == "b")?;
    if let Some(w) = s.switches.iter().find(|w| !CLAP_SHORT.contains(&w.as_str())) {
        return Err(unknown("predict", w, &["-b", "-q"]));
    }
    let mut out = s.long.clone();
    let values = match s.short("b") {
        Some("1") => Some("probability"),
        Some("0") => Some("label"),
        Some(v) => return Err(format!("-b {v}: expected 0 or 1 (probability estimates off or on)")),
        // svm-predict writes labels only unless -b 1.
        None if !s.positional.is_empty() && !s.has("--values") => Some("label"),
        None => None,
    };
    let mut files = s.positional.clone().into_iter();
    for flag in ["--data", "--model", "--out"] {
        if let Some(f) = files.next() {
            if s.long.iter().any(|w| w == flag || w.starts_with(&format!("{flag}="))) {
                return Err(format!("{flag} is given twice: by position ({f:?}) and as {flag}"));
            }
            out.extend([flag.into(), f]);
        }
    }
    if let Some(extra) = files.next() {
        return Err(format!("unexpected argument {extra:?}: kern predict takes [options] TEST MODEL OUTPUT"));
    }
    if let Some(v) = values {
        if s.has("--values") {
            return Err("give -b or --values, not both".into());
        }
        out.extend(["--values".into(), v.into()]);
    }
    Ok(("predict".into(), out))
}

/// `kern scale`, `kern cv`, `kern info`: the data file by position.
fn other(cmd: &str, words: Vec<String>) -> Result<Vec<String>, String> {
    // kern scale's own short options take a value (-y two).
    let valued = |l: &str| cmd == "scale" && ["l", "u", "s", "r"].contains(&l);
    let mut words = words;
    // -y takes two values: kept as long words (clap reads them).
    if cmd == "scale"
        && let Some(i) = words.iter().position(|w| w == "-y")
    {
        let y: Vec<String> = words.drain(i..(i + 3).min(words.len())).collect();
        let mut s = split(words, &valued)?;
        s.long.extend(y);
        return finish(cmd, s);
    }
    finish(cmd, split(words, &valued)?)
}

/// The split words back as kern's flags, the positional word as `--data`.
fn finish(cmd: &str, s: Split) -> Result<Vec<String>, String> {
    let mut out = s.long.clone();
    for (l, v) in &s.short {
        out.extend([format!("-{l}"), v.clone()]);
    }
    let mut files = s.positional.clone().into_iter();
    if let Some(d) = files.next() {
        if s.has("--data") {
            return Err(format!("the data file is given twice: {d:?} and --data"));
        }
        out.extend(["--data".into(), d]);
    }
    if let Some(extra) = files.next() {
        return Err(format!("unexpected argument {extra:?}: kern {cmd} takes one data file"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    fn words(a: &[&str]) -> Vec<String> {
        rewrite(args(a)).expect("rewrites").into_iter().map(|w| w.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn svm_train_lines_become_kern_flags() {
        assert_eq!(
            words(&["kern", "train", "-c", "4", "-t", "0", "dir/heart"]),
            [
                "kern",
                "train",
                "--type",
                "c-svc",
                "--kernel",
                "linear",
                "--c",
                "4",
                "--data",
                "dir/heart",
                "--out",
                "heart.model"
            ]
        );
        assert_eq!(
            words(&["kern", "-q", "train", "-s", "3", "-p", "0.2", "-g", "0.5", "-r", "-1", "d", "m"]),
            [
                "kern",
                "-q",
                "train",
                "--type",
                "epsilon-svr",
                "--kernel",
                "rbf:gamma=0.5",
                "--epsilon-tube",
                "0.2",
                "--data",
                "d",
                "--out",
                "m"
            ]
        );
        assert_eq!(
            words(&["kern", "train", "-t", "1", "-d", "2", "-w1", "3", "-h", "0", "-b", "1", "d"]),
            [
                "kern",
                "train",
                "--type",
                "c-svc",
                "--kernel",
                "poly:degree=2,scale=1/d,coef0=0",
                "--no-shrinking",
                "--probability",
                "--class-weight",
                "1:3",
                "--data",
                "d",
                "--out",
                "d.model"
            ]
        );
        assert_eq!(
            words(&["kern", "train", "-c", "2", "-v", "5", "d"]),
            [
                "kern",
                "cv",
                "--type",
                "c-svc",
                "--kernel",
                "rbf:gamma=1/d",
                "--data",
                "d",
                "--folds",
                "5",
                "--grid",
                "c=[2]",
                "--libsvm-report"
            ]
        );
        // kern's own lines are left alone.
        let own = [
            "kern", "train", "--data", "d", "--model", "svc", "--kernel", "linear", "--c", "-1", "--out", "m",
        ];
        assert_eq!(words(&own), own);
        assert_eq!(words(&["kern", "train", "-h"]), ["kern", "train", "-h"]);
    }

    #[test]
    fn svm_predict_and_svm_scale_lines_become_kern_flags() {
        assert_eq!(
            words(&["kern", "predict", "-b", "1", "t", "m", "o"]),
            ["kern", "predict", "--data", "t", "--model", "m", "--out", "o", "--values", "probability"]
        );
        assert_eq!(
            words(&["kern", "scale", "-l", "0", "-y", "-1", "1", "d"]),
            ["kern", "scale", "-y", "-1", "1", "-l", "0", "--data", "d"]
        );
    }

    #[test]
    fn wrong_options_are_named() {
        let e = rewrite(args(&["kern", "train", "-C", "4", "d"])).unwrap_err();
        assert!(e.contains("unknown option -C of kern train: did you mean -c / --c?"), "{e}");
        let e = rewrite(args(&["kern", "train", "-s", "7", "d"])).unwrap_err();
        assert!(e.contains("4 (nu-svr)"), "{e}");
        let e = rewrite(args(&["kern", "train", "-t", "2", "--kernel", "linear", "d"])).unwrap_err();
        assert!(e.contains("not both"), "{e}");
    }
}
