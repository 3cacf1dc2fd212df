//! [`KernelSpec`]: the serde / command-line enum of the built-in kernels, its `NAME[:key=value,...]`
//! syntax (README, "The `kern` command"), and monomorphized dispatch through [`KernelVisitor`].
//!
//! Grammar (whitespace ignored):
//!
//! ```text
//! expr   := term ('+' term)*                      sum of kernels
//! term   := factor ('*' factor)*                  product; a number factor scales
//! factor := NUMBER | atom | '(' expr ')'
//! atom   := NAME [':' key '=' value (',' key '=' value)*]
//! ```
//!
//! | name | keys | kernel |
//! |---|---|---|
//! | `gaussian` (`rbf`) | exactly one of `sigma` (exp(−r²/σ²)), `beta`/`gamma` (exp(−βr²)), `std` (exp(−r²/(2σ²))) | [`Gaussian`] |
//! | `laplacian` | `sigma` | [`Laplacian`] (exp(−‖x − y‖₂/σ)) |
//! | `laplacian-l1` | `gamma` | [`LaplacianL1`] (exp(−γ‖x − y‖₁), scikit-learn's `laplacian`) |
//! | `chi2` | `gamma` (1) | [`Chi2`] (exp(−γ Σ (x − y)²/(x + y)), nonnegative features) |
//! | `cosine` | — | [`Cosine`] (⟨x, y⟩/(‖x‖ ‖y‖)) |
//! | `linear` | — | [`Linear`] |
//! | `poly` (`polynomial`) | `degree` (required), `coef0` (0), `scale` (1) | [`Polynomial`] |
//! | `sigmoid` | `a` (1), `b` (0) | [`Sigmoid`] |
//! | `log` | `beta` | [`LogKernel`] |
//! | `spline` | — | [`LinearSpline`] |
//! | `cs-<radial>` | `c`, `nu` (3), `nu_check` (`on`/`off`), plus the base kernel's keys | [`CompactlySupported`] |
//! | `indicator` | `center` (`x1;x2;...`), `radius`, `gamma` (1) | [`Indicator`] |
//!
//! `railway:auto` is not a fixed kernel: its areas are located from training labels by kern-models,
//! which parses it itself; here it is an error that says so.

use crate::error::{CoreError, Result};
use crate::kernel::*;
use crate::kernel::{Definiteness, Kernel, Profile};
use radial_param::fmt_gaussian;
use std::fmt;

mod radial_param {
    use crate::kernel::Gaussian;
    pub fn fmt_gaussian(g: &Gaussian) -> String {
        let (key, value) = g.param().key_value();
        format!("{key}={value}")
    }
}

/// The names a kernel spec may start with, for error messages.
///
/// ```
/// use kern_core::{KERNEL_NAMES, KernelSpec};
/// let e = "gausian:sigma=1".parse::<KernelSpec>().unwrap_err();
/// assert!(e.to_string().contains(KERNEL_NAMES));
/// assert!(KERNEL_NAMES.split(", ").any(|name| name == "gaussian"));
/// ```
pub const KERNEL_NAMES: &str = "gaussian, rbf, laplacian, laplacian-l1, chi2, cosine, linear, poly, polynomial, sigmoid, log, spline, \
     cs-<radial>, indicator";

