"""Least-squares kernel models: `KernelRidge`, `LSSVC`, `LSSVR`."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _kern
from ._base import (
    LOO_GAMMA,
    NO_GAMMA,
    SKLEARN_KERNELS,
    KernModelMixin,
    kernel_spec,
    n_jobs_arg,
    positive,
    positive_or_auto,
    samples,
)
from ._docs import numpydoc
from ._pairwise import PAIRWISE_KERNELS, pairwise_spec, precomputed, user_gram, user_kernel
from .svm import _encode_classes

_SPARSE = ["csr", "csc"]


def _ridge_kernel(est, X, y, model, lam, labels=None):
    """The kern kernel spec, the gamma (NaN without one), the width search (`None` when it did not
    run), the model it trained at the chosen width (`None` when it did not run) and the alpha to train
    with (`lam`, or the search's alpha when it ran on a subsample) of the ridge model `est` (`model`:
    'krr', 'lssvc' or 'lssvr') on the training samples `X` and targets `y` (class indices for
    'lssvc'), with alpha `lam` (`None`: chosen by leave-one-out).

    The width search (kern's `choose_width_with_fit`: the mean-to-half width times 1, 2, 4, 8 and 16,
    each with its leave-one-out alpha, the smallest leave-one-out error winning, on at most 1,000
    samples) runs for gamma='loo' with kernel='rbf', and for a kern spec whose Gaussian width is
    written ``auto`` when alpha is chosen too, as ``kern train --kernel gaussian:sigma=auto --lambda
    auto`` does. Its model is its own fit when it ran on all the samples (what fitting with that spec
    and alpha chosen by leave-one-out gives), else the fit on all of them at its width and alpha."""
    kernel, gamma = est.kernel, est.gamma
    loo = kernel == "rbf" and isinstance(gamma, str) and gamma == LOO_GAMMA
    if loo:
        if lam is not None:
            raise ValueError(
                "gamma='loo' chooses the 'rbf' width together with alpha by exact leave-one-out: it needs "
                "alpha='auto'" + ("" if model == "krr" else " (or neither alpha nor gam)")
                + "; with a given alpha use gamma='mean-to-half' or a number"
            )
        gamma = "mean-to-half"
    if model == "krr":
        spec, g = pairwise_spec(kernel, gamma, est.degree, est.coef0, X, n_jobs=est.n_jobs)
    else:
        spec, g = kernel_spec(kernel, gamma, est.degree, est.coef0, X, labels=labels, n_jobs=est.n_jobs)
    written_auto = (
        lam is None
        and kernel not in SKLEARN_KERNELS + PAIRWISE_KERNELS
        and _kern.gaussian_width_auto(kernel)
    )
    if not (loo or written_auto):
        return spec, g, None, None, lam
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            "the width search (gamma='loo', or a gaussian width written 'auto' with alpha='auto') chooses "
            "the width by leave-one-out on one target column; with several columns use "
            "gamma='mean-to-half' (or 'gaussian:sigma=mean-to-half'), or fit one model per column"
        )
    w = _kern.choose_width(samples(X), y.tolist(), model, spec, 0, n_jobs_arg(est.n_jobs))
    search = {
        "factor": w["factor"],
        "curve": [tuple(c) for c in w["curve"]],
        "points": w["points"],
        "seconds": w["seconds"],
        "alpha": w["alpha"],
    }
    return (
        w["kernel"], (w["gamma"] if loo else NO_GAMMA), search, w["model"],
        None if w["searched_all"] else w["alpha"],
    )


def _set_width_search(est, search, kept):
    """Sets `width_search_` (with `model_kept`: whether the model is the one the search returned,
    `kept`), or removes one a previous fit left when the search did not run."""
    if search is None:
        est.__dict__.pop("width_search_", None)
    else:
        est.width_search_ = dict(search, model_kept=kept)


@numpydoc(
    """Kernel ridge regression, as scikit-learn's `sklearn.kernel_ridge.KernelRidge`.

    Solves ``(K + alpha I) c = y`` for the dual coefficients and predicts
    ``f(x) = sum_i c_i k(x, x_i)`` (no intercept). Several target columns are solved together: one
    factorization of ``K + alpha I``, one right-hand side per column. With a compactly supported kern
    kernel (for example ``kernel="cs-gaussian:sigma=0.5,c=1.5"``) the system is sparse and never
    formed densely. A model that `alpha` leaves constant (every training prediction within 1e-6 of
    zero, relative to the targets; without `sample_weight`) raises a `UserWarning`.""",
    [
        """alpha : float or 'auto', default=1.0
    Ridge penalty: the ``alpha`` of ``K + alpha I`` (larger, more regularization). 'auto': chosen
    at `fit` by exact leave-one-out over ``10**-6, 10**-5.5, ..., 10**2`` (the smallest mean
    squared leave-one-out residual; unweighted fits with a kernel kern computes, not
    'precomputed' or a callable). With gamma='loo', or a kern spec whose Gaussian width is written
    ``auto`` (``kernel="gaussian:sigma=auto"``), the width is chosen with it (`gamma`). The value
    trained with is `alpha_`.""",
        "pairwise_kernel",
        "ridge_gamma",
        "degree",
        "pairwise_coef0",
        """kernel_params : dict, default=None
    Extra keyword arguments of a callable kernel.""",
        """n_jobs : int, default=None
    Threads of the fit and of predictions.""",
    ],
    [
        """dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
    Dual coefficients ``c``; two-dimensional when `y` was.""",
        """X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
    Training data, needed for predictions (the training kernel matrix for 'precomputed').""",
        """n_features_in_ : int
    Number of features seen during fit.""",
        """kernel_spec_ : str
    The kern kernel spec trained with ('precomputed' or 'callable' for a user kernel).""",
        "gamma_",
        """alpha_ : float
    The alpha trained with: `alpha`, or the value chosen for alpha='auto'.""",
        "width_search_",
    ],
    """>>> import numpy as np
    >>> from kern import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 3))
    >>> y = np.column_stack([X[:, 0], X[:, 1] ** 2])
    >>> model = KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5).fit(X, y)
    >>> model.dual_coef_.shape
    (50, 2)
    >>> model.predict(X[:2]).shape
    (2, 2)""",
)
class KernelRidge(KernModelMixin, RegressorMixin, BaseEstimator):

    def __init__(
        self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1, kernel_params=None, n_jobs=None
    ):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Solves for the dual coefficients.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix, of shape (n_samples, n_samples), for 'precomputed').
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Weights: the fit minimizes ``sum_i w_i (y_i - f(x_i))^2 + alpha ||f||^2``, as
            scikit-learn does.

        Returns
        -------
        self : KernelRidge
            The fitted estimator.
        """
        user = user_kernel(self.kernel)
        X, y = validate_data(
            self, X, y, accept_sparse=False if user else _SPARSE, dtype=np.float64, y_numeric=True,
            multi_output=True,
        )
        sw = None
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True).tolist()
        alpha = positive_or_auto(self.alpha, "alpha")
        # alpha is kern's lambda of K + lambda I; 'auto' (None below) lets kern choose it.
        lam = None if alpha == "auto" else alpha
        if lam is None and (user or sw is not None):
            raise ValueError(
                "alpha='auto' chooses alpha by exact leave-one-out on an unweighted fit with a kernel kern "
                "computes; with sample_weight, kernel='precomputed' or a callable kernel give alpha a "
                "number (or search it with GridSearchCV)"
            )
        y = np.asarray(y, dtype=np.float64)
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        search, kept = None, False
        if user:
            self._model = None
            K = np.ascontiguousarray(user_gram(self.kernel, self.kernel_params, X), dtype=np.float64)
            coef = _kern.krr_kernel_matrix(K, np.ascontiguousarray(Y), lam, n_jobs_arg(self.n_jobs), sw)
            spec, gamma = "callable" if callable(self.kernel) else "precomputed", NO_GAMMA
        else:
            spec, gamma, search, fitted, lam = _ridge_kernel(self, X, y, "krr", lam)
            jobs = n_jobs_arg(self.n_jobs)
            kept = fitted is not None and y.ndim == 1
            if kept:
                self._model = fitted  # trained by the width search, at the chosen width
            elif y.ndim == 1:
                self._model = _kern.fit_krr(samples(X), y.tolist(), spec, lam, jobs, sw)
            else:
                self._model = _kern.fit_krr_outputs(samples(X), np.ascontiguousarray(Y), spec, lam, jobs, sw)
            coef, _, lam = self._model.ridge_coefficients()
        self.X_fit_ = X
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        self.alpha_ = lam
        _set_width_search(self, search, kept)
        self.dual_coef_ = coef[:, 0] if y.ndim == 1 else coef
        return self

    def predict(self, X):
        """Predicted values.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (for 'precomputed', the kernel matrix ``K(X, X_fit)`` of shape
            (n_samples, n_training_samples)).

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_targets)
            Predictions, with as many columns as the training targets had.
        """
        check_is_fitted(self)
        if user_kernel(self.kernel):
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return user_gram(self.kernel, self.kernel_params, X, self.X_fit_) @ self.dual_coef_
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64, reset=False)
        d = self._model.decision_function(samples(X), n_jobs_arg(self.n_jobs))
        return d[:, 0] if self.dual_coef_.ndim == 1 else d

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.pairwise = precomputed(self.kernel)
        tags.input_tags.sparse = not user_kernel(self.kernel)
        return tags


