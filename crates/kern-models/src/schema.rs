//! A trained model stored with what its input was: the CSV schema of its training file
//! ([`kern_core::io::CsvSchema`]: column names and order, label column, one-hot categories, missing
//! values) and, optionally, the feature scaling of its training data.
//!
//! [`ModelEnvelope`] is the stored form (kind tag `envelope`, a complete kern model file inside, as
//! [`ScaledModel`] keeps one); [`model_bytes`] picks the form a model is saved in: the bare model, a
//! `scaled` file (what earlier kern versions read) for a scaling alone, an `envelope` as soon as there
//! is a schema. [`crate::AnyModel::load`] reads all three; [`crate::AnyModel::schema`] gives the schema
//! back, to read test data with [`kern_core::io::read_csv_as`].
//!
//! The format version is unchanged: an `envelope` is a new kind tag, so files written before it load
//! as they did, and a kern that predates it refuses an `envelope` file naming the unknown kind.
//!
//! ```
//! use kern_core::io::{read_csv, read_csv_as, CsvOptions};
//! use kern_models::{AnyModel, Fit, schema::model_bytes};
//! use kern_models::lssvm::LsSvmParams;
//! let dir = std::env::temp_dir().join("kern-doc-schema-model");
//! std::fs::create_dir_all(&dir).unwrap();
//! let (train, test) = (dir.join("train.csv"), dir.join("test.csv"));
//! std::fs::write(&train, "a,b,label\n0,1,x\n1,0,y\n0.1,0.9,x\n0.9,0.2,y\n").unwrap();
//! let ds = read_csv(&train, &CsvOptions::default())?;
//! let m = LsSvmParams::new("linear".parse()?).lambda(0.1).fit(&ds.samples, &ds.binary()?)?;
//! let bytes = model_bytes(&m, ds.samples.d(), None, ds.schema.clone())?;
//!
//! let back = AnyModel::from_bytes(&bytes, "model.kern")?;
//! assert_eq!(back.schema(), ds.schema.as_ref());
//! std::fs::write(&test, "b,a\n1,0\n0,1\n").unwrap(); // columns swapped, no labels
//! let t = read_csv_as(&test, back.schema().unwrap(), &CsvOptions::default())?;
//! assert_eq!(back.predict_labels(&t.samples)?, ["x", "y"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{ModelsError, Result};
use crate::persist::{self, Persist};
use crate::scaling::{FeatureScaling, ScaledModel, check_stored_scaling};
use kern_core::io::CsvSchema;
use serde::{Deserialize, Serialize};

/// A model with its input description: an optional feature scaling and an optional CSV schema
/// (module documentation). The inner model is a complete kern model file, validated by its own rules
/// when decoded.
///
/// ```
/// use kern_models::krr::{KernelRidge, KernelRidgeParams};
/// use kern_models::persist::{from_bytes, to_bytes};
/// use kern_models::schema::ModelEnvelope;
/// use kern_models::{Fit, Model, RealTargets, Samples};
/// let x = Samples::from_rows(&[[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]])?;
/// let m = KernelRidgeParams::new("linear".parse()?).lambda(0.1).fit(&x, &RealTargets::new(vec![1.0, 2.0, 3.0])?)?;
/// let env = ModelEnvelope::wrap(&m, 2, None, None)?;
/// let back: ModelEnvelope = from_bytes(&to_bytes(&env)?, "<bytes>")?;
/// assert_eq!((back.inner_kind(), back.dim()), ("krr", 2));
/// assert_eq!(back.unwrap_model::<KernelRidge>()?.predict(&x)?, m.predict(&x)?);
/// assert!(ModelEnvelope::wrap(&env, 2, None, None).is_err()); // no envelope in an envelope
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelEnvelope {
    scaling: Option<FeatureScaling>,
    schema: Option<CsvSchema>,
    /// The training data's dimension (the schema's feature count when there is a schema).
    d: usize,
    /// The inner model's kind tag.
    kind: String,
    /// The inner model as a complete kern model file.
    model: Vec<u8>,
}

impl ModelEnvelope {
    /// Wraps `model`, trained on `d`-dimensional samples (scaled by `scaling` when given) read from a
    /// CSV file of schema `schema`.
    ///
    /// # Errors
    /// The schema is inconsistent or describes another number of features than `d`; the scaling has a
    /// target section or lists a feature beyond `d`.
    pub fn wrap<M: Persist>(
        model: &M,
        d: usize,
        scaling: Option<FeatureScaling>,
        schema: Option<CsvSchema>,
    ) -> Result<Self> {
        let env =
            ModelEnvelope { scaling, schema, d, kind: M::KIND.to_string(), model: persist::to_bytes(model)? };
        env.check().map_err(ModelsError::Input)?;
        Ok(env)
    }

