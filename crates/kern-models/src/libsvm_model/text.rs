//! The text of a LIBSVM model file: [`LibsvmModel::parse`] (`read_model_header` + `svm_load_model`) and
//! [`LibsvmModel::to_text`] (`svm_save_model`).

use super::{LibsvmKernel, LibsvmModel, SvmType, fmt_g17};
use crate::error::{ModelsError, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Whether `bytes` start like a LIBSVM model file (its first word is `svm_type`), to tell them apart
/// from kern's own model files.
///
/// ```
/// use kern_models::libsvm_model::looks_like_libsvm_model;
/// assert!(looks_like_libsvm_model(b"svm_type c_svc\nkernel_type rbf\n"));
/// assert!(!looks_like_libsvm_model(b"KERNMODL\x01\0\0\0"));
/// ```
pub fn looks_like_libsvm_model(bytes: &[u8]) -> bool {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    let rest = &bytes[start..];
    rest.starts_with(b"svm_type") && rest.get(8).is_none_or(|b| b.is_ascii_whitespace())
}

struct Header {
    svm_type: Option<SvmType>,
    kernel_type: Option<&'static str>,
    degree: Option<i32>,
    gamma: Option<f64>,
    coef0: Option<f64>,
    nr_class: Option<usize>,
    total_sv: Option<usize>,
    rho: Option<Vec<f64>>,
    label: Option<Vec<i32>>,
    prob_a: Option<Vec<f64>>,
    prob_b: Option<Vec<f64>>,
    marks: Option<Vec<f64>>,
    nr_sv: Option<Vec<usize>>,
}

const KERNEL_TYPES: [&str; 5] = ["linear", "polynomial", "rbf", "sigmoid", "precomputed"];

impl LibsvmModel {
    /// Reads a LIBSVM model file.
    ///
    /// ```no_run
    /// let m = kern_models::libsvm_model::LibsvmModel::load(std::path::Path::new("heart_scale.model"))?;
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path)
            .map_err(|source| ModelsError::Io { path: path.display().to_string(), source })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            ModelsError::Input(format!("{}: not a LIBSVM model file (not text)", path.display()))
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a LIBSVM model file with `read_model_header`'s rules (an unknown header word
    /// is an error), then checks what LIBSVM's predictor relies on: the counts of `rho`, `label`,
    /// `nr_sv`, `probA`/`probB` and of the support vector lines and their coefficients, and 1-based
    /// strictly ascending feature indices. `path` names the source in errors.
    ///
    /// ```
    /// use kern_models::libsvm_model::LibsvmModel;
    /// let text = "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:1\n-1 1:-1\n";
    /// let m = LibsvmModel::parse(text, "m.txt")?;
    /// assert_eq!(m.labels(), Some(&[1, -1][..]));
    /// assert!(LibsvmModel::parse(&text.replace("rho", "bias"), "m.txt").is_err());
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn parse(text: &str, path: &str) -> Result<Self> {
        let err =
            |reason: String| ModelsError::Input(format!("{path}: not a valid LIBSVM model file: {reason}"));
        let mut h = Header {
            svm_type: None,
            kernel_type: None,
            degree: None,
            gamma: None,
            coef0: None,
            nr_class: None,
            total_sv: None,
            rho: None,
            label: None,
            prob_a: None,
            prob_b: None,
            marks: None,
            nr_sv: None,
        };
        // Header words, with the byte offset just after each.
        let mut words = Words { text, pos: 0 };
        let body_start = loop {
            let Some(cmd) = words.next() else {
                return Err(err("the header ends before the SV line".into()));
            };
            let pairs = || h.nr_class.map(|k| k * k.saturating_sub(1) / 2);
            let need_k = |what: &str| err(format!("{what} appears before nr_class"));
            match cmd {
                "svm_type" => {
                    let w = words.next().unwrap_or("");
                    h.svm_type =
                        Some(SvmType::from_word(w).ok_or_else(|| err(format!("unknown svm type {w:?}")))?);
                }
                "kernel_type" => {
                    let w = words.next().unwrap_or("");
                    let k = KERNEL_TYPES
                        .into_iter()
                        .find(|&k| k == w)
                        .ok_or_else(|| err(format!("unknown kernel function {w:?}")))?;
                    h.kernel_type = Some(k);
                }
                "degree" => h.degree = Some(words.int(cmd).map_err(err)?),
                "gamma" => h.gamma = Some(words.real(cmd).map_err(err)?),
                "coef0" => h.coef0 = Some(words.real(cmd).map_err(err)?),
                "nr_class" => {
                    let k = words.int(cmd).map_err(err)?;
                    h.nr_class = Some(usize::try_from(k).map_err(|_| err(format!("nr_class {k}")))?);
                }
                "total_sv" => {
                    let l = words.int(cmd).map_err(err)?;
                    h.total_sv = Some(usize::try_from(l).map_err(|_| err(format!("total_sv {l}")))?);
                }
                "rho" => h.rho = Some(words.reals(cmd, pairs().ok_or_else(|| need_k(cmd))?).map_err(err)?),
                "probA" => {
                    h.prob_a = Some(words.reals(cmd, pairs().ok_or_else(|| need_k(cmd))?).map_err(err)?)
                }
                "probB" => {
                    h.prob_b = Some(words.reals(cmd, pairs().ok_or_else(|| need_k(cmd))?).map_err(err)?)
                }
                "prob_density_marks" => h.marks = Some(words.reals(cmd, 10).map_err(err)?),
                "label" => {
                    let k = h.nr_class.ok_or_else(|| need_k(cmd))?;
                    h.label = Some(
                        (0..k).map(|_| words.int(cmd)).collect::<std::result::Result<_, _>>().map_err(err)?,
                    );
                }
                "nr_sv" => {
                    let k = h.nr_class.ok_or_else(|| need_k(cmd))?;
                    let v: Vec<i32> =
                        (0..k).map(|_| words.int(cmd)).collect::<std::result::Result<_, _>>().map_err(err)?;
                    h.nr_sv = Some(
                        v.iter()
                            .map(|&c| usize::try_from(c).map_err(|_| err(format!("nr_sv count {c}"))))
                            .collect::<Result<_>>()?,
                    );
                }
                "SV" => {
                    // The rest of the SV line is skipped, as LIBSVM does.
                    break text[words.pos..].find('\n').map_or(text.len(), |i| words.pos + i + 1);
                }
                other => return Err(err(format!("unknown text in model file: {other:?}"))),
            }
        };
        build(h, &text[body_start..], &err)
    }

    /// The model file's text, as `svm_save_model` writes it (real numbers in `%.17g`; see the module
    /// docs for the one deliberate difference, the support vectors' coordinates in `%.17g`).
    ///
    /// ```
    /// use kern_models::libsvm_model::LibsvmModel;
    /// let text = "svm_type epsilon_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 1\nrho -0.25\nSV\n0.75 2:1.5 \n";
    /// assert_eq!(LibsvmModel::parse(text, "m")?.to_text(), text);
    /// # Ok::<(), kern_models::ModelsError>(())
    /// ```
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let k = &self.kernel;
        let line = |s: &mut String, name: &str, vals: &[f64]| {
            s.push_str(name);
            for v in vals {
                s.push(' ');
                s.push_str(&fmt_g17(*v));
            }
            s.push('\n');
        };
        writeln!(s, "svm_type {}", self.svm_type.name()).expect("String write");
        writeln!(s, "kernel_type {}", k.kernel_type).expect("String write");
        if k.kernel_type == "polynomial" {
            writeln!(s, "degree {}", k.degree).expect("String write");
        }
        if matches!(k.kernel_type, "polynomial" | "rbf" | "sigmoid") {
            writeln!(s, "gamma {}", fmt_g17(k.gamma)).expect("String write");
        }
        if matches!(k.kernel_type, "polynomial" | "sigmoid") {
            writeln!(s, "coef0 {}", fmt_g17(k.coef0)).expect("String write");
        }
        writeln!(s, "nr_class {}", self.nr_class).expect("String write");
        writeln!(s, "total_sv {}", self.sv.len()).expect("String write");
        line(&mut s, "rho", &self.rho);
        if let Some(label) = &self.label {
            s.push_str("label");
            for l in label {
                write!(s, " {l}").expect("String write");
            }
            s.push('\n');
        }
        if let Some(a) = &self.prob_a {
            line(&mut s, "probA", a);
        }
        if let Some(b) = &self.prob_b {
            line(&mut s, "probB", b);
        }
        if let Some(m) = &self.prob_density_marks {
            line(&mut s, "prob_density_marks", m);
        }
        if let Some(n) = &self.nr_sv {
            s.push_str("nr_sv");
            for c in n {
                write!(s, " {c}").expect("String write");
            }
            s.push('\n');
        }
        s.push_str("SV\n");
        for (i, sv) in self.sv.iter().enumerate() {
            for col in &self.sv_coef {
                s.push_str(&fmt_g17(col[i]));
                s.push(' ');
            }
            for &(j, v) in sv {
                write!(s, "{j}:{} ", fmt_g17(v)).expect("String write");
            }
            s.push('\n');
        }
        s
    }

    /// Writes [`LibsvmModel::to_text`] to `path` (through kern-core's file writer).
    ///
    /// ```no_run
    /// # fn f(m: &kern_models::libsvm_model::LibsvmModel) -> kern_models::Result<()> {
    /// m.save(std::path::Path::new("model.txt"))?;
    /// # Ok(()) }
    /// ```
    pub fn save(&self, path: &Path) -> Result<()> {
        kern_core::io::write_atomic(path, self.to_text().as_bytes()).map_err(|e| match e {
            kern_core::CoreError::Io { path, source } => {
                ModelsError::Io { path: path.display().to_string(), source }
            }
            other => ModelsError::Core(other),
        })
    }
}

