"""scikit-learn's pairwise kernels ('laplacian', 'chi2', 'cosine'), multi-output and callable-kernel
`KernelRidge`, and `KernelPCA`'s component semantics, pre-image map, and precomputed and callable
kernels, each against scikit-learn."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes, load_digits, load_iris
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import chi2_kernel, cosine_similarity, laplacian_kernel, rbf_kernel

import kern
from kern import _kern
from kern._pairwise import pairwise_spec


def rel(a, b):
    """Largest difference relative to the largest entry of the reference."""
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(47)
    x = rng.uniform(0, 2, (60, 4))
    x[3] = 0.0  # a zero row: cosine's 0/0 and chi2's empty coordinates
    xt = rng.uniform(0, 2, (25, 4))
    y = np.column_stack([np.sin(x[:, 0]) + x[:, 1], x[:, 2] * x[:, 3], np.cos(x.sum(1))])
    return x, xt, y


@pytest.mark.parametrize(
    "name, gamma, ref",
    [
        ("laplacian", None, lambda a, b: laplacian_kernel(a, b)),
        ("laplacian", 0.7, lambda a, b: laplacian_kernel(a, b, gamma=0.7)),
        ("chi2", None, lambda a, b: chi2_kernel(a, b)),
        ("chi2", 0.3, lambda a, b: chi2_kernel(a, b, gamma=0.3)),
        ("cosine", None, cosine_similarity),
    ],
)
def test_kernels_agree_with_sklearn_pairwise(data, name, gamma, ref):
    x, xt, _ = data
    spec, _ = pairwise_spec(name, gamma, 3, 1, x)
    assert np.abs(_kern.gram(x, None, spec, None) - ref(x, x)).max() <= 1e-12
    assert np.abs(_kern.gram(xt, x, spec, None) - ref(xt, x)).max() <= 1e-12


def test_chi2_refuses_negative_features(data):
    x, xt, y = data
    neg = x.copy()
    neg[5, 2] = -0.5
    with pytest.raises(ValueError, match="nonnegative"):
        kern.KernelRidge(kernel="chi2").fit(neg, y)
    m = kern.KernelRidge(kernel="chi2").fit(x, y)
    with pytest.raises(ValueError, match="nonnegative"):
        m.predict(-xt)
    with pytest.raises(ValueError, match="nonnegative"):
        kern.KernelPCA(2, kernel="chi2").fit(neg)


KRR_PARAMS = [
    dict(kernel="linear"),
    dict(kernel="rbf", gamma=0.5),
    dict(kernel="rbf"),
    dict(kernel="poly", degree=2, gamma=0.3, coef0=1.0),
    dict(kernel="laplacian"),
    dict(kernel="laplacian", gamma=0.4),
    dict(kernel="chi2", gamma=0.5),
    dict(kernel="cosine"),
]


@pytest.mark.parametrize("params", KRR_PARAMS)
@pytest.mark.parametrize("outputs", [None, 1, 3])
def test_kernel_ridge_agrees_with_sklearn(data, params, outputs):
    """Coefficients and predictions to 1e-8 relative, with one target vector, one column, or three
    columns (solved together), unweighted and weighted; `dual_coef_` has scikit-learn's shape."""
    x, xt, y = data
    yy = y[:, 0] if outputs is None else y[:, :outputs]
    sw = np.random.default_rng(1).uniform(0.2, 2.0, len(x))
    for w in (None, sw):
        ours = kern.KernelRidge(alpha=0.3, **params).fit(x, yy, sample_weight=w)
        ref = SkKernelRidge(alpha=0.3, **params).fit(x, yy, sample_weight=w)
        assert ours.dual_coef_.shape == ref.dual_coef_.shape
        assert rel(ours.dual_coef_, ref.dual_coef_) <= 1e-8
        assert ours.predict(xt).shape == ref.predict(xt).shape
        assert rel(ours.predict(xt), ref.predict(xt)) <= 1e-8


