"""Transformers: `KernelPCA`, `NystroemKernelPCA` and `FeatureVectorSelection`."""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _kern
from ._base import KernModelMixin, kernel_spec, n_jobs_arg, seed

_SPARSE = ["csr", "csc"]


def _count(v, name, allow_none=False):
    if v is None and allow_none:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
        raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return int(v)


class _Transformer(KernModelMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    def transform(self, X):
        """Projections of the samples."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64, reset=False)
        z = self._model.transform(samples_arg(X), n_jobs_arg(self.n_jobs))
        return z[:, self._keep] if self._keep is not None else z


def samples_arg(X):
    from ._base import samples

    return samples(X)


class KernelPCA(_Transformer):
    """Kernel principal component analysis (centred in feature space), as scikit-learn's
    `sklearn.decomposition.KernelPCA` (no inverse transform): dense eigendecomposition or a block Krylov
    method; with a compactly supported kern kernel the Gram matrix stays sparse.

    `n_components=None` keeps every component with a positive eigenvalue. `eigen_solver` is 'auto',
    'dense' or 'krylov' ('arpack' and 'randomized' mean 'krylov'). Fitted attributes: `eigenvalues_`
    (of the centred Gram matrix), `eigenvectors_` (unit norm), `n_features_in_`, `kernel_spec_`.
    """

    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        eigen_solver="auto",
        tol=0,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Computes the leading eigenpairs of the centred Gram matrix."""
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64)
        n = X.shape[0]
        k = _count(self.n_components, "n_components", allow_none=True)
        everything = k is None
        k = n if everything else min(k, n)
        if not isinstance(self.eigen_solver, str):
            raise ValueError(f"eigen_solver must be a string, got {self.eigen_solver!r}")
        solver = "dense" if k >= n else self.eigen_solver
        tol = float(self.tol)
        if not tol >= 0:
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")
        spec = kernel_spec(self.kernel, self.gamma, self.degree, self.coef0, X, gamma_default="auto")
        self._model = _kern.fit_kpca(
            samples_arg(X), spec, k, solver, tol if tol > 0 else 1e-10, seed(self.random_state),
            n_jobs_arg(self.n_jobs),
        )
        mu, alphas, _ = self._model.kpca_parts()
        mu = np.asarray(mu)
        self._keep = _positive_components(mu, everything, n)
        if self._keep is not None:
            mu, alphas = mu[self._keep], alphas[:, self._keep]
        self.kernel_spec_ = spec
        self.eigenvalues_ = mu
        self.eigenvectors_ = alphas * np.sqrt(mu)
        self._n_features_out = len(mu)
        return self

    def fit_transform(self, X, y=None):
        """Fits and returns the training scores."""
        return self.fit(X).transform(X)


def _positive_components(mu, everything, n):
    """Which components to keep: all with a positive eigenvalue, or with `everything` (no
    `n_components`) those above rounding, `max(mu) * n * eps` (as `KernelPCA`)."""
    keep = mu > (mu.max(initial=0.0) * n * np.finfo(float).eps if everything else 0.0)
    return None if not everything and keep.all() else np.flatnonzero(keep)