/// Any built-in kernel, as read from a spec string or a model file.
///
/// Serialized as its spec string, so deserialization validates through the same parser.
///
/// ```
/// use kern_core::{KernelSpec, Kernel};
/// let k: KernelSpec = "cs-gaussian:sigma=0.6,c=2.2,nu=3".parse()?;
/// assert_eq!(k.support_radius(), Some(2.2));
/// assert_eq!(k.to_string(), "cs-gaussian:sigma=0.6,c=2.2,nu=3");
/// let s: KernelSpec = "0.5 * gaussian:beta=2 + linear".parse()?;
/// assert!((s.eval(&[1.0], &[1.0]) - 1.5).abs() < 1e-15);
/// assert!("gausian:sigma=1".parse::<KernelSpec>().is_err());
/// # Ok::<(), kern_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum KernelSpec {
    /// [`Gaussian`].
    Gaussian(Gaussian),
    /// [`Laplacian`].
    Laplacian(Laplacian),
    /// [`LaplacianL1`].
    LaplacianL1(LaplacianL1),
    /// [`Chi2`].
    Chi2(Chi2),
    /// [`Cosine`].
    Cosine(Cosine),
    /// [`Linear`].
    Linear(Linear),
    /// [`Polynomial`].
    Polynomial(Polynomial),
    /// [`Sigmoid`].
    Sigmoid(Sigmoid),
    /// [`LogKernel`].
    Log(LogKernel),
    /// [`LinearSpline`].
    Spline(LinearSpline),
    /// [`CompactlySupported`] over a radial spec.
    Compact(Box<CompactlySupported<KernelSpec>>),
    /// [`Indicator`].
    Indicator(Indicator),
    /// [`Sum`].
    Sum(Box<Sum<KernelSpec, KernelSpec>>),
    /// [`Product`].
    Product(Box<Product<KernelSpec, KernelSpec>>),
    /// [`Scaled`].
    Scaled(Box<Scaled<KernelSpec>>),
}

/// Code generic over the kernel type, run by [`KernelSpec::visit`] with the concrete kernel where
/// monomorphized hot loops pay (compactly supported kernels) and with the `KernelSpec` elsewhere.
///
/// ```
/// use kern_core::{Kernel, KernelSpec, KernelVisitor};
/// struct Radius;
/// impl KernelVisitor for Radius {
///     type Output = Option<f64>;
///     fn visit<K: Kernel>(self, k: &K) -> Option<f64> { k.support_radius() }
/// }
/// let k: KernelSpec = "cs-laplacian:sigma=1,c=3,nu=2".parse()?;
/// assert_eq!(k.visit(Radius), Some(3.0));
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub trait KernelVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the concrete kernel.
    fn visit<K: Kernel>(self, kernel: &K) -> Self::Output;
}

impl KernelSpec {
    /// Runs `v` with the concrete kernel type where that pays, with the `KernelSpec` itself
    /// elsewhere.
    ///
    /// The compactly supported Gaussian and Laplacian kernels are unwrapped to
    /// `CompactlySupported<Gaussian>` / `CompactlySupported<Laplacian>`: their sparse solvers
    /// evaluate the kernel pair by pair over neighbour lists, where the monomorphized taper is worth
    /// about 15 % of a compact SVM fit. Every other kernel is visited as the `KernelSpec`, whose
    /// [`Kernel`] methods dispatch per call to the same functions (so results are bit-identical):
    /// the dense paths apply the kernel to whole columns and blocks, where one dispatch per call
    /// costs nothing measurable, and the visitor's code is compiled once instead of once per kernel
    /// type.
    pub fn visit<V: KernelVisitor>(&self, v: V) -> V::Output {
        if let KernelSpec::Compact(c) = self {
            fn rewrap<B: Kernel>(k: CompactlySupported<B>, any: bool) -> CompactlySupported<B> {
                if any { k.allow_any_nu() } else { k }
            }
            match c.base() {
                KernelSpec::Gaussian(g) => {
                    if let Ok(k) = CompactlySupported::new(*g, c.c(), c.nu()) {
                        return v.visit(&rewrap(k, c.any_nu()));
                    }
                }
                KernelSpec::Laplacian(g) => {
                    if let Ok(k) = CompactlySupported::new(*g, c.c(), c.nu()) {
                        return v.visit(&rewrap(k, c.any_nu()));
                    }
                }
                _ => {}
            }
        }
        v.visit(self)
    }

    fn is_sum(&self) -> bool {
        matches!(self, KernelSpec::Sum(_))
    }
}