class _LSSVM(KernModelMixin, BaseEstimator):
    def _fit(self, X, y, classify, labels=None):
        alpha = None if self.alpha is None else positive_or_auto(self.alpha, "alpha")
        if alpha is not None and self.gam is not None:
            raise ValueError("give alpha or gam, not both (gam = 1 / alpha)")
        if alpha is not None:
            lam = None if alpha == "auto" else alpha
        elif self.gam is not None:
            lam = 1.0 / positive(self.gam, "gam")
        else:
            lam = None
        model = "lssvc" if classify else "lssvr"
        spec, gamma, search, fitted, lam = _ridge_kernel(self, X, y, model, lam, labels=labels)
        if fitted is not None:
            self._model = fitted  # trained by the width search, at the chosen width
        else:
            self._model = _kern.fit_lssvm(
                samples(X), y.tolist(), classify, spec, lam, None, n_jobs_arg(self.n_jobs)
            )
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        _set_width_search(self, search, fitted is not None)
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
    regularization), the same as `alpha = 1 / gam`. Give at most one; with neither (or alpha='auto'),
    alpha is chosen over a grid by exact leave-one-out. `gamma` as `SVC`'s ('mean-to-half',
    'max-variance', 'median', and for `LSSVC` 'ahn', choose the 'rbf' width on the training samples),
    and also 'loo': the mean-to-half width widened together with alpha by exact leave-one-out (the
    width times 1, 2, 4, 8 or 16, each with its best alpha; the smallest leave-one-out error wins; on a
    seeded subsample of 1,000 beyond that many samples, which then also gives alpha: the model is
    trained on all samples at that width and alpha). 'loo' needs alpha chosen (alpha='auto', or neither alpha nor gam); so does a kern
    spec whose Gaussian width is written ``auto`` (``kernel="gaussian:sigma=auto"``) to be widened the
    same way (as ``kern train --lambda auto``), else it is the mean-to-half width. A model that the
    regularization leaves constant (every training decision value within 1e-6 of the intercept) raises
    a `UserWarning`. Kernels by scikit-learn name or kern spec; compactly supported kernels give a
    sparse system. Fitted attributes: `dual_coef_` (`(n_outputs, n_samples)`), `intercept_`, `alpha_`,
    `gam_` (`1 / alpha_`), `n_features_in_`, `kernel_spec_`, `gamma_` (NaN for a kernel without gamma
    and for a kern spec string), and after a width search `width_search_` (a dict: `factor`, the
    chosen factor; `curve`, one ``(factor, alpha, loo_error)`` per factor, the error rate for `LSSVC`,
    the mean squared residual for `LSSVR`; `points`, the samples searched; `seconds`; `alpha`, the
    chosen factor's best alpha; `model_kept`, whether the model is the one the search returned: its own
    fit at the chosen width when it searched all the samples, else its fit on all of them at the chosen
    width and `alpha`)."""


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
        return self._fit(X, y_enc.astype(np.float64), True, labels=y_enc.tolist())

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
        return self._fit(X, np.asarray(y, dtype=np.float64), False)

    def predict(self, X):
        """Predicted values."""
        return self._decision(X)[:, 0]


__all__ = ["KernelRidge", "LSSVC", "LSSVR"]