class NystroemKernelPCA(_Transformer):
    """Nyström kernel PCA: kernel PCA of the Nyström approximation of the kernel on `n_landmarks`
    centres chosen among the training samples, with projection of new points. Fitting costs
    `O(n m (m + d))` time and `O(m^2)` memory (no `n x n` matrix), transforming `O(m)` kernel
    evaluations per point; with `m = n` centres it is `KernelPCA` (the Nyström approximation is then
    the kernel itself, up to a jitter of `m * eps * max k(c, c)` on the centres' diagonal).

    A separate estimator rather than a `KernelPCA(eigen_solver="nystrom")` option: scikit-learn's
    `eigen_solver` chooses how the same model is computed, whereas this is a different model (the
    PCA of an approximate kernel, which depends on the centres), with its own parameters and fitted
    attributes. It is what scikit-learn users write as ``make_pipeline(Nystroem(...), PCA(...))``, in
    one estimator that centres in feature space and keeps only the `m` centres.

    `landmarks` is ``"fvs"`` (feature vector selection on a random pool of training samples, which may
    keep fewer than `n_landmarks` centres when the data spans fewer dimensions in feature space) or
    ``"random"`` (uniformly drawn samples); both are seeded by `random_state`. `n_landmarks` is capped
    at the number of samples, `n_components` at the number of centres; `n_components=None` keeps every
    component with a positive eigenvalue. Kernels as in `KernelPCA`. Fitted attributes: `eigenvalues_`
    (of the centred Nyström Gram matrix, descending), `components_` (the centres),
    `component_indices_` (their rows in the training data), `n_features_in_`, `kernel_spec_`.

    The model is a kern `nystrom-kpca` model: pickled, its bytes are a kern model file, which the
    command line's ``kern predict`` applies to new points.
    """

    def __init__(
        self,
        n_components=None,
        *,
        n_landmarks=100,
        landmarks="fvs",
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Chooses the centres and computes the leading eigenpairs of the centred Nyström Gram matrix."""
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64)
        n = X.shape[0]
        m = min(_count(self.n_landmarks, "n_landmarks"), n)
        k = _count(self.n_components, "n_components", allow_none=True)
        everything = k is None
        k = m if everything else min(k, m)
        if self.landmarks not in ("fvs", "random"):
            raise ValueError(f"landmarks must be 'fvs' or 'random', got {self.landmarks!r}")
        spec = kernel_spec(self.kernel, self.gamma, self.degree, self.coef0, X, gamma_default="auto")
        self._model = _kern.fit_nystrom_kpca(
            samples_arg(X), spec, k, f"{self.landmarks}:{m}", seed(self.random_state), n_jobs_arg(self.n_jobs)
        )
        mu, idx, _ = self._model.nystrom_kpca_parts()
        mu = np.asarray(mu)
        self._keep = _positive_components(mu, everything, n)
        if self._keep is not None:
            mu = mu[self._keep]
        self.kernel_spec_ = spec
        self.eigenvalues_ = mu
        self.component_indices_ = np.asarray(idx, dtype=np.int64)
        self.components_ = X[self.component_indices_]
        self._n_features_out = len(mu)
        return self

    def fit_transform(self, X, y=None):
        """Fits and returns the projections of the training samples."""
        return self.fit(X).transform(X)


class FeatureVectorSelection(_Transformer):
    """Feature vector selection (Baudat & Anouar 2003) as a kernel feature map, a drop-in for
    scikit-learn's `Nystroem`: greedily selects the samples that best span the data in feature space
    (or, with ``basis="random"``, random landmarks) and maps a sample `x` to `L^-1 k_S(x)` with
    `K_SS = L L'`, so that inner products of the features approximate the kernel.

    `n_components` is the most vectors selected (fewer when the selected ones already span the data or
    `min_fitness` is reached). Fitted attributes: `components_` (the selected samples),
    `component_indices_`, `fitness_` (fitness after each step), `n_features_in_`, `kernel_spec_`.
    """

    def __init__(
        self,
        n_components=100,
        *,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        basis="fvs",
        min_fitness=None,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.basis = basis
        self.min_fitness = min_fitness
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Selects the feature vectors."""
        X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64)
        k = min(_count(self.n_components, "n_components"), X.shape[0])
        if not isinstance(self.basis, str):
            raise ValueError(f"basis must be 'fvs' or 'random', got {self.basis!r}")
        mf = None if self.min_fitness is None else float(self.min_fitness)
        spec = kernel_spec(self.kernel, self.gamma, self.degree, self.coef0, X)
        self._model = _kern.fit_fvs(
            samples_arg(X), spec, k, mf, self.basis, seed(self.random_state), n_jobs_arg(self.n_jobs)
        )
        sel, fit = self._model.fvs_parts()
        self._keep = None
        self.kernel_spec_ = spec
        self.component_indices_ = np.asarray(sel, dtype=np.int64)
        self.components_ = X[self.component_indices_]
        self.fitness_ = np.asarray(fit)
        self._n_features_out = len(sel)
        return self


__all__ = ["KernelPCA", "NystroemKernelPCA", "FeatureVectorSelection"]
