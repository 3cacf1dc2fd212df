"""Shared machinery of the estimators: kernels by scikit-learn name or kern spec, input conversion,
thread counts, and pickling through kern's model bytes."""

import functools
import numbers
import os
import warnings

import joblib
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from . import _kern

#: Kernels accepted by scikit-learn name; any other string is read as a kern kernel spec.
SKLEARN_KERNELS = ("linear", "rbf", "poly", "sigmoid")

#: Values of `gamma` that choose the 'rbf' kernel's width on the training samples, by kern's bandwidth
#: methods: the mean similarity 1/2, the largest variance of the similarities, Ahn's class separation
#: (classifiers only: it needs the labels), and ``1 / median squared distance``.
AUTO_GAMMAS = ("mean-to-half", "max-variance", "ahn", "median")

#: The value of `gamma` that widens the 'rbf' kernel's mean-to-half width by exact leave-one-out
#: together with alpha: the ridge models' own (`KernelRidge`, `LSSVC`, `LSSVR`, with alpha='auto').
LOO_GAMMA = "loo"

#: The refusal of gamma='loo' where it does not apply.
LOO_GAMMA_ONLY = (
    "gamma='loo' chooses the 'rbf' width together with alpha by exact leave-one-out, which only "
    "KernelRidge, LSSVC and LSSVR compute (with kernel='rbf' and alpha='auto'); use 'mean-to-half', "
    "'max-variance', 'median', 'scale', 'auto' or a positive number"
)

#: `gamma_` of a kernel that has no gamma (linear, precomputed, a kern spec string, a callable).
NO_GAMMA = float("nan")


