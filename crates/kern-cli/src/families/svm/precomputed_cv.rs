//! `kern cv --kernel precomputed`: the SVMs' precomputed fits as learners of kern-tune's grid search.
//!
//! The samples the grid search splits into folds are the serial numbers `1, …, n` of the training
//! points (one column). A fold's learner trains on the submatrix `K[train, train]` (the SVMs'
//! `fit_precomputed`) and predicts from the rows `K[test, train]` — what scikit-learn's
//! `cross_val_score` does for an estimator with `kernel="precomputed"`. The folds, the scoring and
//! the report are the grid search's own.

use kern_cli::any_params::{AnyParams, CellModel};
use kern_core::learner::{Fit, Model};
use kern_core::{RealTargets, Samples, Targets};
use kern_models::ModelsError;
use kern_models::svm::{KernelMatrix, NuSvcParams, NuSvrParams, Svc, SvcParams, Svr, SvrParams};

/// The samples of a grid search over a precomputed matrix of `n` training points: their serial
/// numbers `1, …, n`, one column.
pub fn serials(n: usize) -> Result<Samples, kern_core::CoreError> {
    Samples::from_flat((1..=n).map(|s| s as f64).collect(), n, 1)
}

/// 0-based training indices of serial-number samples.
fn indices(x: &Samples) -> Vec<usize> {
    (0..x.n()).map(|i| x.row(i)[0] as usize - 1).collect()
}

/// The precomputed fit of an SVM type.
pub trait FitMatrix: Send + Sync {
    /// The model trained.
    type Model: Model<Error = ModelsError>;
    /// Trains on the kernel matrix of the training points.
    fn fit_matrix(&self, k: &KernelMatrix, y: &Targets) -> Result<Self::Model, ModelsError>;
}

fn real(y: &Targets) -> Result<RealTargets, ModelsError> {
    match y {
        Targets::Real(r) => Ok(r.clone()),
        _ => Err(ModelsError::Input("regression needs real-valued targets".into())),
    }
}

impl FitMatrix for SvcParams {
    type Model = Svc;
    fn fit_matrix(&self, k: &KernelMatrix, y: &Targets) -> Result<Svc, ModelsError> {
        self.fit_precomputed(k, y)
    }
}

impl FitMatrix for NuSvcParams {
    type Model = Svc;
    fn fit_matrix(&self, k: &KernelMatrix, y: &Targets) -> Result<Svc, ModelsError> {
        self.fit_precomputed(k, y)
    }
}

impl FitMatrix for SvrParams {
    type Model = Svr;
    fn fit_matrix(&self, k: &KernelMatrix, y: &Targets) -> Result<Svr, ModelsError> {
        self.fit_precomputed(k, &real(y)?)
    }
}

impl FitMatrix for NuSvrParams {
    type Model = Svr;
    fn fit_matrix(&self, k: &KernelMatrix, y: &Targets) -> Result<Svr, ModelsError> {
        self.fit_precomputed(k, &real(y)?)
    }
}

/// An SVM learner on the folds of a precomputed kernel matrix (samples: serial numbers).
pub struct OnMatrix<P> {
    /// The SVM's parameters (their kernel is not used).
    pub params: P,
    /// The kernel matrix of all training points (shared, not copied).
    pub k: KernelMatrix,
}

/// A model trained on `K[train, train]`; it predicts serial numbers `t` from the rows `K[t, train]`.
pub struct MatrixModel<M> {
    model: M,
    k: KernelMatrix,
    train: Vec<usize>,
}

impl<P: FitMatrix> Fit<Targets> for OnMatrix<P> {
    type Model = MatrixModel<P::Model>;
    type Error = ModelsError;

    fn fit(&self, x: &Samples, y: &Targets) -> Result<Self::Model, ModelsError> {
        let train = indices(x);
        let full = self.k.as_mat();
        let sub = KernelMatrix::new(faer::Mat::from_fn(train.len(), train.len(), |a, b| {
            full[(train[a], train[b])]
        }))?;
        let model = self.params.fit_matrix(&sub, y)?;
        Ok(MatrixModel { model, k: self.k.clone(), train })
    }
}

impl<M: Model<Error = ModelsError>> Model for MatrixModel<M> {
    type Error = ModelsError;

    fn predict(&self, x: &Samples) -> Result<Vec<f64>, ModelsError> {
        let test = indices(x);
        let full = self.k.as_mat();
        let m = self.train.len();
        let mut rows = Vec::with_capacity(test.len() * m);
        for &t in &test {
            rows.extend(self.train.iter().map(|&j| full[(t, j)]));
        }
        self.model.predict(&Samples::from_flat(rows, test.len(), m)?)
    }
}

/// A cell's SVM trained on the folds of a precomputed kernel matrix (the other kinds are refused
/// before: a precomputed kernel cross-validates SVMs only).
impl FitMatrix for AnyParams {
    type Model = CellModel;
    fn fit_matrix(&self, k: &KernelMatrix, y: &Targets) -> Result<CellModel, ModelsError> {
        Ok(match self {
            AnyParams::Svc(p) => CellModel::Svc(Box::new(p.fit_matrix(k, y)?)),
            AnyParams::NuSvc(p) => CellModel::Svc(Box::new(p.fit_matrix(k, y)?)),
            AnyParams::Svr(p) => CellModel::Svr(Box::new(p.fit_matrix(k, y)?)),
            AnyParams::NuSvr(p) => CellModel::Svr(Box::new(p.fit_matrix(k, y)?)),
            _ => {
                return Err(ModelsError::Input("a precomputed kernel cross-validates SVMs only".into()));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kern_core::BinaryTargets;

    /// The learner on serial numbers trains and predicts as the SVM on the explicit submatrices.
    #[test]
    fn a_fold_is_the_fit_on_the_submatrices() {
        let p: Vec<f64> = (0..12).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
        let kf = |a: f64, b: f64| (-(a - b) * (a - b)).exp();
        let rows: Vec<Vec<f64>> = p.iter().map(|&a| p.iter().map(|&b| kf(a, b)).collect()).collect();
        let k = KernelMatrix::from_rows(&rows).unwrap();
        let labels: Vec<f64> = p.iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect();
        let (train, test) = ([0usize, 2, 3, 5, 7, 8, 10], [1usize, 4, 6, 9, 11]);
        let y = |idx: &[usize]| {
            Targets::Binary(
                BinaryTargets::from_f64(&idx.iter().map(|&i| labels[i]).collect::<Vec<_>>()).unwrap(),
            )
        };
        let params = SvcParams::new("linear".parse().unwrap()).c(3.0);
        let on = OnMatrix { params: params.clone(), k };
        let sel = |idx: &[usize]| serials(12).unwrap().select(idx).unwrap();
        let m = on.fit(&sel(&train), &y(&train)).unwrap();
        let sub: Vec<Vec<f64>> = train.iter().map(|&a| train.iter().map(|&b| rows[a][b]).collect()).collect();
        let direct = params.fit_precomputed(&KernelMatrix::from_rows(&sub).unwrap(), &y(&train)).unwrap();
        let cross: Vec<Vec<f64>> =
            test.iter().map(|&t| train.iter().map(|&j| rows[t][j]).collect()).collect();
        let want = direct.decision_function(&Samples::from_rows(&cross).unwrap()).unwrap();
        let got = m.model.decision_function(&Samples::from_rows(&cross).unwrap()).unwrap();
        assert_eq!(got, want);
        let pred = m.predict(&sel(&test)).unwrap();
        assert_eq!(pred, direct.predict(&Samples::from_rows(&cross).unwrap()).unwrap());
        assert_eq!(pred.len(), test.len());
    }
}
