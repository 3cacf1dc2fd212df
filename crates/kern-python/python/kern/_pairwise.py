"""Kernels as scikit-learn's pairwise module names them, for the estimators whose scikit-learn twin
computes its kernel with `sklearn.metrics.pairwise.pairwise_kernels` (`KernelRidge`, `KernelPCA`):
the SVM names plus 'laplacian', 'chi2' and 'cosine', a Python callable, or 'precomputed'."""

from sklearn.metrics.pairwise import pairwise_kernels

from ._base import NO_GAMMA, kernel_spec, positive, resolve_gamma

#: scikit-learn's pairwise kernels that kern computes natively beyond the SVM names.
PAIRWISE_KERNELS = ("laplacian", "chi2", "cosine")


def pairwise_spec(kernel, gamma, degree, coef0, X, seed=0, n_jobs=None):
    """The kern kernel spec of a scikit-learn pairwise kernel name and its gamma (NaN without one),
    with scikit-learn's defaults: 'laplacian' is ``exp(-gamma ||x - y||_1)`` with `gamma=None` meaning
    ``1 / n_features``; 'chi2' is ``exp(-gamma sum (x - y)^2 / (x + y))`` with `gamma=None` meaning 1
    (the default of `chi2_kernel`) on nonnegative features; 'cosine' takes no parameter. Other names
    and kern spec strings as `kernel_spec` (with `gamma=None` meaning ``1 / n_features``; no labels,
    so no gamma='ahn')."""
    if kernel == "laplacian":
        g = resolve_gamma(gamma, X, "auto")
        return f"laplacian-l1:gamma={g!r}", g
    if kernel == "chi2":
        g = 1.0 if gamma is None else positive(gamma, "gamma")
        return f"chi2:gamma={g!r}", g
    if kernel == "cosine":
        return "cosine", NO_GAMMA
    return kernel_spec(kernel, gamma, degree, coef0, X, gamma_default="auto", seed=seed, n_jobs=n_jobs)


def precomputed(kernel):
    """Whether `X` is the kernel matrix (kernel='precomputed')."""
    return isinstance(kernel, str) and kernel == "precomputed"


def user_kernel(kernel):
    """Whether the kernel matrix comes from the user: a Python callable or 'precomputed'."""
    return callable(kernel) or precomputed(kernel)


def user_gram(kernel, kernel_params, X, Y=None):
    """The kernel matrix `K(X, Y)` (`Y=None`: `X`) of a callable kernel, computed as scikit-learn does
    (`pairwise_kernels` with `kernel_params`), or `X` itself for 'precomputed'."""
    if callable(kernel):
        return pairwise_kernels(X, Y, metric=kernel, filter_params=True, **(kernel_params or {}))
    return X
