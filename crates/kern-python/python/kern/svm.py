"""Support vector machines: `SVC`, `NuSVC`, `SVR`, `NuSVR`, `OneClassSVM` and `RailwaySVC`."""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _kern
from ._docs import numpydoc
from ._base import (
    KernModelMixin,
    kernel_spec,
    max_iter_arg,
    n_jobs_arg,
    positive,
    positive_or_auto,
    resolve_gamma,
    samples,
    seed,
)

#: Sparse input is converted to CSR once, at validation (a CSC matrix too), and dense input to a
#: C-ordered array: every later step (gamma='scale', the native conversion) then reads the same bits
#: whatever the caller's layout, so C- and Fortran-ordered or sliced X train identical models.
_SPARSE = ["csr"]
#: `_KernelSVM._validate` without targets.
_NO_Y = object()


def _encode_classes(est, y):
    check_classification_targets(y)
    classes, y_enc = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"The number of classes has to be greater than one; got {len(classes)} class"
        )
    est.classes_ = classes
    return y_enc.astype(np.int64)


def _store(est, params):
    """An `__init__`'s only job under scikit-learn's conventions: keep every parameter as given."""
    for name, value in params.items():
        if name != "self":
            setattr(est, name, value)


def _weights(sample_weight, X):
    """Checked sample weights as a list for the native fit (`None` stays `None`): one per sample, finite
    and non-negative (kern refuses negative weights; scikit-learn's LIBSVM drops them silently)."""
    if sample_weight is None:
        return None, None
    sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    return sw, sw.tolist()


def _support_rows(model, X, sw, n_jobs):
    """Training-row index of each support vector. Samples of weight 0 were left out of training, so
    only the others are matched (a zero-weight duplicate of a support vector is never reported). A
    precomputed-kernel model knows its support vectors' rows of the kernel matrix."""
    threads = n_jobs_arg(n_jobs)
    if model.is_precomputed() or sw is None or (sw > 0).all():
        return np.asarray(model.support_indices(samples(X), threads), dtype=np.int64)
    keep = np.flatnonzero(sw > 0)
    return keep[np.asarray(model.support_indices(samples(X[keep]), threads), dtype=np.int64)]


def _fit_status(est, X):
    """`shape_fit_`, `fit_status_` (0, or 1 when the iteration cap stopped a solver before its
    tolerance, as scikit-learn's) and the `ConvergenceWarning` that goes with 1."""
    est.shape_fit_ = X.shape
    est.fit_status_ = int(any(est._model.hit_cap()))
    if est.fit_status_:
        cap = f"max_iter={est.max_iter}" if est.max_iter >= 0 else "kern's default iteration cap"
        warnings.warn(
            f"Solver terminated early ({cap}): the solution is approximate. Consider pre-processing "
            "your data with StandardScaler or MinMaxScaler, or a larger max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _ovr_decision(dec, k):
    """One-vs-one decision values turned into one column per class: votes plus the summed confidences
    squashed into (-1/3, 1/3), so that the argmax is the vote winner (scikit-learn's 'ovr' shape)."""
    n = dec.shape[0]
    votes = np.zeros((n, k))
    conf = np.zeros((n, k))
    m = 0
    for i in range(k):
        for j in range(i + 1, k):
            votes[:, i] += dec[:, m] > 0
            votes[:, j] += dec[:, m] <= 0
            conf[:, i] += dec[:, m]
            conf[:, j] -= dec[:, m]
            m += 1
    return votes + conf / (3 * (np.abs(conf) + 1))


class _KernelSVM(KernModelMixin):
    """`kernel="precomputed"` as scikit-learn's SVMs take it: `fit` reads the `n × n` kernel matrix of the
    training samples, the other methods the `m × n` matrix `K(X, X_train)`; dense input only."""

    def _precomputed(self):
        return getattr(self, "kernel", None) == "precomputed"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        tags.input_tags.sparse = not self._precomputed()
        return tags

    def _validate(self, X, y=_NO_Y, reset=True, **kw):
        """`validate_data` for this estimator's input, with targets `y` unless `_NO_Y` (at predict time
        `reset=False` checks the width: for a kernel matrix, the number of training samples)."""
        if self._precomputed() and sp.issparse(X):
            raise TypeError("Sparse precomputed kernels are not supported.")
        accept = False if self._precomputed() else _SPARSE
        if y is _NO_Y:
            X = validate_data(self, X, accept_sparse=accept, dtype=np.float64, order="C", reset=reset)
        else:
            X, y = validate_data(self, X, y, accept_sparse=accept, dtype=np.float64, order="C", **kw)
        if reset and self._precomputed() and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"Precomputed matrix must be a square matrix. Input is a {X.shape[0]}x{X.shape[1]} matrix."
            )
        return X if y is _NO_Y else (X, y)

    def _spec(self, X, labels=None, seed=0):
        """The kern kernel spec and the gamma (NaN without one) of this estimator's kernel on the
        training samples `X` (`labels`: class indices, for gamma='ahn'; `seed`: the subsample of the
        width methods beyond 5,000 samples)."""
        return kernel_spec(
            self.kernel, self.gamma, self.degree, self.coef0, X, precomputed=True, labels=labels,
            seed=seed, n_jobs=self.n_jobs,
        )

    def _training_vectors(self, X, support):
        """`support_vectors_`: the support rows of `X`, or (precomputed) an empty array, as
        scikit-learn's."""
        return np.empty((0, 0)) if self._precomputed() else X[support]

    def _decision(self, X):
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        return self._model.decision_function(samples(X), n_jobs_arg(self.n_jobs))


