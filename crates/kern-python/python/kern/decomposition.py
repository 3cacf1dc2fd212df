"""Transformers: `KernelPCA` and `FeatureVectorSelection`."""

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
        keep = mu > (mu.max(initial=0.0) * n * np.finfo(float).eps if everything else 0.0)
        if everything or not keep.all():
            self._keep = np.flatnonzero(keep)
        else:
            self._keep = None
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


__all__ = ["KernelPCA", "FeatureVectorSelection"]