def _num(v, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {v!r}")
    v = float(v)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return v


def resolve_gamma(gamma, X, default=None):
    """The number scikit-learn's `gamma` stands for on the samples `X`.

    Parameters
    ----------
    gamma : {'scale', 'auto'} or float or None
        A positive number; ``'scale'``: ``1 / (n_features * X.var())``; ``'auto'``: ``1 / n_features``;
        `None`: `default`. (The widths chosen on the data, `AUTO_GAMMAS`, are `kernel_spec`'s.)
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The training samples.
    default : {'scale', 'auto'} or float, default=None
        What `None` means ('auto' in scikit-learn's kernel ridge and kernel PCA).

    Returns
    -------
    float
        The positive, finite `gamma`.

    Raises
    ------
    ValueError
        For a `gamma` that is not 'scale', 'auto' or a positive number (one of `AUTO_GAMMAS`: they are
        widths of the 'rbf' kernel alone; `LOO_GAMMA`, which the ridge models resolve themselves), or a
        'scale' that is not a positive finite number on these
        samples (feature values too large or too small).

    Examples
    --------
    >>> import numpy as np
    >>> from kern._base import resolve_gamma
    >>> X = np.array([[0.0, 2.0], [2.0, 0.0]])
    >>> resolve_gamma("scale", X)  # X.var() = 1, two features
    0.5
    >>> resolve_gamma("auto", X)
    0.5
    """
    if gamma is None:
        gamma = default
    d = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "scale":
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                if sp.issparse(X):
                    var = X.multiply(X).mean() - X.mean() ** 2
                else:
                    var = X.var()
                if var == 0:
                    return 1.0
                g = float(1.0 / (d * var))
            if not (np.isfinite(g) and g > 0):
                raise ValueError(
                    f"gamma='scale' is 1 / (n_features * X.var()) = {g!r} here (X.var() = {float(var)!r}): "
                    "the feature values are too large or too small for it; scale X (for example with "
                    "sklearn.preprocessing.StandardScaler) or give gamma a positive number"
                )
            return g
        if gamma == "auto":
            return float(1.0 / d)
        if gamma == LOO_GAMMA:
            raise ValueError(LOO_GAMMA_ONLY)
        if gamma in AUTO_GAMMAS:
            raise ValueError(
                f"gamma={gamma!r} chooses the width of the 'rbf' kernel; the other kernels take 'scale', "
                "'auto' or a positive number"
            )
        raise ValueError(
            "gamma must be 'scale', 'auto', a positive number, or for kernel='rbf' one of "
            f"{', '.join(repr(g) for g in AUTO_GAMMAS)}; got {gamma!r}"
        )
    g = _num(gamma, "gamma")
    if g <= 0:
        raise ValueError(f"gamma must be positive, got {gamma!r}")
    return g


def kernel_spec(
    kernel, gamma, degree, coef0, X, gamma_default=None, precomputed=False, labels=None, seed=0, n_jobs=None
):
    """The kern kernel spec of scikit-learn's `kernel`/`gamma`/`degree`/`coef0` on the training samples
    `X`, and the kernel's gamma.

    Parameters
    ----------
    kernel : str
        'linear', 'rbf', 'poly', 'sigmoid', 'precomputed' (with `precomputed`), or a kern kernel spec
        (for example ``"cs-gaussian:sigma=0.6,c=2.2,nu=3"``, or with widths and radii chosen on `X`:
        ``"cs-gaussian:sigma=auto,c=auto"``).
    gamma : {'scale', 'auto', 'mean-to-half', 'max-variance', 'ahn', 'median'} or float or None
        As `resolve_gamma`; with kernel='rbf' also a method of `AUTO_GAMMAS`, which kern runs on `X`.
    degree, coef0 : int, float
        Of 'poly' and 'sigmoid'.
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The training samples (validated).
    gamma_default : {'scale', 'auto'} or float, default=None
        What `gamma=None` means.
    precomputed : bool, default=False
        Whether the estimator takes a kernel matrix for 'precomputed'.
    labels : list of int, default=None
        Class index per sample, for gamma='ahn' (classifiers).
    seed : int, default=0
        Seed of the subsample the width methods use beyond 5,000 samples.
    n_jobs : int, default=None
        Threads of the width methods.

    Returns
    -------
    spec : str
        The kern kernel spec, every value a number.
    gamma : float
        The kernel's gamma (`NO_GAMMA`, NaN, for a kernel without one: 'linear', 'precomputed', a kern
        spec string).

    Raises
    ------
    ValueError
        For a kernel or parameter kern does not take, and for gamma='ahn' without labels.

    Examples
    --------
    >>> import numpy as np
    >>> from kern._base import kernel_spec
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> kernel_spec("rbf", "auto", 3, 0.0, X)
    ('gaussian:gamma=1.0', 1.0)
    >>> spec, g = kernel_spec("rbf", "median", 3, 0.0, X)  # squared distances 1, 4, 9
    >>> g
    0.25
    """
    if not isinstance(kernel, str):
        raise ValueError(
            f"kernel must be one of {SKLEARN_KERNELS} or a kern kernel spec string, got {kernel!r}"
        )
    if kernel == "linear":
        return "linear", NO_GAMMA
    if kernel == "rbf":
        if isinstance(gamma, str) and gamma in AUTO_GAMMAS:
            if gamma == "ahn" and labels is None:
                raise ValueError(
                    "gamma='ahn' needs class labels (Ahn's criterion separates the classes), which "
                    "regression, one-class and unsupervised estimators do not have; use 'mean-to-half', "
                    "'max-variance', 'median', 'scale', 'auto' or a positive number"
                )
            if X.shape[0] < 2:
                raise ValueError(
                    f"gamma={gamma!r} chooses the width from the pairs of training samples: it needs at "
                    f"least 2 samples, got n_samples = {X.shape[0]}"
                )
            spec, choices = _resolve(f"gaussian:gamma={gamma}", X, labels, seed, n_jobs)
            return spec, float(choices[0]["value"])
        g = resolve_gamma(gamma, X, gamma_default)
        return f"gaussian:gamma={g!r}", g
    if kernel in ("poly", "sigmoid"):
        g = resolve_gamma(gamma, X, gamma_default)
        c0 = _num(coef0, "coef0")
        if kernel == "sigmoid":
            return f"sigmoid:a={g!r},b={c0!r}", g
        if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, numbers.Integral) or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        return f"poly:degree={int(degree)},coef0={c0!r},scale={g!r}", g
    if kernel == "precomputed":
        if precomputed:
            return "precomputed", NO_GAMMA
        raise ValueError(
            "kernel='precomputed' is supported by SVC, NuSVC, SVR, NuSVR, OneClassSVM, KernelRidge and "
            "KernelPCA; "
            "pass the samples and a kernel here"
        )
    return _resolve(kernel, X, labels, seed, n_jobs)[0], NO_GAMMA