class _BaseSVC(_KernelSVM, ClassifierMixin, BaseEstimator):
    def _native_decision(self, X):
        return self._decision(X)

    def decision_function(self, X):
        """Decision values: `(n_samples,)` for two classes (positive favours `classes_[1]`), else
        `(n_samples, n_classes)` ('ovr') or `(n_samples, n_classes * (n_classes - 1) / 2)` ('ovo')."""
        dec = self._native_decision(X)
        if len(self.classes_) == 2:
            return -dec[:, 0]
        if self.decision_function_shape == "ovr":
            return _ovr_decision(dec, len(self.classes_))
        return dec

    def predict(self, X):
        """Predicted labels (one-vs-one voting, as LIBSVM), from kern's one prediction pass."""
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        labels, _, _ = self._model.predict_all(samples(X), False, n_jobs_arg(self.n_jobs))
        return self.classes_[np.fromiter((int(c) for c in labels), dtype=np.intp, count=len(labels))]

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is available only when probability=True")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities from Platt sigmoids fitted by internal cross-validation (columns in the
        order of `classes_`)."""
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        return self._model.predict_proba(samples(X), n_jobs_arg(self.n_jobs))

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of `predict_proba`."""
        return np.log(self.predict_proba(X))

    def _check_shape(self):
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(
                f"decision_function_shape must be 'ovr' or 'ovo', got {self.decision_function_shape!r}"
            )

    def _fit_kernel_svc(self, X, y, c, nu, class_weight, sample_weight):
        """The one training path of `SVC` (`nu` None) and `NuSVC` (`c` unused): validation, the native
        fit and scikit-learn's fitted attributes. Returns the `C` or `nu` trained with (`c` or `nu`
        'auto': the one chosen)."""
        self._check_shape()
        X, y = self._validate(X, y)
        y_enc = _encode_classes(self, y)
        labels = y_enc.tolist()
        sw, sw_list = _weights(sample_weight, X)
        s = seed(self.random_state)
        spec, gamma = self._spec(X, labels, s)
        cw = None
        if class_weight is not None:
            cw = [float(w) for w in compute_class_weight(class_weight, classes=self.classes_, y=y)]
        self._model, value = _kern.fit_svc(
            samples(X),
            labels,
            spec,
            c,
            nu,
            cw,
            False,
            bool(self.probability),
            s,
            positive(self.tol, "tol"),
            positive(self.cache_size, "cache_size"),
            bool(self.shrinking),
            max_iter_arg(self.max_iter),
            n_jobs_arg(self.n_jobs),
            sw_list,
        )
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        self.class_weight_ = np.ones(len(self.classes_)) if cw is None else np.asarray(cw)
        self._set_classifier_status(X)
        self._set_support(X, y_enc, sw)
        return value

    def _set_classifier_status(self, X):
        """`n_iter_`, `fit_plan_`, `probA_`, `probB_`, `shape_fit_`, `fit_status_` of a trained SVC."""
        self.n_iter_ = np.asarray(self._model.iterations(), dtype=np.int32)
        self.fit_plan_ = self._model.plans()
        platt = np.asarray(self._model.platt(), dtype=np.float64).reshape(-1, 2)
        self.probA_, self.probB_ = platt[:, 0].copy(), platt[:, 1].copy()
        _fit_status(self, X)

    def _set_support(self, X, y_enc, sw):
        k = len(self.classes_)
        rows = _support_rows(self._model, X, sw, self.n_jobs)
        # scikit-learn's layout: support vectors grouped by class, in sample order within a class.
        order = np.lexsort((rows, y_enc[rows]))
        self.support_ = rows[order].astype(np.int32)
        position = np.empty(len(rows), dtype=np.int64)
        position[order] = np.arange(len(rows))
        sv_class = y_enc[rows]
        self.support_vectors_ = self._training_vectors(X, self.support_)
        self.n_support_ = np.bincount(sv_class, minlength=k).astype(np.int32)
        machines = self._model.machines()
        dual = np.zeros((k - 1, len(rows)))
        intercept = np.empty(len(machines))
        for m, (a, b, bias) in enumerate(machines):
            idx, coef = self._model.machine_coefficients(m)
            idx = np.asarray(idx, dtype=np.int64)
            # A support vector of class `a` holds its coefficient against `b` in row `b - 1`, one of
            # class `b` its coefficient against `a` in row `a` (scikit-learn's one-vs-one layout).
            dual[np.where(sv_class[idx] == a, b - 1, a), position[idx]] = coef
            intercept[m] = bias
        if k == 2:
            dual, intercept = -dual, -intercept
        self.dual_coef_ = dual
        self.intercept_ = intercept