    /// An envelope of an inner model file's bytes (`kind` its kind tag), checked.
    pub(crate) fn from_parts(
        scaling: Option<FeatureScaling>,
        schema: Option<CsvSchema>,
        d: usize,
        kind: String,
        model: Vec<u8>,
    ) -> Result<Self> {
        let env = ModelEnvelope { scaling, schema, d, kind, model };
        env.check().map_err(ModelsError::Input)?;
        Ok(env)
    }

    /// The feature scaling applied before the inner model, if any.
    pub fn scaling(&self) -> Option<&FeatureScaling> {
        self.scaling.as_ref()
    }

    /// The CSV schema of the training file, if any.
    pub fn schema(&self) -> Option<&CsvSchema> {
        self.schema.as_ref()
    }

    /// The training data's dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// The inner model's kind tag (`"svc"`, `"lssvm"`, …).
    pub fn inner_kind(&self) -> &str {
        &self.kind
    }

    /// The inner model as a kern model file (header and payload).
    pub fn inner_bytes(&self) -> &[u8] {
        &self.model
    }

    /// Decodes the inner model.
    ///
    /// # Errors
    /// [`ModelsError::Format`] when the inner model is not a valid `M`.
    pub fn unwrap_model<M: Persist>(&self) -> Result<M> {
        persist::from_bytes(&self.model, "<model envelope>")
    }

    /// Splits the envelope into its scaling, schema, dimension, inner kind and inner bytes.
    pub(crate) fn into_parts(self) -> (Option<FeatureScaling>, Option<CsvSchema>, usize, String, Vec<u8>) {
        (self.scaling, self.schema, self.d, self.kind, self.model)
    }

    fn check(&self) -> std::result::Result<(), String> {
        if let Some(s) = &self.scaling {
            check_stored_scaling(s, self.d)?;
        }
        if let Some(schema) = &self.schema {
            schema.check().map_err(|e| e.to_string())?;
            if schema.n_features() != self.d {
                return Err(format!(
                    "the CSV schema describes {} features, the model was trained on {}",
                    schema.n_features(),
                    self.d
                ));
            }
        }
        if self.kind == Self::KIND || self.kind == ScaledModel::KIND {
            return Err("a model envelope wraps another envelope or scaled model".into());
        }
        let inner = persist::peek_kind(&self.model, "<model envelope>").map_err(|e| e.to_string())?;
        if inner != self.kind {
            return Err(format!("the inner model is {inner:?}, the envelope says {:?}", self.kind));
        }
        Ok(())
    }
}

impl Persist for ModelEnvelope {
    const KIND: &'static str = "envelope";

    fn validate(&self) -> std::result::Result<(), String> {
        self.check()
    }
}

/// The bytes a trained model is saved as, with what is known of its input: the bare model when
/// there is neither scaling nor schema; a [`ScaledModel`] (readable by earlier kern versions) for a
/// scaling alone; a [`ModelEnvelope`] when there is a schema. `d` is the training data's dimension
/// (the number of features after one-hot encoding).
///
/// ```
/// use kern_models::{AnyModel, Fit, Samples, RealTargets, schema::model_bytes};
/// let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;
/// let m = kern_models::krr::KernelRidgeParams::new("linear".parse()?).lambda(0.1).fit(&x, &RealTargets::new(vec![0.0, 1.0, 2.0])?)?;
/// assert_eq!(model_bytes(&m, 1, None, None)?, kern_models::persist::to_bytes(&m)?);
/// assert!(AnyModel::from_bytes(&model_bytes(&m, 1, None, None)?, "m")?.schema().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Those of [`ModelEnvelope::wrap`] and [`ScaledModel::wrap`]; encoding failures.
pub fn model_bytes<M: Persist>(
    model: &M,
    d: usize,
    scaling: Option<FeatureScaling>,
    schema: Option<CsvSchema>,
) -> Result<Vec<u8>> {
    match (scaling, schema) {
        (None, None) => persist::to_bytes(model),
        (Some(s), None) => persist::to_bytes(&ScaledModel::wrap(s, d, model)?),
        (scaling, schema) => persist::to_bytes(&ModelEnvelope::wrap(model, d, scaling, schema)?),
    }
}