def _resolve(spec, X, labels, seed, n_jobs):
    """kern's choice of the automatic values of the kern spec `spec` on `X` (the spec as given, without
    reading `X`, when it has none): ``(spec, choices)``."""
    return _kern.resolve_kernel(samples(X), spec, labels, seed, n_jobs_arg(n_jobs))


def samples(X):
    """What the native module reads for validated input `X`.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        float64 samples (the estimators validate them to a C-ordered array or a CSR matrix first).

    Returns
    -------
    ndarray or tuple
        The array itself (no copy), or the parts ``(indptr, indices, data, n_samples, n_features)`` of
        the canonical CSR form of a sparse matrix.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from kern._base import samples
    >>> indptr, indices, data, n, d = samples(sp.csr_matrix(np.array([[0.0, 2.0], [3.0, 0.0]])))
    >>> indptr.tolist(), indices.tolist(), data.tolist(), n, d
    ([0, 1, 2], [1, 0], [2.0, 3.0], 2, 2)
    """
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
    """The 64-bit seed of scikit-learn's `random_state`.

    Parameters
    ----------
    random_state : int, RandomState instance or None
        `None` gives a fixed seed (kern is deterministic by default), an int is used as is, a
        `RandomState` is drawn from.

    Returns
    -------
    int

    Examples
    --------
    >>> from kern._base import seed
    >>> seed(None), seed(7)
    (0, 7)
    """
    if random_state is None:
        return 0
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state) & (2**64 - 1)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


@functools.lru_cache(maxsize=1)
def cpu_count():
    """The CPUs this process may use: `joblib.cpu_count()` (its affinity mask and its cgroup's CPU
    quota), read once per process.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from kern._base import cpu_count
    >>> cpu_count() >= 1
    True
    """
    return max(1, int(joblib.cpu_count()))


#: The environment variables that cap a process's compute threads: OpenMP's (joblib sets it, with the
#: BLAS ones, to `cpu_count() // n_jobs` in the worker processes of `Parallel(n_jobs)` and so of
#: `GridSearchCV(n_jobs)`) and rayon's (kern's thread pools).
THREAD_LIMIT_VARS = ("OMP_NUM_THREADS", "RAYON_NUM_THREADS")


@functools.lru_cache(maxsize=1)
def _openmp_controllers():
    """threadpoolctl's controllers of the OpenMP runtimes loaded in this process (scikit-learn's among
    them), found once per process: finding them costs milliseconds, reading one a microsecond."""
    from threadpoolctl import ThreadpoolController

    return [c for c in ThreadpoolController().lib_controllers if c.user_api == "openmp"]


def thread_limit():
    """The most compute threads the caller allows this process, or `None` when nothing limits it.

    The smallest of: `OMP_NUM_THREADS` and `RAYON_NUM_THREADS` (their first positive number; joblib's
    worker processes get ``OMP_NUM_THREADS = cpu_count() // n_jobs``, and
    ``joblib.parallel_config(inner_max_num_threads=k)`` sets it to `k`), and the thread count of the
    OpenMP runtimes loaded, which ``threadpoolctl.threadpool_limits(k)`` lowers for the duration of
    its block.

    Returns
    -------
    int or None
        The limit (at least 1), or `None`.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> from kern._base import thread_limit
    >>> with threadpool_limits(limits=1):
    ...     thread_limit()
    1
    """
    limits = []
    for var in THREAD_LIMIT_VARS:
        first = os.environ.get(var, "").split(",")[0].strip()
        if first.isdigit() and int(first) > 0:
            limits.append(int(first))
    for c in _openmp_controllers():
        if c.num_threads and c.num_threads > 0:
            limits.append(int(c.num_threads))
    return min(limits) if limits else None