@numpydoc(
    """C-support vector classification by kern's SMO solver (one-vs-one for more than two classes).

    scikit-learn's `sklearn.svm.SVC` with the same parameters and fitted attributes, plus kern kernel
    specs, sparse input without densifying, and `n_jobs`.""",
    ["C", "kernel", "degree", "gamma", "coef0", "shrinking", "probability", "tol", "cache_size",
     "class_weight", "max_iter", "decision_function_shape", "random_state", "n_jobs"],
    ["class_weight_", "classes_", "dual_coef_", "fit_status_", "intercept_", "n_features_in_", "n_iter_",
     "n_support_", "probA_", "probB_", "shape_fit_", "support_", "support_vectors_", "kernel_spec_",
     "fit_plan_", "gamma_", "C_"],
    """>>> import numpy as np, kern
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> y = np.array([1, 1, 2, 2])
    >>> clf = kern.SVC(gamma="auto").fit(X, y)
    >>> clf.predict([[-0.8, -1.0]])
    array([1])
    >>> clf.n_support_, clf.fit_status_
    (array([2, 2], dtype=int32), 0)

    Without hyperparameters to tune: the width and C chosen on the training data.

    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (50, 2)), rng.normal(1, 1, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> clf = kern.SVC(gamma="mean-to-half", C="auto").fit(X, y)
    >>> bool(np.isclose(clf.C_, np.logspace(-1, 5, 13), rtol=1e-12).any())  # 10**-1, ..., 10**5
    True
    >>> K = np.exp(-clf.gamma_ * ((X[:, None] - X[None]) ** 2).sum(-1))
    >>> bool(abs(K[np.triu_indices(100, 1)].mean() - 0.5) < 1e-9)
    True""",
    "NuSVC : the same classifier with `nu` in place of `C`.",
)
class SVC(_BaseSVC):
    def __init__(
        self,
        *,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability=False,
        tol=1e-3,
        cache_size=200,
        class_weight=None,
        max_iter=-1,
        decision_function_shape="ovr",
        random_state=None,
        n_jobs=None,
    ):
        _store(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Trains on samples `X` (dense or sparse) and labels `y` (any hashable labels);
        `sample_weight` rescales C per sample (weight 0 leaves the sample out)."""
        c = positive_or_auto(self.C, "C")
        self.C_ = self._fit_kernel_svc(X, y, c, None, self.class_weight, sample_weight)
        return self


def _nu(nu, auto=False):
    """`nu` checked to be in (0, 1], or 'auto' where it may be (`auto`: NuSVC and NuSVR)."""
    if auto and isinstance(nu, str):
        if nu == "auto":
            return nu
        raise ValueError(f"nu must be 'auto' or a number in (0, 1], got {nu!r}")
    nu = positive(nu, "nu")
    if nu > 1:
        raise ValueError(f"nu must be in (0, 1], got {nu!r}")
    return nu


@numpydoc(
    """ν-support vector classification (LIBSVM's ``-s 1``) by kern's SMO solver: `nu` replaces `C`;
    one-vs-one for more than two classes (each pair's `nu` must be feasible, else ValueError).

    scikit-learn's `sklearn.svm.NuSVC` (without `class_weight`), plus kern kernel specs and
    `n_jobs`.""",
    ["nu_auto", "kernel", "degree", "gamma", "coef0", "shrinking", "probability", "tol", "cache_size",
     "max_iter", "decision_function_shape", "random_state", "n_jobs"],
    ["class_weight_", "classes_", "dual_coef_", "fit_status_", "intercept_", "n_features_in_", "n_iter_",
     "n_support_", "probA_", "probB_", "shape_fit_", "support_", "support_vectors_", "kernel_spec_",
     "fit_plan_", "gamma_", "nu_"],
    """>>> import numpy as np, kern
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> clf = kern.NuSVC(nu=0.5).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5, 1.0]])
    array(['b'], dtype='<U1')""",
    "SVC : the same classifier with `C`.",
)
class NuSVC(_BaseSVC):
    def __init__(
        self,
        *,
        nu=0.5,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability=False,
        tol=1e-3,
        cache_size=200,
        max_iter=-1,
        decision_function_shape="ovr",
        random_state=None,
        n_jobs=None,
    ):
        _store(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Trains on samples `X` (dense or sparse) and labels `y` (any hashable labels);
        `sample_weight` bounds each sample's dual variable and counts in `nu`'s total (weight 0
        leaves the sample out)."""
        self.nu_ = self._fit_kernel_svc(X, y, 1.0, _nu(self.nu, auto=True), None, sample_weight)
        return self


