//! `kern kernels` (and `kern help kernels`): the kernel spec grammar and the kernels it names.

use crate::output::CliResult;
use serde_json::json;

/// The kernel grammar, shown by `kern help kernels` and printed by `kern kernels`.
pub const GRAMMAR: &str = "\
Kernel specs (--kernel): NAME[:key=value,...], combined with + (sum), * (product) and a number
factor (positive scaling); parentheses group. Examples:
  linear                          <x, y>
  gaussian:sigma=0.6              exp(-|x-y|^2 / sigma^2)
  gaussian:beta=2  (or gamma=2)   exp(-beta |x-y|^2)       (LIBSVM's rbf with gamma = beta)
  gaussian:std=0.5                exp(-|x-y|^2 / (2 std^2))
  rbf:...                         same as gaussian
  laplacian:sigma=1               exp(-|x-y| / sigma)
  poly:degree=3,coef0=1,scale=0.5 (scale <x,y> + coef0)^degree  (LIBSVM's polynomial: scale = gamma)
  sigmoid:a=0.1,b=-1              tanh(a <x,y> + b)                 (LIBSVM's sigmoid: a = gamma, b = coef0)
  log:beta=2                      log kernel (conditionally positive definite)
  spline                          linear spline kernel
  cs-gaussian:sigma=0.6,c=2.2,nu=3  any radial kernel truncated to radius c (compact support: sparse
                                  Gram matrices); nu defaults to 3, nu_check=off skips the dimension check
  indicator:center=0;0,radius=1   indicator kernel of a ball
  railway:auto                    railway kernel, areas located from the training labels (kern train)
  0.5 * gaussian:beta=2 + linear  sums, products and positive scalings of the above

Kernels LIBSVM model files can hold (kern train --format libsvm, kern export --libsvm): linear, poly,
gaussian and sigmoid.";

/// Arguments of `kern kernels` (none).
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `kern kernels`: prints the grammar, then the JSON summary.
pub fn run(_: Args) -> CliResult {
    kern_core::io::write_stdout(format!("{GRAMMAR}\n").as_bytes())?;
    Ok(json!({ "kernels": kern_core::KERNEL_NAMES, "seconds": 0.0 }))
}