macro_rules! dispatch {
    ($self:ident, $k:ident => $e:expr) => {
        match $self {
            KernelSpec::Gaussian($k) => $e,
            KernelSpec::Laplacian($k) => $e,
            KernelSpec::LaplacianL1($k) => $e,
            KernelSpec::Chi2($k) => $e,
            KernelSpec::Cosine($k) => $e,
            KernelSpec::Linear($k) => $e,
            KernelSpec::Polynomial($k) => $e,
            KernelSpec::Sigmoid($k) => $e,
            KernelSpec::Log($k) => $e,
            KernelSpec::Spline($k) => $e,
            KernelSpec::Indicator($k) => $e,
            KernelSpec::Compact($k) => $e,
            KernelSpec::Sum($k) => $e,
            KernelSpec::Product($k) => $e,
            KernelSpec::Scaled($k) => $e,
        }
    };
}

impl Kernel for KernelSpec {
    #[inline]
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        dispatch!(self, k => k.eval(x, y))
    }
    #[inline]
    fn eval_ref(&self, x: crate::SampleRef<'_>, y: crate::SampleRef<'_>) -> f64 {
        dispatch!(self, k => k.eval_ref(x, y))
    }
    fn profile(&self) -> Profile {
        dispatch!(self, k => k.profile())
    }
    #[inline]
    fn of_sq_dist(&self, r2: f64) -> f64 {
        dispatch!(self, k => k.of_sq_dist(r2))
    }
    #[inline]
    fn of_dot(&self, d: f64) -> f64 {
        dispatch!(self, k => k.of_dot(d))
    }
    fn apply_sq_dist(&self, r2: &mut [f64]) {
        dispatch!(self, k => k.apply_sq_dist(r2))
    }
    fn fast_sq_dist(&self) -> bool {
        dispatch!(self, k => k.fast_sq_dist())
    }
    fn support_radius(&self) -> Option<f64> {
        dispatch!(self, k => k.support_radius())
    }
    fn definiteness(&self) -> Definiteness {
        dispatch!(self, k => k.definiteness())
    }
    fn check_dim(&self, d: usize) -> Result<()> {
        dispatch!(self, k => k.check_dim(d))
    }
    fn check_samples(&self, x: &crate::Samples) -> Result<()> {
        dispatch!(self, k => k.check_samples(x))
    }
}

macro_rules! from_kernel {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for KernelSpec {
            fn from(k: $t) -> Self { KernelSpec::$v(k.into()) }
        }
    )*};
}
from_kernel!(Gaussian => Gaussian, Laplacian => Laplacian, LaplacianL1 => LaplacianL1, Chi2 => Chi2,
    Cosine => Cosine, Linear => Linear, Polynomial => Polynomial,
    Sigmoid => Sigmoid, LogKernel => Log, LinearSpline => Spline, Indicator => Indicator,
    CompactlySupported<KernelSpec> => Compact, Sum<KernelSpec, KernelSpec> => Sum,
    Product<KernelSpec, KernelSpec> => Product, Scaled<KernelSpec> => Scaled);

fn fmt_atom_params(k: &KernelSpec) -> String {
    match k {
        KernelSpec::Gaussian(g) => fmt_gaussian(g),
        KernelSpec::Laplacian(l) => format!("sigma={}", l.sigma()),
        KernelSpec::LaplacianL1(l) => format!("gamma={}", l.gamma()),
        KernelSpec::Chi2(c) => format!("gamma={}", c.gamma()),
        KernelSpec::Log(l) => format!("beta={}", l.beta()),
        _ => String::new(),
    }
}

