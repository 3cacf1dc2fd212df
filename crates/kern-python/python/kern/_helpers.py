"""Stand-alone functions: `gram`, `bandwidth`, `support_radius`, `set_memory_limit`."""

import numbers

import numpy as np
from sklearn.utils import check_array

from . import _kern
from ._base import kernel_spec, n_jobs_arg, samples

_SPARSE = ["csr", "csc"]


def gram(X, Y=None, *, kernel="rbf", gamma="scale", degree=3, coef0=0.0, n_jobs=None):
    """The kernel matrix `K[i, j] = k(X[i], Y[j])` (`Y = X` when omitted), for a scikit-learn kernel
    name or a kern kernel spec such as ``"cs-gaussian:sigma=0.6,c=2.2,nu=3"``.

    >>> import numpy as np, kern
    >>> K = kern.gram(np.array([[0.0], [1.0]]), kernel="rbf", gamma=1.0)
    >>> bool(abs(K[0, 1] - np.exp(-1.0)) < 1e-15)
    True
    """
    X = check_array(X, accept_sparse=_SPARSE, dtype=np.float64)
    spec, _ = kernel_spec(kernel, gamma, degree, coef0, X, n_jobs=n_jobs)
    y = None if Y is None else samples(check_array(Y, accept_sparse=_SPARSE, dtype=np.float64))
    return _kern.gram(samples(X), y, spec, n_jobs_arg(n_jobs))


def bandwidth(X, method="mean-to-half", *, y=None, n_jobs=None):
    """A Gaussian bandwidth by a heuristic: 'mean-to-half' (mean pair similarity 1/2), 'max-variance'
    (largest variance of the similarities), 'ahn' (class separation; needs labels `y`), 'median'
    (`1 / median squared distance`) or 'scale' (scikit-learn's `gamma='scale'`).

    Returns a dict with `gamma` (= `beta`, for ``kernel="rbf", gamma=...``), `sigma` (`1/sqrt(beta)`,
    for ``"gaussian:sigma=..."``), the criterion value, and the pairs used.

    >>> import numpy as np, kern
    >>> b = kern.bandwidth(np.array([[0.0], [1.0], [3.0]]), "median")
    >>> bool(abs(b["gamma"] - 1 / 4.0) < 1e-12)
    True
    """
    X = check_array(X, accept_sparse=_SPARSE, dtype=np.float64)
    labels = None
    if y is not None:
        _, labels = np.unique(np.asarray(y), return_inverse=True)
        labels = labels.astype(np.int64).tolist()
    return _kern.bandwidth(samples(X), str(method), labels, n_jobs_arg(n_jobs))


def support_radius(
    X, base="gaussian:sigma=1", *, procedure="combined", value=1.0, nu=3.0, grid=None, n_jobs=None
):
    """The support radius `C` of the compactly supported version of a radial kernel (CS-RBF paper,
    §3.3), trading kernel alignment `A(C)` against Gram sparsity `S(C)`: `procedure` 'combined'
    maximises `A + value * S`, 'min-alignment' maximises `S` subject to `A >= value`, 'min-sparsity'
    maximises `A` subject to `S >= value`. Returns a dict with `c`, `alignment`, `sparsity`, `pairs`;
    use it as ``kernel=f"cs-gaussian:sigma=...,c={c}"``.
    """
    X = check_array(X, accept_sparse=_SPARSE, dtype=np.float64)
    g = None if grid is None else [float(c) for c in grid]
    return _kern.support_radius(
        samples(X), str(base), str(procedure), float(value), float(nu), g, n_jobs_arg(n_jobs)
    )


def set_memory_limit(limit):
    """Sets the memory kern may allocate in this process, or removes the limit.

    kern sizes every large allocation (kernel matrices, caches, factorizations) before it makes it,
    against this limit or, without one, the memory the system reports free (cgroup limit,
    ``MemAvailable``, ``ulimit -v``); a refusal raises `MemoryError` saying what needed how much.

    Parameters
    ----------
    limit : int, str or None
        Bytes, a size such as ``"4G"``, ``"512M"`` or ``"1.5GiB"`` (powers of 1024), or `None` to
        remove the limit.

    Returns
    -------
    int or None
        The limit set, in bytes.

    Raises
    ------
    ValueError
        For a negative number or a size that does not parse.

    Examples
    --------
    >>> import numpy as np, kern
    >>> kern.set_memory_limit("1M")
    1048576
    >>> X = np.random.default_rng(0).normal(size=(2000, 2))
    >>> try:
    ...     kern.gram(X)  # a 2000 x 2000 kernel matrix needs 32 MB
    ... except MemoryError:
    ...     print("refused")
    refused
    >>> kern.set_memory_limit(None)
    """
    if limit is not None and not isinstance(limit, str):
        if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, numbers.Integral) or limit < 0:
            raise ValueError(
                f"limit must be a non-negative byte count, a size such as '4G', or None; got {limit!r}"
            )
        limit = int(limit)
    return _kern.set_memory_limit(limit)