@numpydoc(
    """C-SVC with a railway kernel (González & Muñoz 2008): areas located from the labels by k-means
    with a purity test, each area a locally linear kernel, joined smoothly; trained as a linear SVC on
    the kernel's explicit features.

    The defaults work on standardized data of moderate dimension; the areas are located in the
    feature space as given, so scale the features first (`sklearn.preprocessing.StandardScaler`).""",
    ["C_fixed", "railway_gamma", "significance", "k_max", "probability", "tol", "cache_size", "max_iter",
     "decision_function_shape", "random_state", "n_jobs"],
    ["classes_", "class_weight_", "n_features_in_", "n_areas_", "n_zones_", "fit_status_", "shape_fit_",
     "n_iter_", "probA_", "probB_", "fit_plan_"],
    """>>> import numpy as np, kern
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-2, 1, (40, 2)), rng.normal(2, 1, (40, 2))])
    >>> y = np.repeat([0, 1], 40)
    >>> clf = kern.RailwaySVC(random_state=0).fit(X, y)
    >>> float(clf.score(X, y)) > 0.9
    True""",
)
class RailwaySVC(_BaseSVC):
    def __init__(
        self,
        *,
        C=1.0,
        gamma=2.0,
        significance=0.05,
        k_max=10,
        probability=False,
        tol=1e-3,
        cache_size=200,
        max_iter=-1,
        decision_function_shape="ovr",
        random_state=None,
        n_jobs=None,
    ):
        _store(self, locals())

    def fit(self, X, y):
        """Locates the areas and trains the SVC."""
        self._check_shape()
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64, order="C")
        y_enc = _encode_classes(self, y)
        if not isinstance(self.k_max, (int, np.integer)) or isinstance(self.k_max, bool) or self.k_max < 1:
            raise ValueError(f"k_max must be a positive integer, got {self.k_max!r}")
        self._model = _kern.fit_railway(
            samples(X),
            y_enc.tolist(),
            positive(self.C, "C"),
            positive(self.gamma, "gamma"),
            positive(self.significance, "significance"),
            int(self.k_max),
            seed(self.random_state),
            bool(self.probability),
            positive(self.tol, "tol"),
            positive(self.cache_size, "cache_size"),
            max_iter_arg(self.max_iter),
            n_jobs_arg(self.n_jobs),
        )
        self.n_areas_, self.n_zones_ = self._model.railway_parts()
        self.class_weight_ = np.ones(len(self.classes_))
        self._set_classifier_status(X)
        return self