def test_kernel_ridge_callable_and_precomputed(data):
    x, xt, y = data

    def kfun(a, b, scale=1.0):
        return np.exp(-scale * np.abs(a - b).max())

    ours = kern.KernelRidge(alpha=0.5, kernel=kfun, kernel_params={"scale": 0.8}).fit(x, y)
    ref = SkKernelRidge(alpha=0.5, kernel=kfun, kernel_params={"scale": 0.8}).fit(x, y)
    assert rel(ours.dual_coef_, ref.dual_coef_) <= 1e-8
    assert rel(ours.predict(xt), ref.predict(xt)) <= 1e-8
    k, kt = laplacian_kernel(x, x), laplacian_kernel(xt, x)
    ours = kern.KernelRidge(alpha=0.5, kernel="precomputed").fit(k, y[:, 0])
    ref = SkKernelRidge(alpha=0.5, kernel="precomputed").fit(k, y[:, 0])
    assert rel(ours.dual_coef_, ref.dual_coef_) <= 1e-8
    assert rel(ours.predict(kt), ref.predict(kt)) <= 1e-8
    with pytest.raises(TypeError, match="dense data is required"):
        kern.KernelRidge(alpha=0.5, kernel="precomputed").fit(sp.csr_matrix(k), y[:, 0])
    # The native laplacian gives the same model as its precomputed matrix.
    native = kern.KernelRidge(alpha=0.5, kernel="laplacian").fit(x, y[:, 0])
    assert rel(native.predict(xt), ours.predict(kt)) <= 1e-8


def test_multi_output_kernel_ridge_pickles(data):
    import pickle

    x, xt, y = data
    m = kern.KernelRidge(alpha=0.3, kernel="rbf").fit(x, y)
    again = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(again.predict(xt), m.predict(xt))


def align(ours, ref):
    """`ours` with each column's sign chosen to match `ref`'s."""
    s = np.sign(np.sum(ours * ref, axis=0))
    s[s == 0] = 1
    return ours * s


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes().data


@pytest.mark.parametrize(
    "params",
    [dict(kernel="linear"), dict(kernel="rbf", gamma=2.0), dict(kernel="poly", degree=2, gamma=5.0, coef0=1.0)],
)
@pytest.mark.parametrize("n_components", [None, 2, 8, 500])
def test_kernel_pca_agrees_with_sklearn(diabetes, params, n_components):
    """Same number of components (None: the nonzero eigenvalues; more than samples: cut to the
    samples), eigenvalues, eigenvectors and projections up to each component's sign."""
    x = diabetes[:150]
    xt = diabetes[150:200]
    assert_same_kpca(kern.KernelPCA(n_components, **params), SkKernelPCA(n_components, **params), x, xt)


def assert_same_kpca(ours, ref, x, xt, x_test=None):
    """Fits both on `x` and checks the same number of components, eigenvalues to 1e-8 and the
    projections of `xt` (by `ours`; of `x_test` by `ref`, default `xt`) and of the training samples to
    1e-6, relative, up to each component's sign."""
    ours.fit(x)
    ref.fit(x)
    assert ours.eigenvalues_.shape == ref.eigenvalues_.shape
    big = ref.eigenvalues_ > 1e-8 * ref.eigenvalues_[0]  # eigenvectors of (near-)zero eigenvalues are arbitrary
    assert rel(ours.eigenvalues_[big], ref.eigenvalues_[big]) <= 1e-8
    # Projections of distinct eigenvalues only (a repeated eigenvalue's basis is arbitrary).
    gaps = np.diff(ref.eigenvalues_[big]) / ref.eigenvalues_[0]
    distinct = np.flatnonzero(big)[: np.argmax(np.append(-gaps < 1e-6, True)) + 1]
    zt, zr = ours.transform(xt), ref.transform(xt if x_test is None else x_test)
    assert zt.shape == zr.shape
    assert rel(align(zt[:, distinct], zr[:, distinct]), zr[:, distinct]) <= 1e-6
    z, zf = ours.fit_transform(x), ref.fit_transform(x)
    assert z.shape == zf.shape
    assert rel(align(z[:, distinct], zf[:, distinct]), zf[:, distinct]) <= 1e-6


def test_kernel_pca_component_counts(diabetes):
    x = diabetes[:40]
    for n_components in (None, 39, 40, 41, 1000):
        for kw in (dict(kernel="linear"), dict(kernel="rbf"), dict(kernel="linear", remove_zero_eig=True)):
            ours = kern.KernelPCA(n_components, **kw).fit_transform(x)
            ref = SkKernelPCA(n_components, **kw).fit_transform(x)
            assert ours.shape == ref.shape, (n_components, kw)