impl fmt::Display for KernelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Printing must re-parse to the same tree (a saved model stores its kernel as this text): the
        // parser reads `*` left to right and folds `a * b * k` into one factor `(a·b) * k`, so a sum, a
        // scaled kernel, and a product on the right of `*` or under a scaling are parenthesized.
        let paren = |k: &KernelSpec, products: bool| {
            let compound = k.is_sum()
                || matches!(k, KernelSpec::Scaled(_))
                || (products && matches!(k, KernelSpec::Product(_)));
            if compound { format!("({k})") } else { k.to_string() }
        };
        match self {
            KernelSpec::Gaussian(_) => write!(f, "gaussian:{}", fmt_atom_params(self)),
            KernelSpec::Laplacian(_) => write!(f, "laplacian:{}", fmt_atom_params(self)),
            KernelSpec::LaplacianL1(_) => write!(f, "laplacian-l1:{}", fmt_atom_params(self)),
            KernelSpec::Chi2(_) => write!(f, "chi2:{}", fmt_atom_params(self)),
            KernelSpec::Cosine(_) => write!(f, "cosine"),
            KernelSpec::Log(_) => write!(f, "log:{}", fmt_atom_params(self)),
            KernelSpec::Linear(_) => write!(f, "linear"),
            KernelSpec::Spline(_) => write!(f, "spline"),
            KernelSpec::Polynomial(p) => {
                write!(f, "poly:degree={},coef0={}", p.degree(), p.coef0())?;
                if p.scale() != 1.0 {
                    write!(f, ",scale={}", p.scale())?;
                }
                Ok(())
            }
            KernelSpec::Sigmoid(s) => write!(f, "sigmoid:a={},b={}", s.a(), s.b()),
            KernelSpec::Indicator(i) => {
                let c: Vec<String> = i.center().iter().map(|v| v.to_string()).collect();
                write!(f, "indicator:center={},radius={},gamma={}", c.join(";"), i.radius(), i.gamma())
            }
            KernelSpec::Compact(c) => {
                let name = match c.base() {
                    KernelSpec::Gaussian(_) => "gaussian",
                    KernelSpec::Laplacian(_) => "laplacian",
                    KernelSpec::Log(_) => "log",
                    _ => return write!(f, "<unprintable compact kernel>"),
                };
                write!(f, "cs-{name}:{},c={},nu={}", fmt_atom_params(c.base()), c.c(), c.nu())?;
                if c.any_nu() {
                    write!(f, ",nu_check=off")?;
                }
                Ok(())
            }
            KernelSpec::Sum(s) => write!(f, "{} + {}", s.a, s.b),
            KernelSpec::Product(p) => write!(f, "{} * {}", paren(&p.a, false), paren(&p.b, true)),
            KernelSpec::Scaled(s) => write!(f, "{} * {}", s.factor(), paren(&s.kernel, true)),
        }
    }
}

impl std::str::FromStr for KernelSpec {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self> {
        let mut p =
            Parser { src: s, chars: s.chars().filter(|c| !c.is_whitespace()).collect(), pos: 0, nesting: 0 };
        let e = p.expr()?;
        if p.pos != p.chars.len() {
            return Err(p.err(format!("unexpected {:?}", p.chars[p.pos])));
        }
        match e {
            Factor::Kernel(k) => Ok(k),
            Factor::Number(_) => Err(p.err("a number alone is not a kernel".into())),
        }
    }
}

impl serde::Serialize for KernelSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for KernelSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

enum Factor {
    Number(f64),
    Kernel(KernelSpec),
}

/// The deepest kernel spec accepted: parentheses nested at most this deep, and at most this many
/// kernels combined along any path of the expression tree (`a + b + c` is a tree of depth 3). Deeper
/// specs are refused with an error instead of exhausting the stack when parsed, printed or dropped.
///
/// ```
/// let deep = format!("{}linear{}", "(".repeat(65), ")".repeat(65));
/// assert!(deep.parse::<kern_core::KernelSpec>().is_err());
/// assert!(format!("{}linear{}", "(".repeat(64), ")".repeat(64)).parse::<kern_core::KernelSpec>().is_ok());
/// ```
pub const MAX_SPEC_DEPTH: usize = 64;

struct Parser<'a> {
    src: &'a str,
    chars: Vec<char>,
    pos: usize,
    nesting: usize,
}