@numpydoc(
    """Epsilon-support vector regression by kern's SMO solver.

    scikit-learn's `sklearn.svm.SVR` with the same parameters and fitted attributes, plus kern kernel
    specs, sparse input and `n_jobs`.""",
    ["kernel", "degree", "gamma_unlabelled", "coef0", "tol", "C", "epsilon", "shrinking", "cache_size",
     "max_iter", "n_jobs"],
    ["dual_coef_1", "fit_status_", "intercept_1", "n_features_in_", "n_iter_1", "n_support_1", "shape_fit_",
     "support_", "support_vectors_", "kernel_spec_", "fit_plan_", "gamma_", "C_"],
    """>>> import numpy as np, kern
    >>> X = np.linspace(0, 3, 20).reshape(-1, 1)
    >>> reg = kern.SVR(C=10.0, epsilon=0.05).fit(X, np.sin(X[:, 0]))
    >>> bool(abs(reg.predict([[1.5]])[0] - np.sin(1.5)) < 0.1)
    True
    >>> reg.n_support_.shape, reg.shape_fit_
    ((1,), (20, 1))""",
    "NuSVR : the same regressor with `nu` in place of `epsilon`.",
)
class SVR(_KernelSVM, RegressorMixin, BaseEstimator):
    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        C=1.0,
        epsilon=0.1,
        shrinking=True,
        cache_size=200,
        max_iter=-1,
        n_jobs=None,
    ):
        _store(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Trains on samples `X` and real targets `y`; `sample_weight` rescales C per sample (weight 0
        leaves the sample out)."""
        eps = float(self.epsilon)
        if not eps >= 0:
            raise ValueError(f"epsilon must be >= 0, got {self.epsilon!r}")
        self.C_ = self._fit_regression(X, y, positive_or_auto(self.C, "C"), eps, None, sample_weight)
        return self

    def _fit_regression(self, X, y, c, eps, nu, sample_weight):
        """The one training path of `SVR` (`nu` None) and `NuSVR` (`eps` unused: the tube is found).
        Returns the `C` (SVR) or `nu` (NuSVR) trained with ('auto': the one chosen)."""
        X, y = self._validate(X, y, y_numeric=True)
        sw, sw_list = _weights(sample_weight, X)
        spec, gamma = self._spec(X)
        self._model, value = _kern.fit_svr(
            samples(X),
            np.asarray(y, dtype=np.float64).tolist(),
            spec,
            c,
            eps,
            nu,
            0,
            positive(self.tol, "tol"),
            positive(self.cache_size, "cache_size"),
            bool(self.shrinking),
            max_iter_arg(self.max_iter),
            n_jobs_arg(self.n_jobs),
            sw_list,
        )
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        _set_expansion(self, X, sw)
        return value

    def predict(self, X):
        """Predicted values."""
        return self._decision(X)[:, 0]


def _set_expansion(est, X, sw):
    """`n_iter_`, `support_`, `support_vectors_`, `dual_coef_` `(1, n_SV)` and `intercept_` of a model
    with one expansion (SVR, ν-SVR, one-class), support vectors in sample order."""
    est.n_iter_ = int(est._model.iterations()[0])
    est.fit_plan_ = est._model.plans()
    _fit_status(est, X)
    rows = _support_rows(est._model, X, sw, est.n_jobs)
    coef, bias = est._model.svr_coefficients()
    order = np.argsort(rows, kind="stable")
    est.support_ = rows[order].astype(np.int32)
    est.support_vectors_ = est._training_vectors(X, est.support_)
    est.n_support_ = np.array([len(rows)], dtype=np.int32)
    est.dual_coef_ = np.asarray(coef, dtype=np.float64)[order].reshape(1, -1)
    est.intercept_ = np.array([bias])


@numpydoc(
    """ν-support vector regression (LIBSVM's ``-s 4``): `nu` replaces the tube width `epsilon`, which
    the solver finds.

    scikit-learn's `sklearn.svm.NuSVR` with the same parameters and fitted attributes, plus kern kernel
    specs and `n_jobs`.""",
    ["nu_auto", "C_fixed", "kernel", "degree", "gamma_unlabelled", "coef0", "shrinking", "tol",
     "cache_size", "max_iter", "n_jobs"],
    ["dual_coef_1", "fit_status_", "intercept_1", "n_features_in_", "n_iter_1", "n_support_1", "shape_fit_",
     "support_", "support_vectors_", "kernel_spec_", "fit_plan_", "gamma_", "nu_"],
    """>>> import numpy as np, kern
    >>> X = np.linspace(0, 3, 20).reshape(-1, 1)
    >>> reg = kern.NuSVR(nu=0.5, C=10.0).fit(X, np.sin(X[:, 0]))
    >>> bool(abs(reg.predict([[1.5]])[0] - np.sin(1.5)) < 0.1)
    True""",
    "SVR : the same regressor with `epsilon`.",
)
class NuSVR(SVR):
    def __init__(
        self,
        *,
        nu=0.5,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        tol=1e-3,
        cache_size=200,
        max_iter=-1,
        n_jobs=None,
    ):
        _store(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Trains on samples `X` and real targets `y`; `sample_weight` rescales C per sample (weight 0
        leaves the sample out)."""
        c = positive(self.C, "C")
        self.nu_ = self._fit_regression(X, y, c, 0.0, _nu(self.nu, auto=True), sample_weight)
        return self


@numpydoc(
    """One-class SVM (Schölkopf et al. 2001, LIBSVM's ``-s 2``) by kern's SMO solver: estimates the
    support of a distribution; `predict` gives +1 inside, -1 outside.

    scikit-learn's `sklearn.svm.OneClassSVM` with the same parameters and fitted attributes, plus kern
    kernel specs and `n_jobs`.""",
    ["kernel", "degree", "gamma_unlabelled", "coef0", "tol", "nu", "shrinking", "cache_size", "max_iter",
     "n_jobs"],
    ["dual_coef_1", "fit_status_", "intercept_1", "n_features_in_", "n_iter_1", "n_support_1", "shape_fit_",
     "support_", "support_vectors_", "kernel_spec_", "fit_plan_", "offset_", "gamma_"],
    """>>> import numpy as np, kern
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> oc = kern.OneClassSVM(nu=0.1, gamma="auto").fit(X)
    >>> oc.predict([[6.0, 6.0]])
    array([-1])
    >>> bool((oc.predict(X) == 1).mean() > 0.7)
    True""",
)
class OneClassSVM(_KernelSVM, OutlierMixin, BaseEstimator):
    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        nu=0.5,
        shrinking=True,
        cache_size=200,
        max_iter=-1,
        n_jobs=None,
    ):
        _store(self, locals())

    def fit(self, X, y=None, sample_weight=None):
        """Estimates the support of the distribution of `X` (`y` is ignored); `sample_weight` bounds
        each sample's dual variable and counts in `nu`'s total (weight 0 leaves the sample out)."""
        X = self._validate(X)
        sw, sw_list = _weights(sample_weight, X)
        spec, gamma = self._spec(X)
        self._model = _kern.fit_one_class(
            samples(X),
            spec,
            _nu(self.nu),
            positive(self.tol, "tol"),
            positive(self.cache_size, "cache_size"),
            bool(self.shrinking),
            max_iter_arg(self.max_iter),
            n_jobs_arg(self.n_jobs),
            sw_list,
        )
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        _set_expansion(self, X, sw)
        self.offset_ = -self.intercept_[0]
        return self

    def decision_function(self, X):
        """Signed distance to the estimated support's boundary: positive inside."""
        return self._decision(X)[:, 0]

    def score_samples(self, X):
        """The unshifted scores `sum_i alpha_i k(x_i, x)` (`decision_function + offset_`)."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for samples inside the estimated support, -1 outside."""
        return np.where(self.decision_function(X) > 0, 1, -1)


__all__ = ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM", "RailwaySVC", "resolve_gamma"]