/// White-space separated words of the header (fscanf's `%s`), tracking the position.
struct Words<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Words<'a> {
    fn next(&mut self) -> Option<&'a str> {
        let rest = &self.text[self.pos..];
        let start = rest.find(|c: char| !c.is_ascii_whitespace())?;
        let len = rest[start..].find(|c: char| c.is_ascii_whitespace()).unwrap_or(rest.len() - start);
        self.pos += start + len;
        Some(&rest[start..start + len])
    }
    fn int(&mut self, what: &str) -> std::result::Result<i32, String> {
        let w = self.next().ok_or_else(|| format!("{what}: missing value"))?;
        w.parse().map_err(|_| format!("{what}: {w:?} is not an integer"))
    }
    fn real(&mut self, what: &str) -> std::result::Result<f64, String> {
        let w = self.next().ok_or_else(|| format!("{what}: missing value"))?;
        real(w).ok_or_else(|| format!("{what}: {w:?} is not a finite number"))
    }
    fn reals(&mut self, what: &str, n: usize) -> std::result::Result<Vec<f64>, String> {
        (0..n).map(|_| self.real(what)).collect()
    }
}

fn real(w: &str) -> Option<f64> {
    w.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn build(h: Header, body: &str, err: &dyn Fn(String) -> ModelsError) -> Result<LibsvmModel> {
    let svm_type = h.svm_type.ok_or_else(|| err("no svm_type".into()))?;
    let kernel_type = h.kernel_type.ok_or_else(|| err("no kernel_type".into()))?;
    let need =
        |v: Option<f64>, name: &str| v.ok_or_else(|| err(format!("{kernel_type} kernel without {name}")));
    let kernel = LibsvmKernel {
        kernel_type,
        degree: if kernel_type == "polynomial" {
            h.degree.ok_or_else(|| err("polynomial kernel without degree".into()))?
        } else {
            h.degree.unwrap_or(0)
        },
        gamma: if matches!(kernel_type, "linear" | "precomputed") {
            h.gamma.unwrap_or(0.0)
        } else {
            need(h.gamma, "gamma")?
        },
        coef0: if matches!(kernel_type, "polynomial" | "sigmoid") {
            need(h.coef0, "coef0")?
        } else {
            h.coef0.unwrap_or(0.0)
        },
    };
    let spec = kernel.spec().map_err(|e| err(e.to_string()))?;
    let precomputed = kernel.is_precomputed();
    let k = h.nr_class.ok_or_else(|| err("no nr_class".into()))?;
    let l = h.total_sv.ok_or_else(|| err("no total_sv".into()))?;
    let rho = h.rho.ok_or_else(|| err("no rho".into()))?;
    if svm_type.is_classifier() {
        if k < 2 {
            return Err(err(format!("a classifier with nr_class {k}")));
        }
        if h.label.is_none() || h.nr_sv.is_none() {
            return Err(err("a classifier without label or nr_sv".into()));
        }
        if h.prob_a.is_some() != h.prob_b.is_some() {
            return Err(err("probA without probB (or the reverse)".into()));
        }
    } else if k != 2 {
        return Err(err(format!("a {} model with nr_class {k} (LIBSVM writes 2)", svm_type.name())));
    }
    if let Some(n) = &h.nr_sv
        && n.iter().sum::<usize>() != l
    {
        return Err(err(format!("nr_sv adds up to {}, total_sv is {l}", n.iter().sum::<usize>())));
    }
    if let Some(m) = &h.marks
        && m.windows(2).any(|w| w[0] > w[1])
    {
        return Err(err("prob_density_marks are not ascending".into()));
    }
    let m = k - 1;
    // The counts of the header size nothing until the body has shown them: a crafted `total_sv
    // 2000000000` must not reserve 48 GB before the second line says the file is short. Every support
    // vector is a line of the body, and every coefficient a token of its line, so once `l` lines are
    // there the reservations below are bounded by the file's own size.
    let found = body.lines().filter(|ln| !ln.trim().is_empty()).count();
    if found < l {
        return Err(err(format!("{l} support vectors announced, {found} found")));
    }
    let mut sv_coef: Vec<Vec<f64>> =
        kern_core::memory::try_with_capacity(m, "the model's coefficient columns", "")?;
    for _ in 0..m {
        sv_coef.push(kern_core::memory::try_with_capacity(l, "the model's coefficients", "")?);
    }
    let mut sv = kern_core::memory::try_with_capacity(l, "the model's support vectors", "")?;
    let mut lines = body.lines().filter(|ln| !ln.trim().is_empty());
    for i in 0..l {
        let ln = lines.next().ok_or_else(|| err(format!("{l} support vectors announced, {i} found")))?;
        let mut toks = ln.split_ascii_whitespace();
        for col in sv_coef.iter_mut() {
            let t = toks.next().unwrap_or("");
            col.push(real(t).ok_or_else(|| err(format!("support vector {}: coefficient {t:?}", i + 1)))?);
        }
        let mut nodes: Vec<(u32, f64)> = Vec::new();
        for t in toks {
            let bad = || err(format!("support vector {}: {t:?} is not INDEX:VALUE", i + 1));
            let (a, b) = t.split_once(':').ok_or_else(bad)?;
            let j: u32 = a.parse().map_err(|_| bad())?;
            let v = real(b).ok_or_else(bad)?;
            if precomputed {
                // `0:serial` and nothing else (svm_save_model writes `0:%d`).
                if j != 0 || !nodes.is_empty() || !(v >= 1.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX))
                {
                    return Err(err(format!(
                        "support vector {}: a precomputed-kernel model has one entry 0:SERIAL (a training \
                         point's number, from 1) per support vector, found {t:?}",
                        i + 1
                    )));
                }
                nodes.push((0, v));
                continue;
            }
            if j == 0 || nodes.last().is_some_and(|&(p, _)| p >= j) {
                return Err(err(format!(
                    "support vector {}: feature indices must be 1-based and ascending ({t:?})",
                    i + 1
                )));
            }
            nodes.push((j, v));
        }
        if precomputed && nodes.is_empty() {
            return Err(err(format!("support vector {}: no 0:SERIAL entry", i + 1)));
        }
        sv.push(nodes);
    }
    if lines.next().is_some() {
        return Err(err(format!("more support vector lines than total_sv = {l}")));
    }
    Ok(LibsvmModel {
        svm_type,
        kernel,
        spec,
        nr_class: k,
        rho,
        label: h.label,
        prob_a: h.prob_a,
        prob_b: h.prob_b,
        prob_density_marks: h.marks,
        nr_sv: h.nr_sv,
        sv_coef,
        sv,
    })
}