/// Depth of a kernel expression tree (an atom has depth 1).
fn spec_depth(k: &KernelSpec) -> usize {
    match k {
        KernelSpec::Sum(s) => 1 + spec_depth(&s.a).max(spec_depth(&s.b)),
        KernelSpec::Product(p) => 1 + spec_depth(&p.a).max(spec_depth(&p.b)),
        KernelSpec::Scaled(s) => 1 + spec_depth(&s.kernel),
        _ => 1,
    }
}

impl Parser<'_> {
    fn err(&self, reason: String) -> CoreError {
        CoreError::Spec { spec: self.src.to_string(), reason }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn check_depth(&self, f: &Factor) -> Result<()> {
        match f {
            Factor::Kernel(k) if spec_depth(k) > MAX_SPEC_DEPTH => Err(self.err(format!(
                "more than {MAX_SPEC_DEPTH} kernels combined along one branch; simplify the expression"
            ))),
            _ => Ok(()),
        }
    }

    fn expr(&mut self) -> Result<Factor> {
        let mut acc = self.term()?;
        while self.peek() == Some('+') {
            self.pos += 1;
            let rhs = self.term()?;
            acc = match (acc, rhs) {
                (Factor::Kernel(a), Factor::Kernel(b)) => Factor::Kernel(Sum::new(a, b).into()),
                _ => return Err(self.err("a number cannot be added to a kernel".into())),
            };
            self.check_depth(&acc)?;
        }
        Ok(acc)
    }

    fn term(&mut self) -> Result<Factor> {
        let mut acc = self.factor()?;
        while self.peek() == Some('*') {
            self.pos += 1;
            let rhs = self.factor()?;
            acc = match (acc, rhs) {
                (Factor::Kernel(a), Factor::Kernel(b)) => Factor::Kernel(Product::new(a, b).into()),
                (Factor::Number(s), Factor::Kernel(k)) | (Factor::Kernel(k), Factor::Number(s)) => {
                    Factor::Kernel(Scaled::new(s, k)?.into())
                }
                (Factor::Number(a), Factor::Number(b)) => Factor::Number(a * b),
            };
            self.check_depth(&acc)?;
        }
        Ok(acc)
    }

    fn factor(&mut self) -> Result<Factor> {
        match self.peek() {
            Some('(') => {
                if self.nesting >= MAX_SPEC_DEPTH {
                    return Err(self.err(format!("parentheses nested deeper than {MAX_SPEC_DEPTH} levels")));
                }
                self.pos += 1;
                self.nesting += 1;
                let e = self.expr()?;
                self.nesting -= 1;
                if self.peek() != Some(')') {
                    return Err(self.err("missing ')'".into()));
                }
                self.pos += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() || c == '.' || c == '-' => Ok(Factor::Number(self.number()?)),
            Some(c) if c.is_ascii_alphabetic() => Ok(Factor::Kernel(self.atom()?)),
            Some(c) => Err(self.err(format!("unexpected {c:?}; expected a kernel name ({KERNEL_NAMES})"))),
            None => Err(self.err(format!("empty kernel; expected one of {KERNEL_NAMES}"))),
        }
    }

    fn number(&mut self) -> Result<f64> {
        let start = self.pos;
        let mut j = self.pos;
        let c = &self.chars;
        if j < c.len() && (c[j] == '-' || c[j] == '+') {
            j += 1;
        }
        while j < c.len() && (c[j].is_ascii_digit() || c[j] == '.') {
            j += 1;
        }
        if j < c.len() && (c[j] == 'e' || c[j] == 'E') {
            let mut k = j + 1;
            if k < c.len() && (c[k] == '-' || c[k] == '+') {
                k += 1;
            }
            if k < c.len() && c[k].is_ascii_digit() {
                while k < c.len() && c[k].is_ascii_digit() {
                    k += 1;
                }
                j = k;
            }
        }
        let text: String = c[start..j].iter().collect();
        self.pos = j;
        text.parse::<f64>().map_err(|_| self.err(format!("{text:?} is not a number")))
    }

    fn ident(&mut self) -> String {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.chars[start..self.pos].iter().collect()
    }

    fn atom(&mut self) -> Result<KernelSpec> {
        let name = self.ident().to_ascii_lowercase();
        let mut params: Vec<(String, Value)> = Vec::new();
        if self.peek() == Some(':') {
            self.pos += 1;
            loop {
                let key = self.ident().to_ascii_lowercase();
                if key.is_empty() || self.peek() != Some('=') {
                    return Err(self.err(format!("expected key=value after {name:?}")));
                }
                self.pos += 1;
                let value = if self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    Value::Word(self.ident().to_ascii_lowercase())
                } else {
                    let mut list = vec![self.number()?];
                    while self.peek() == Some(';') {
                        self.pos += 1;
                        list.push(self.number()?);
                    }
                    Value::Numbers(list)
                };
                if params.iter().any(|(k, _)| *k == key) {
                    return Err(self.err(format!("key {key:?} given twice")));
                }
                params.push((key, value));
                if self.peek() == Some(',') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        let mut kv = Params { parser: self, name: name.clone(), params };
        let spec = build(&name, &mut kv)?;
        kv.finish()?;
        Ok(spec)
    }
}

enum Value {
    Numbers(Vec<f64>),
    Word(String),
}

struct Params<'p, 'a> {
    parser: &'p Parser<'a>,
    name: String,
    params: Vec<(String, Value)>,
}

impl Params<'_, '_> {
    fn err(&self, reason: String) -> CoreError {
        self.parser.err(reason)
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.params.iter().position(|(k, _)| k == key)?;
        Some(self.params.remove(i).1)
    }

    fn num(&mut self, key: &str) -> Result<Option<f64>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Numbers(v)) if v.len() == 1 => Ok(Some(v[0])),
            Some(_) => Err(self.err(format!("{key} must be a single number"))),
        }
    }

    fn required(&mut self, key: &str) -> Result<f64> {
        self.num(key)?.ok_or_else(|| self.err(format!("{} needs {key}=...", self.name)))
    }

    fn finish(self) -> Result<()> {
        if let Some((k, _)) = self.params.first() {
            return Err(self.err(format!("unknown key {k:?} for kernel {:?}", self.name)));
        }
        Ok(())
    }
}

