"""Transformers: `KernelPCA`, `NystroemKernelPCA` and `FeatureVectorSelection`."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_array
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _kern
from ._base import NO_GAMMA, KernModelMixin, kernel_spec, n_jobs_arg, positive, seed
from ._docs import numpydoc
from ._pairwise import pairwise_spec, precomputed, user_gram, user_kernel

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


@numpydoc(
    """Kernel principal component analysis, as scikit-learn's `sklearn.decomposition.KernelPCA`.

    The data are centred in feature space; the components are the leading eigenvectors of the
    centred kernel matrix, by a full dense eigendecomposition or, for a few components of many
    samples, a block Krylov method. With a compactly supported kern kernel the kernel matrix stays
    sparse. Components follow scikit-learn: `n_components=None` keeps every component with a
    positive eigenvalue, a larger `n_components` than samples is cut to the number of samples,
    eigenvalues below ``1e-12`` of the largest count as zero, and each eigenvector's sign makes its
    largest entry positive. With ``kernel="precomputed"``, `fit` takes the ``(n_samples, n_samples)``
    kernel matrix and `transform` the ``(n_queries, n_samples)`` matrix ``K(X, X_fit)``, centred as
    scikit-learn's `KernelCenterer` centres them.""",
    [
        """n_components : int, default=None
    Number of components; None keeps every component with a nonzero eigenvalue.""",
        "pairwise_kernel",
        "pairwise_gamma",
        "degree",
        "pairwise_coef0",
        """kernel_params : dict, default=None
    Extra keyword arguments of a callable kernel.""",
        """alpha : float, default=1.0
    Ridge penalty of the pre-image regression learned with `fit_inverse_transform=True`.""",
        """fit_inverse_transform : bool, default=False
    Learn the pre-image map of `inverse_transform`: kernel ridge regression of the training
    samples on their projections, ``dual_coef_ = (K_transformed + alpha I)^-1 X``, as
    scikit-learn does (dense `X` only; not with 'precomputed', which has no input space).""",
        """eigen_solver : {'auto', 'dense', 'krylov', 'arpack', 'randomized'}, default='auto'
    'auto' takes the Krylov method for a few components of many samples, else the dense
    eigendecomposition; 'arpack' and 'randomized' mean 'krylov'.""",
        """tol : float, default=0
    Relative residual tolerance of the Krylov method; 0 means 1e-10.""",
        """remove_zero_eig : bool, default=False
    Drop components with a zero eigenvalue (always done when `n_components` is None).""",
        """random_state : int, RandomState instance or None, default=None
    Seed of the Krylov method's start block.""",
        """n_jobs : int, default=None
    Threads of the fit and of projections.""",
    ],
    [
        """eigenvalues_ : ndarray of shape (n_components,)
    Eigenvalues of the centred kernel matrix, descending.""",
        """eigenvectors_ : ndarray of shape (n_samples, n_components)
    Unit eigenvectors of the centred kernel matrix.""",
        """dual_coef_ : ndarray of shape (n_samples, n_features)
    Coefficients of the pre-image map (with `fit_inverse_transform=True`).""",
        """X_transformed_fit_ : ndarray of shape (n_samples, n_components)
    Projections of the training samples (with `fit_inverse_transform=True`).""",
        """X_fit_ : ndarray of shape (n_samples, n_features)
    Training data, needed for projections with a callable kernel (the training kernel matrix for
    'precomputed'); only with a user kernel.""",
        """n_features_in_ : int
    Number of features seen during fit.""",
        """kernel_spec_ : str
    The kern kernel spec trained with ('precomputed' or 'callable' for a user kernel).""",
        "gamma_",
    ],
    """>>> from sklearn.datasets import load_diabetes
    >>> from kern import KernelPCA
    >>> X = load_diabetes().data
    >>> pca = KernelPCA(n_components=2, kernel="rbf", fit_inverse_transform=True, alpha=0.1)
    >>> Z = pca.fit_transform(X)
    >>> Z.shape
    (442, 2)
    >>> pca.inverse_transform(Z).shape
    (442, 10)""",
)
class KernelPCA(_Transformer):
    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        alpha=1.0,
        fit_inverse_transform=False,
        eigen_solver="auto",
        tol=0,
        remove_zero_eig=False,
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Computes the leading eigenpairs of the centred kernel matrix.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix, of shape (n_samples, n_samples), for 'precomputed').
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCA
            The fitted estimator.
        """
        if self.fit_inverse_transform and precomputed(self.kernel):
            raise ValueError("Cannot fit_inverse_transform with a precomputed kernel.")
        user = user_kernel(self.kernel)
        X = validate_data(self, X, accept_sparse=False if user else _SPARSE, dtype=np.float64)
        n = X.shape[0]
        k = _count(self.n_components, "n_components", allow_none=True)
        k = n if k is None else min(k, n)
        if not isinstance(self.eigen_solver, str):
            raise ValueError(f"eigen_solver must be a string, got {self.eigen_solver!r}")
        solver = "dense" if k >= n else self.eigen_solver
        tol = float(self.tol)
        if not tol >= 0:
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")
        if self.fit_inverse_transform and sp.issparse(X):
            raise ValueError("fit_inverse_transform needs dense X (the pre-image map regresses on X)")
        if user:
            # The user's kernel matrix, as kern's precomputed kernel PCA reads it.
            spec, gamma = "callable" if callable(self.kernel) else "precomputed", NO_GAMMA
            fit_x = np.ascontiguousarray(user_gram(self.kernel, self.kernel_params, X), dtype=np.float64)
            self.X_fit_ = X
        else:
            spec, gamma = pairwise_spec(
                self.kernel, self.gamma, self.degree, self.coef0, X, seed(self.random_state), self.n_jobs
            )
            fit_x = samples_arg(X)
            self.__dict__.pop("X_fit_", None)
        self._model = _kern.fit_kpca(
            fit_x, "precomputed" if user else spec, k, solver, tol if tol > 0 else 1e-10,
            seed(self.random_state), n_jobs_arg(self.n_jobs),
        )
        mu, alphas, _ = self._model.kpca_parts()
        mu = np.asarray(mu)
        # Unit eigenvectors u = alpha sqrt(mu) (kern leaves alpha = 0 for a zero eigenvalue).
        vectors = alphas * np.sqrt(np.maximum(mu, 0.0))
        # scikit-learn's spectrum clean-up (`_check_psd_eigenvalues`): negatives and values below
        # 1e-12 of the largest are zero.
        mu = np.where(mu < _SMALL_EIGENVALUE * max(mu.max(initial=0.0), 0.0), 0.0, mu)
        keep = np.arange(len(mu))
        if self.remove_zero_eig or self.n_components is None:
            keep = np.flatnonzero(mu > 0)
        # scikit-learn's deterministic signs (`svd_flip`): the largest entry of each vector positive.
        signs = np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
        signs[signs == 0] = 1.0
        self._keep = keep
        self._scale = signs[keep] * (mu[keep] > 0)
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        self.eigenvalues_ = mu[keep]
        self.eigenvectors_ = vectors[:, keep] * signs[keep]
        self._n_features_out = len(keep)
        if self.fit_inverse_transform:
            Z = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
            K = self._gram(Z)
            self.dual_coef_ = _kern.krr_kernel_matrix(
                K, np.ascontiguousarray(X), positive(self.alpha, "alpha"), n_jobs_arg(self.n_jobs)
            )
            self.X_transformed_fit_ = Z
        return self

    def _gram(self, X, Y=None):
        """The kernel matrix ``K(X, Y)`` (`Y=None`: `X`) of the fitted kernel, a callable's as
        scikit-learn computes it (never called for 'precomputed': no pre-image map)."""
        if callable(self.kernel):
            return user_gram(self.kernel, self.kernel_params, X, Y)
        return _kern.gram(X, Y, self.kernel_spec_, n_jobs_arg(self.n_jobs))

    def transform(self, X):
        """Projections of the samples onto the components.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (for 'precomputed', the kernel matrix ``K(X, X_fit)`` of shape
            (n_samples, n_training_samples)).

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Projections.
        """
        check_is_fitted(self)
        if user_kernel(self.kernel):
            X = validate_data(self, X, dtype=np.float64, reset=False)
            K = np.ascontiguousarray(user_gram(self.kernel, self.kernel_params, X, self.X_fit_), dtype=np.float64)
            z = self._model.transform(K, n_jobs_arg(self.n_jobs))
        else:
            X = validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64, reset=False)
            z = self._model.transform(samples_arg(X), n_jobs_arg(self.n_jobs))
        return z[:, self._keep] * self._scale

    def fit_transform(self, X, y=None):
        """Fits and returns the projections of the training samples, ``eigenvectors_ *
        sqrt(eigenvalues_)`` (no second kernel matrix).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix for 'precomputed').
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Projections of the training samples.
        """
        self.fit(X)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    # Only with `fit_inverse_transform=True`: otherwise the method is absent (`hasattr` is False), so
    # generic code (scikit-learn's checks, pipelines) does not call a map that was never learned.
    @available_if(lambda self: self.fit_inverse_transform)
    def inverse_transform(self, X):
        """Approximate pre-images of projections, by the kernel ridge regression learned with
        `fit_inverse_transform=True`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Projections.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Points in the input space.
        """
        check_is_fitted(self)
        if not self.fit_inverse_transform:
            raise NotFittedError(
                "inverse_transform needs the pre-image map: fit with fit_inverse_transform=True"
            )
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.X_transformed_fit_.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} columns, but this model has {self.X_transformed_fit_.shape[1]} components"
            )
        return self._gram(X, self.X_transformed_fit_) @ self.dual_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = precomputed(self.kernel)
        tags.input_tags.sparse = not user_kernel(self.kernel)
        return tags


#: Eigenvalues below this fraction of the largest count as zero (scikit-learn's `small_pos_ratio`).
_SMALL_EIGENVALUE = 1e-12


def _positive_components(mu, everything, n):
    """Which components to keep: all with a positive eigenvalue, or with `everything` (no
    `n_components`) those above rounding, `max(mu) * n * eps`."""
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
    `component_indices_` (their rows in the training data), `n_features_in_`, `kernel_spec_`,
    `gamma_` (the kernel's gamma, NaN without one; 'mean-to-half', 'max-variance' and 'median'
    choose the 'rbf' width on the training samples, as in `SVC`).

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
        spec, gamma = kernel_spec(
            self.kernel, self.gamma, self.degree, self.coef0, X, gamma_default="auto",
            seed=seed(self.random_state), n_jobs=self.n_jobs,
        )
        self._model = _kern.fit_nystrom_kpca(
            samples_arg(X), spec, k, f"{self.landmarks}:{m}", seed(self.random_state), n_jobs_arg(self.n_jobs)
        )
        mu, idx, _ = self._model.nystrom_kpca_parts()
        mu = np.asarray(mu)
        self._keep = _positive_components(mu, everything, n)
        if self._keep is not None:
            mu = mu[self._keep]
        self.kernel_spec_ = spec
        self.gamma_ = gamma
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
    `component_indices_`, `fitness_` (fitness after each step), `n_features_in_`, `kernel_spec_`,
    `gamma_` (the kernel's gamma, NaN without one; 'mean-to-half', 'max-variance' and 'median'
    choose the 'rbf' width on the training samples, as in `SVC`).
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
        spec, gamma = kernel_spec(
            self.kernel, self.gamma, self.degree, self.coef0, X, seed=seed(self.random_state),
            n_jobs=self.n_jobs,
        )
        self._model = _kern.fit_fvs(
            samples_arg(X), spec, k, mf, self.basis, seed(self.random_state), n_jobs_arg(self.n_jobs)
        )
        sel, fit = self._model.fvs_parts()
        self._keep = None
        self.kernel_spec_ = spec
        self.gamma_ = gamma
        self.component_indices_ = np.asarray(sel, dtype=np.int64)
        self.components_ = X[self.component_indices_]
        self.fitness_ = np.asarray(fit)
        self._n_features_out = len(sel)
        return self


__all__ = ["KernelPCA", "NystroemKernelPCA", "FeatureVectorSelection"]
