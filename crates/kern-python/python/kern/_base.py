"""Shared machinery of the estimators: kernels by scikit-learn name or kern spec, input conversion,
thread counts, and pickling through kern's model bytes."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from . import _kern

#: Kernels accepted by scikit-learn name; any other string is read as a kern kernel spec.
SKLEARN_KERNELS = ("linear", "rbf", "poly", "sigmoid")


def _num(v, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {v!r}")
    v = float(v)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return v


def resolve_gamma(gamma, X, default=None):
    """scikit-learn's `gamma`: a positive number, 'scale' (1 / (n_features * X.var())) or 'auto'
    (1 / n_features); `None` means `default` ('auto' in scikit-learn's kernel ridge and kernel PCA)."""
    if gamma is None:
        gamma = default
    d = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "scale":
            if sp.issparse(X):
                var = X.multiply(X).mean() - X.mean() ** 2
            else:
                var = X.var()
            return float(1.0 / (d * var)) if var != 0 else 1.0
        if gamma == "auto":
            return float(1.0 / d)
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {gamma!r}")
    g = _num(gamma, "gamma")
    if g <= 0:
        raise ValueError(f"gamma must be positive, got {gamma!r}")
    return g


def kernel_spec(kernel, gamma, degree, coef0, X, gamma_default=None, precomputed=False):
    """The kern kernel spec of scikit-learn's `kernel`/`gamma`/`degree`/`coef0`, or `kernel` itself when
    it is a kern spec string (for example ``"cs-gaussian:sigma=0.6,c=2.2,nu=3"``). `"precomputed"` is
    passed through for the estimators that take a kernel matrix (`precomputed=True`)."""
    if not isinstance(kernel, str):
        raise ValueError(
            f"kernel must be one of {SKLEARN_KERNELS} or a kern kernel spec string, got {kernel!r}"
        )
    if kernel == "linear":
        return "linear"
    if kernel == "rbf":
        return f"gaussian:gamma={resolve_gamma(gamma, X, gamma_default)!r}"
    if kernel in ("poly", "sigmoid"):
        g = resolve_gamma(gamma, X, gamma_default)
        c0 = _num(coef0, "coef0")
        if kernel == "sigmoid":
            return f"sigmoid:a={g!r},b={c0!r}"
        if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, numbers.Integral) or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        return f"poly:degree={int(degree)},coef0={c0!r},scale={g!r}"
    if kernel == "precomputed":
        if precomputed:
            return "precomputed"
        raise ValueError(
            "kernel='precomputed' is supported by SVC, NuSVC, SVR, NuSVR and OneClassSVM; "
            "pass the samples and a kernel here"
        )
    return kernel


def samples(X):
    """What the native module reads: a float64 2-D array (any strides, read-only or memory-mapped
    arrays included, no copy here) or the parts of a canonical CSR matrix."""
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return (
            np.asarray(X.indptr, dtype=np.int64),
            np.asarray(X.indices, dtype=np.int64),
            np.asarray(X.data, dtype=np.float64),
            X.shape[0],
            X.shape[1],
        )
    return X


def seed(random_state):
    """A 64-bit seed: `None` gives a fixed seed (kern is deterministic by default), an int is used as is,
    a `RandomState` is drawn from."""
    if random_state is None:
        return 0
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state) & (2**64 - 1)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def n_jobs_arg(n_jobs):
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise ValueError(f"n_jobs must be None or an integer, got {n_jobs!r}")
    return int(n_jobs)


def positive(v, name):
    v = _num(v, name)
    if v <= 0:
        raise ValueError(f"{name} must be positive, got {v!r}")
    return v


def max_iter_arg(max_iter):
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise ValueError(f"max_iter must be an integer, got {max_iter!r}")
    return None if max_iter < 0 else int(max_iter)


class KernModelMixin:
    """Pickles the trained model as kern's model bytes (the same header and payload as a model file)."""

    def __getstate__(self):
        state = super().__getstate__()
        model = state.get("_model")
        if model is not None:
            state = dict(state)
            state["_model"] = model.to_bytes()
        return state

    def __setstate__(self, state):
        model = state.get("_model")
        if isinstance(model, (bytes, bytearray)):
            state = dict(state)
            state["_model"] = _kern.Model.from_bytes(bytes(model))
        super().__setstate__(state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