@pytest.mark.parametrize("params", [dict(kernel="rbf", gamma=2.0), dict(kernel="linear"), dict(kernel="poly", gamma=5.0)])
def test_kernel_pca_inverse_transform_agrees_with_sklearn(diabetes, params):
    x = diabetes[:120]
    ours = kern.KernelPCA(4, fit_inverse_transform=True, alpha=0.05, **params).fit(x)
    ref = SkKernelPCA(4, fit_inverse_transform=True, alpha=0.05, **params).fit(x)
    # The kernel on the projections is invariant under a component's sign: same pre-image map.
    assert rel(ours.dual_coef_, ref.dual_coef_) <= 1e-6
    back, back_ref = ours.inverse_transform(ours.transform(x)), ref.inverse_transform(ref.transform(x))
    assert back.shape == x.shape
    assert rel(back, back_ref) <= 1e-6
    # Without fit_inverse_transform the method is absent, as a map never learned should be.
    plain = kern.KernelPCA(2).fit(x)
    assert not hasattr(plain, "inverse_transform")
    with pytest.raises(AttributeError, match="inverse_transform"):
        plain.inverse_transform(np.zeros((1, 2)))


@pytest.mark.parametrize(
    "name, kfun",
    [("laplacian", laplacian_kernel), ("chi2", chi2_kernel), ("cosine", cosine_similarity)],
)
def test_kernel_pca_pairwise_kernels(name, kfun):
    """scikit-learn's KernelPCA takes 'cosine' by name; 'laplacian' and 'chi2' (kern accepts them too)
    are compared with its precomputed kernel matrix."""
    x = np.random.default_rng(3).uniform(0, 1, (80, 5))
    xt = np.random.default_rng(4).uniform(0, 1, (20, 5))
    ours = kern.KernelPCA(3, kernel=name).fit(x)
    ref = SkKernelPCA(3, kernel="precomputed").fit(kfun(x, x))
    assert rel(ours.eigenvalues_, ref.eigenvalues_) <= 1e-8
    zr = ref.transform(kfun(xt, x))
    assert rel(align(ours.transform(xt), zr), zr) <= 1e-6
    if name == "cosine":
        named = SkKernelPCA(3, kernel="cosine").fit(x)
        assert rel(ours.eigenvalues_, named.eigenvalues_) <= 1e-8


# --- KernelPCA with kernel="precomputed" and callable kernels -----------------------------------------


@pytest.fixture(scope="module")
def digits():
    x = load_digits().data
    return x[:200], x[200:260]


def rbf_pair(a, b, gamma=1.0):
    """The Gaussian kernel of one pair of samples, as a callable kernel (scikit-learn calls it per pair)."""
    return np.exp(-gamma * np.sum((a - b) ** 2))


@pytest.mark.parametrize(
    "eigen_solver, n_components", [("dense", None), ("dense", 3), ("dense", 10), ("arpack", 3), ("arpack", 10)]
)
def test_kernel_pca_precomputed_agrees_with_sklearn(digits, eigen_solver, n_components):
    """The kernel matrix of digits: kern's precomputed kernel PCA against scikit-learn's (the same
    KernelCenterer centring of `K(X_test, X)`), with each eigensolver against scikit-learn's dense one
    (the Krylov solver for a few components)."""
    x, xt = digits
    k, kt = rbf_kernel(x, x, gamma=1e-3), rbf_kernel(xt, x, gamma=1e-3)
    ours = kern.KernelPCA(n_components, kernel="precomputed", eigen_solver=eigen_solver, random_state=0)
    assert_same_kpca(ours, SkKernelPCA(n_components, kernel="precomputed"), k, kt)
    assert ours.kernel_spec_ == "precomputed" and np.isnan(ours.gamma_)
    np.testing.assert_array_equal(ours.X_fit_, k)