fn build(name: &str, kv: &mut Params<'_, '_>) -> Result<KernelSpec> {
    Ok(match name {
        "gaussian" | "rbf" => {
            let given: Vec<(&str, f64)> = [
                ("sigma", kv.num("sigma")?),
                ("beta", kv.num("beta")?),
                ("gamma", kv.num("gamma")?),
                ("std", kv.num("std")?),
            ]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
            match given.as_slice() {
                [("sigma", s)] => Gaussian::with_sigma(*s)?.into(),
                [("beta" | "gamma", b)] => Gaussian::with_beta(*b)?.into(),
                [("std", s)] => Gaussian::with_std_dev(*s)?.into(),
                _ => {
                    return Err(kv.err(
                        "gaussian needs exactly one of sigma= (exp(-r^2/sigma^2)), beta= or gamma= \
                         (exp(-beta r^2)), std= (exp(-r^2/(2 std^2)))"
                            .into(),
                    ));
                }
            }
        }
        "laplacian" => Laplacian::new(kv.required("sigma")?)?.into(),
        "laplacian-l1" => LaplacianL1::new(kv.required("gamma")?)?.into(),
        "chi2" => Chi2::new(kv.num("gamma")?.unwrap_or(1.0))?.into(),
        "cosine" => Cosine.into(),
        "linear" => Linear.into(),
        "poly" | "polynomial" => {
            let deg = kv.required("degree")?;
            if deg.fract() != 0.0 || !(1.0..=64.0).contains(&deg) {
                return Err(kv.err(format!("degree must be an integer in 1..=64, got {deg}")));
            }
            let coef0 = kv.num("coef0")?.unwrap_or(0.0);
            let scale = kv.num("scale")?.unwrap_or(1.0);
            Polynomial::with_scale(deg as u32, coef0, scale)?.into()
        }
        "sigmoid" => Sigmoid::new(kv.num("a")?.unwrap_or(1.0), kv.num("b")?.unwrap_or(0.0))?.into(),
        "log" => LogKernel::new(kv.required("beta")?)?.into(),
        "spline" => LinearSpline.into(),
        "indicator" => {
            let center = match kv.take("center") {
                Some(Value::Numbers(v)) => v,
                _ => return Err(kv.err("indicator needs center=x1;x2;...".into())),
            };
            let radius = kv.required("radius")?;
            let gamma = kv.num("gamma")?.unwrap_or(1.0);
            Indicator::new(center, radius, gamma)?.into()
        }
        "railway" => {
            return Err(kv.err(
                "railway kernels are located from training labels: train a railway SVC \
                 (kern-models) with the spec railway:auto"
                    .into(),
            ));
        }
        n if n.starts_with("cs-") => {
            let base_name = &n[3..];
            if !matches!(base_name, "gaussian" | "rbf" | "laplacian" | "log") {
                return Err(kv.err(format!(
                    "cs- needs a radial base kernel (gaussian, laplacian, log), got {base_name:?}"
                )));
            }
            let c = kv.required("c")?;
            let nu = kv.num("nu")?.unwrap_or(3.0);
            let any_nu = match kv.take("nu_check") {
                None => false,
                Some(Value::Word(w)) if w == "on" => false,
                Some(Value::Word(w)) if w == "off" => true,
                Some(_) => return Err(kv.err("nu_check must be on or off".into())),
            };
            let base = build(base_name, kv)?;
            let mut k = CompactlySupported::new(base, c, nu)?;
            if any_nu {
                k = k.allow_any_nu();
            }
            k.into()
        }
        other => return Err(kv.err(format!("unknown kernel {other:?}; valid: {KERNEL_NAMES}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in [
            "gaussian:sigma=0.6",
            "gaussian:beta=2",
            "gaussian:std=1.5",
            "laplacian:sigma=1",
            "laplacian-l1:gamma=0.25",
            "chi2:gamma=1",
            "chi2:gamma=0.5",
            "cosine",
            "cosine + 2 * chi2:gamma=3",
            "linear",
            "poly:degree=2,coef0=1",
            "poly:degree=3,coef0=0,scale=0.5",
            "sigmoid:a=1,b=0",
            "log:beta=2",
            "spline",
            "cs-gaussian:sigma=0.6,c=2.2,nu=3",
            "cs-laplacian:sigma=1,c=1e-3,nu=2,nu_check=off",
            "indicator:center=5;5,radius=5,gamma=1",
            "linear + gaussian:beta=1",
            "0.5 * (linear + spline)",
            "indicator:center=0,radius=1,gamma=2 * linear",
        ] {
            let k: KernelSpec = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
            let again: KernelSpec = k.to_string().parse().unwrap();
            assert_eq!(k, again, "{s}");
        }
    }

    #[test]
    fn rejects_bad_specs() {
        for s in [
            "",
            "gausian:sigma=1",
            "gaussian",
            "gaussian:sigma=1,beta=2",
            "gaussian:sigma=-1",
            "gaussian:sigma=nan",
            "poly:degree=2.5",
            "poly",
            "cs-linear:c=1",
            "cs-gaussian:sigma=1",
            "cs-gaussian:sigma=1,c=0",
            "linear:foo=1",
            "log:beta=3",
            "railway:auto",
            "linear +",
            "2 * 3",
            "(linear",
            "-1 * linear",
            "laplacian-l1",
            "laplacian-l1:sigma=1",
            "chi2:gamma=-1",
            "cosine:gamma=1",
            "cs-laplacian-l1:gamma=1,c=1",
        ] {
            assert!(s.parse::<KernelSpec>().is_err(), "{s} should fail");
        }
    }
}
