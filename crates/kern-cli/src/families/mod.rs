//! One module per model family: each trains its models for `kern train` (fit, save, training
//! summary) and describes a prediction of its models for `kern predict`.
//!
//! - [`svm`]: C-SVC, nu-SVC, one-class, epsilon-SVR and nu-SVR, on kernels or precomputed kernel
//!   matrices, saved as kern or LIBSVM model files;
//! - [`ridge`]: LS-SVM and kernel ridge regression;
//! - [`landmark`]: their Nyström (landmark) versions;
//! - [`kfa`]: kernel feature analysis (FVS then least squares);
//! - [`railway`]: the railway kernel's SVC;
//! - [`kpca`]: kernel PCA, exact and Nyström, and the projections of new points.
//!
//! Dependencies point one way: the commands call the families, which call the shared helpers
//! (`data`, `output`, `resources`, `metrics`); a family never calls a command. `kern train` resolves
//! its flags once and hands each family a [`Train`] context instead of its arguments.

pub mod kfa;
pub mod kpca;
pub mod landmark;
pub mod railway;
pub mod ridge;
pub mod svm;

use crate::output::ModelScaling;
use std::path::{Path, PathBuf};

/// What `kern train` hands a family besides the model's parameters and the data: the flags the
/// families read, resolved once by the command, and the feature scaling to store with the model.
#[derive(Debug)]
pub struct Train {
    /// Where to write the model (`-`: standard output).
    pub out: PathBuf,
    /// The model file's format.
    pub format: svm::ModelFormat,
    /// Worker threads (`None`: all cores).
    pub threads: Option<usize>,
    /// The `--weights` file.
    pub weights: Option<PathBuf>,
    /// `--allow-many-classes`.
    pub allow_many_classes: bool,
    /// `--regression` (lssvm, landmark-lssvm, kfa).
    pub regression: bool,
    /// The tolerance of the ridge models' solvers, also the one under which a model is constant.
    pub ridge_tol: f64,
    /// `--kernel` as given (the railway summary reports it).
    pub kernel: String,
    /// The scaling applied to the training data, saved with the model.
    pub scaling: Option<ModelScaling>,
    /// The CSV schema of a CSV training file, saved with the model (`kern predict` reads CSV test
    /// data against it).
    pub schema: Option<kern_core::io::CsvSchema>,
}

impl Train {
    /// Saves a kern model to `--out`, with the training data's scaling and CSV schema.
    pub fn save<M: kern_models::persist::Persist>(&self, model: &M) -> Result<(), kern_cli::CliError> {
        crate::output::save_model(&self.out, model, self.scaling.as_ref(), self.schema.as_ref())
    }

    /// The weights of the `--weights` file, one per training sample of `n`.
    pub fn weights(
        &self,
        n: usize,
    ) -> Result<Option<kern_models::weights::SampleWeights>, kern_cli::CliError> {
        crate::data::sample_weights(self.weights.as_deref(), n)
    }

    /// `"out"` of the summary.
    pub fn out_name(&self) -> String {
        self.out.display().to_string()
    }

    /// The path of `--out`.
    pub fn out(&self) -> &Path {
        &self.out
    }
}
