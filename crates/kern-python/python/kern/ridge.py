"""Least-squares kernel models: `KernelRidge`, `LSSVC`, `LSSVR`."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _kern
from ._base import KernModelMixin, kernel_spec, n_jobs_arg, positive, samples
from .svm import _encode_classes

_SPARSE = ["csr", "csc"]


class KernelRidge(KernModelMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression `(K + alpha I) c = y`, `f(x) = sum_i c_i k(x, x_i)` (no intercept), as
    scikit-learn's `sklearn.kernel_ridge.KernelRidge`. A model that `alpha` leaves constant (every
    training prediction within 1e-6 of zero, relative to the targets; without `sample_weight`) raises a
    `UserWarning`. With a compactly supported kern kernel (for
    example ``kernel="cs-gaussian:sigma=0.5,c=1.5"``) the system is sparse and never formed densely.

    `gamma=None` means `1 / n_features` as in scikit-learn. Fitted attributes: `dual_coef_`, `X_fit_`,
    `n_features_in_`, `kernel_spec_`.
    """

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1, n_jobs=None):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Solves for the dual coefficients; with `sample_weight` (an array, or one number for every
        sample) it minimizes `sum_i w_i (y_i - f(x_i))^2 + alpha ||f||^2`, as scikit-learn does."""
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64, y_numeric=True)
        sw = None
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True).tolist()
        spec = kernel_spec(self.kernel, self.gamma, self.degree, self.coef0, X, gamma_default="auto")
        self._model = _kern.fit_krr(
            samples(X),
            np.asarray(y, dtype=np.float64).tolist(),
            spec,
            positive(self.alpha, "alpha"),
            n_jobs_arg(self.n_jobs),
            sw,
        )
        self.kernel_spec_ = spec
        self.dual_coef_ = self._model.ridge_coefficients()[0][:, 0]
        self.X_fit_ = X
        return self

    def predict(self, X):
        """Predicted values."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64, reset=False)
        return self._model.decision_function(samples(X), n_jobs_arg(self.n_jobs))[:, 0]


class _LSSVM(KernModelMixin, BaseEstimator):
    def _fit(self, X, y, classify):
        spec = kernel_spec(self.kernel, self.gamma, self.degree, self.coef0, X)
        if self.alpha is not None and self.gam is not None:
            raise ValueError("give alpha or gam, not both (gam = 1 / alpha)")
        if self.alpha is not None:
            lam = positive(self.alpha, "alpha")
        elif self.gam is not None:
            lam = 1.0 / positive(self.gam, "gam")
        else:
            lam = None
        self._model = _kern.fit_lssvm(
            samples(X), y, classify, spec, lam, None, n_jobs_arg(self.n_jobs)
        )
        self.kernel_spec_ = spec
        coef, bias, alpha_used = self._model.ridge_coefficients()
        self.dual_coef_ = coef.T
        self.intercept_ = np.asarray(bias)
        self.alpha_ = alpha_used
        self.gam_ = 1.0 / alpha_used
        return self

    def _decision(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64, reset=False)
        return self._model.decision_function(samples(X), n_jobs_arg(self.n_jobs))


_LSSVM_DOC = """

    Least-squares SVM (Suykens; the CS-RBF paper's eqs. 13-14): `f(x) = b + sum_i a_i k(x, x_i)` from
    `[0 1'; 1 K + alpha I] [b; a] = [0; y]`. `alpha` is the ridge penalty, as in `KernelRidge` (larger,
    more regularization); `gam` is LS-SVMlab's error weight of `K + I/gam` (larger, less
    regularization), the same as `alpha = 1 / gam`. Give at most one; with neither, alpha is chosen
    over a grid by exact leave-one-out. A model that the regularization leaves constant (every training
    decision value within 1e-6 of the intercept) raises a `UserWarning`. Kernels by scikit-learn name
    or kern spec; compactly supported kernels give a sparse system. Fitted attributes: `dual_coef_`
    (`(n_outputs, n_samples)`), `intercept_`, `alpha_`, `gam_` (`1 / alpha_`), `n_features_in_`,
    `kernel_spec_`."""


class LSSVC(ClassifierMixin, _LSSVM):
    __doc__ = "LS-SVM classifier (one-vs-rest for more than two classes)." + _LSSVM_DOC

    def __init__(
        self, *, alpha=None, gam=None, kernel="rbf", gamma="scale", degree=3, coef0=0.0, n_jobs=None
    ):
        self.alpha = alpha
        self.gam = gam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_jobs = n_jobs

    def fit(self, X, y):
        """Trains on samples and labels."""
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64)
        y_enc = _encode_classes(self, y)
        return self._fit(X, y_enc.astype(np.float64).tolist(), True)

    def decision_function(self, X):
        """`(n_samples,)` for two classes (positive favours `classes_[1]`), else one column per class."""
        d = self._decision(X)
        return d[:, 0] if len(self.classes_) == 2 else d

    def predict(self, X):
        """Predicted labels."""
        d = self._decision(X)
        if len(self.classes_) == 2:
            return self.classes_[(d[:, 0] > 0).astype(np.int64)]
        return self.classes_[np.argmax(d, axis=1)]


class LSSVR(RegressorMixin, _LSSVM):
    __doc__ = "LS-SVM regressor." + _LSSVM_DOC

    def __init__(
        self, *, alpha=None, gam=None, kernel="rbf", gamma="scale", degree=3, coef0=0.0, n_jobs=None
    ):
        self.alpha = alpha
        self.gam = gam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_jobs = n_jobs

    def fit(self, X, y):
        """Trains on samples and real targets."""
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64, y_numeric=True)
        return self._fit(X, np.asarray(y, dtype=np.float64).tolist(), False)

    def predict(self, X):
        """Predicted values."""
        return self._decision(X)[:, 0]


__all__ = ["KernelRidge", "LSSVC", "LSSVR"]