def n_jobs_arg(n_jobs):
    """The thread count kern runs a fit or prediction on, for scikit-learn's `n_jobs`.

    Parameters
    ----------
    n_jobs : int or None
        `None`: the CPUs this process may use (:func:`cpu_count`), lowered to the limits joblib and
        threadpoolctl set (:func:`thread_limit`), so that the fits of
        ``GridSearchCV(n_jobs=k)`` together use no more threads than there are CPUs. A positive count:
        that many threads, capped at :func:`cpu_count` with a `UserWarning` (more threads than CPUs
        only slow the computation down). Negative, as scikit-learn: ``-1`` all CPUs, ``-2`` all but
        one, and so on (at least one).

    Returns
    -------
    int
        The thread count, from 1 to :func:`cpu_count`.

    Raises
    ------
    ValueError
        For ``n_jobs=0`` or a value that is not an integer.

    Examples
    --------
    >>> from kern._base import cpu_count, n_jobs_arg
    >>> n_jobs_arg(1)
    1
    >>> n_jobs_arg(-1) == cpu_count()
    True
    >>> n_jobs_arg(-(cpu_count() + 5))
    1
    """
    cpus = cpu_count()
    if n_jobs is None:
        limit = thread_limit()
        return cpus if limit is None else max(1, min(cpus, limit))
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral):
        raise ValueError(f"n_jobs must be None or an integer, got {n_jobs!r}")
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, -1 or a positive count")
    if n_jobs < 0:
        return max(cpus + 1 + n_jobs, 1)
    if n_jobs > cpus:
        warnings.warn(
            f"n_jobs={n_jobs} is more than the {cpus} CPUs this process may use; using {cpus} threads "
            "(more threads than CPUs only slow kern down)",
            UserWarning,
            stacklevel=3,
        )
        return cpus
    return n_jobs


def positive(v, name):
    """`v` as a float, checked to be a positive finite number.

    Parameters
    ----------
    v : float
        The value.
    name : str
        The parameter's name, for the error message.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When `v` is not a positive finite real number.

    Examples
    --------
    >>> from kern._base import positive
    >>> positive(2, "C")
    2.0
    >>> positive(-1, "C")
    Traceback (most recent call last):
    ...
    ValueError: C must be positive, got -1.0
    """
    v = _num(v, name)
    if v <= 0:
        raise ValueError(f"{name} must be positive, got {v!r}")
    return v


def positive_or_auto(v, name):
    """'auto' (chosen on the training data), or `v` checked by `positive`.

    Raises
    ------
    ValueError
        For another string, naming the values taken.

    Examples
    --------
    >>> from kern._base import positive_or_auto
    >>> positive_or_auto("auto", "C"), positive_or_auto(10, "C")
    ('auto', 10.0)
    >>> positive_or_auto("best", "C")
    Traceback (most recent call last):
    ...
    ValueError: C must be 'auto' or a positive number, got 'best'
    """
    if isinstance(v, str):
        if v == "auto":
            return v
        raise ValueError(f"{name} must be 'auto' or a positive number, got {v!r}")
    return positive(v, name)


def max_iter_arg(max_iter):
    """scikit-learn's `max_iter` for the native solver: `None` (kern's default cap) for a negative value.

    Parameters
    ----------
    max_iter : int
        The most iterations; -1 for no cap of the caller's.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from kern._base import max_iter_arg
    >>> max_iter_arg(-1) is None, max_iter_arg(100)
    (True, 100)
    """
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