@pytest.mark.parametrize("n_components", [4, 20])
def test_kernel_pca_precomputed_equals_kernel_by_name(digits, n_components):
    """kern's own Gram matrix given as 'precomputed' is the model of the kernel by name: the same
    eigenproblem, so the same eigenvalues, and the same signs of the components (leading components
    only: the eigenvectors of near-zero eigenvalues are not determined to rounding)."""
    x, xt = digits
    named = kern.KernelPCA(n_components, kernel="rbf", gamma=1e-3).fit(x)
    k, kt = kern.gram(x, kernel="rbf", gamma=1e-3), kern.gram(xt, x, kernel="rbf", gamma=1e-3)
    pre = kern.KernelPCA(n_components, kernel="precomputed").fit(k)
    assert pre.eigenvalues_.shape == named.eigenvalues_.shape
    assert rel(pre.eigenvalues_, named.eigenvalues_) <= 1e-12
    assert rel(pre.transform(kt), named.transform(xt)) <= 1e-10
    assert rel(pre.fit_transform(k), named.fit_transform(x)) <= 1e-10


def test_kernel_pca_callable_agrees_with_sklearn_and_name():
    """A callable kernel is evaluated per pair of samples with `kernel_params`, as scikit-learn's
    `pairwise_kernels` does: kern's model is scikit-learn's, and the one of the kernel by name."""
    iris = load_iris().data
    x, xt = iris[::2], iris[1::2]
    ours = kern.KernelPCA(3, kernel=rbf_pair, kernel_params={"gamma": 0.4})
    assert_same_kpca(ours, SkKernelPCA(3, kernel=rbf_pair, kernel_params={"gamma": 0.4}), x, xt)
    assert ours.kernel_spec_ == "callable"
    named = kern.KernelPCA(3, kernel="rbf", gamma=0.4).fit(x)
    assert rel(ours.eigenvalues_, named.eigenvalues_) <= 1e-10
    assert rel(ours.transform(xt), named.transform(xt)) <= 1e-8


def test_kernel_pca_callable_inverse_transform_agrees_with_sklearn(diabetes):
    """The pre-image map of a callable kernel: the callable on the projections, as scikit-learn."""
    x = diabetes[:80]
    kw = dict(kernel=rbf_pair, kernel_params={"gamma": 2.0}, fit_inverse_transform=True, alpha=0.05)
    ours, ref = kern.KernelPCA(4, **kw).fit(x), SkKernelPCA(4, **kw).fit(x)
    assert rel(ours.dual_coef_, ref.dual_coef_) <= 1e-6
    back, back_ref = ours.inverse_transform(ours.transform(x)), ref.inverse_transform(ref.transform(x))
    assert rel(back, back_ref) <= 1e-6


def test_kernel_pca_precomputed_pickles(digits):
    import pickle

    x, xt = digits
    k, kt = rbf_kernel(x, x, gamma=1e-3), rbf_kernel(xt, x, gamma=1e-3)
    m = kern.KernelPCA(3, kernel="precomputed").fit(k)
    again = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(again.transform(kt), m.transform(kt))


def test_kernel_pca_user_kernel_errors(digits):
    x, xt = digits
    k, kt = rbf_kernel(x[:30], x[:30]), rbf_kernel(xt, x[:30])
    # As scikit-learn, with its message: a kernel matrix has no input space to map back to.
    for ours in (kern.KernelPCA(2, kernel="precomputed", fit_inverse_transform=True),
                 SkKernelPCA(2, kernel="precomputed", fit_inverse_transform=True)):
        with pytest.raises(ValueError, match="^Cannot fit_inverse_transform with a precomputed kernel.$"):
            ours.fit(k)
    with pytest.raises(ValueError, match="square"):
        kern.KernelPCA(2, kernel="precomputed").fit(kt)
    asym = k.copy()
    asym[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        kern.KernelPCA(2, kernel="precomputed").fit(asym)
    m = kern.KernelPCA(2, kernel="precomputed").fit(k)
    with pytest.raises(ValueError, match="features"):
        m.transform(kt[:, :29])  # one training sample's column missing
    with pytest.raises(TypeError):
        kern.KernelPCA(2, kernel="precomputed").fit(sp.csr_matrix(k))
    assert not m.__sklearn_tags__().input_tags.sparse and m.__sklearn_tags__().input_tags.pairwise
