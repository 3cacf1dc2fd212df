"""`kernel="precomputed"` in SVC, NuSVC, SVR, NuSVR and OneClassSVM, against scikit-learn's precomputed
SVMs and against kern's own built-in kernels.

Tolerances were fixed before running, from the stopping rule (the derivation is the one of
`test_sample_weight.py`, repeated here):

* Both solvers stop when the maximal KKT violation `m(a) - M(a)` is below `eps` (`tol`). For the dual
  `min 1/2 a'Qa + p'a`, `y'a = 0`, `0 <= a_i <= C_i`, every variable then adds at most `2 C_i eps` to
  the duality gap: each dual objective is within `G = 2 eps sum C_i` of the optimum.
* scikit-learn's LIBSVM keeps kernel values as 32-bit floats (`Qfloat`), for a precomputed matrix too
  (the column is read from the user's doubles and cached as floats): it solves a problem whose
  objective is off by at most `delta = u/2 (sum a_i)^2 <= u/2 (sum C_i)^2`, `u = 2^-24`, for kernel
  values in [-1, 1] (here: Gaussian Gram matrices). Its solution is within `G + 2 delta` of the
  optimum.
* `D(a) - D(a*) >= 1/2 ||w(a) - w*||^2` (strong convexity in `w`), so the two expansions differ in RKHS
  norm by at most `B = sqrt(2G) + sqrt(2(G + 2 delta))`: checked on the dual coefficients as
  `(c1 - c2)' K (c1 - c2) <= B^2` and on decision values without the intercept as
  `|f1(x) - f2(x)| <= B sqrt(k(x, x)) = B`.

The agreement criteria (identical SVC predictions; SVR RMSE within 1e-4) are asserted as well, and the
ν-SVC and ν-SVR are held to the criteria of their unweighted comparisons (identical predictions, RMSE
1e-4). For the one-class SVM the bias-free decision values are held to `B` (with `C_i = 1`), and
predictions must agree wherever `|f(x)| > B + |rho_kern - rho_sklearn|` (the second term measured).

**Sample weights with zeros.** scikit-learn 1.9.1's precomputed SVMs mis-predict when a sample weight is
0: LIBSVM drops those samples and `support_` then numbers the support vectors among the remaining ones,
but prediction reads those numbers as columns of `K(X_test, X_train)` (the known `support_` indexing
bug of weight-0 samples, scikit-learn issues #5150 / #25380; on the data below its precomputed SVC then
agrees with its own RBF SVC on 2 % of the test points). The weighted references are therefore
scikit-learn's precomputed fits on the matrix without the weight-0 rows and columns (weight 0 = the
sample left out, which is also what kern and the LIBSVM fork do), predicting from the matching columns.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk_svm
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV

import kern

EPS = 1e-8
U32 = 2.0**-24
GAMMA = 1 / 0.36


def _bound(sum_c, variables_per_sample=1):
    g = 2 * EPS * sum_c * variables_per_sample
    delta = U32 / 2 * (sum_c * variables_per_sample) ** 2
    return np.sqrt(2 * g) + np.sqrt(2 * (g + 2 * delta))


def _gap(k, sv1, c1, sv2, c2):
    """`(c1 - c2)' K (c1 - c2)` with the coefficients placed on their training rows."""
    d = np.zeros(k.shape[0])
    np.add.at(d, sv1, c1)
    np.add.at(d, sv2, -c2)
    return float(d @ k @ d)


def _weights(n, seed):
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.2, 2.5, n)
    w[rng.random(n) < 0.15] = 0.0
    return w


def _reference(est, k, kt, y, w):
    """scikit-learn's fit with weights `w` on the kernel matrix `k` (weight-0 rows and columns left out,
    see the module docstring) and its test matrix; returns the fitted model, the test matrix it reads and
    the training rows it kept."""
    keep = np.arange(k.shape[0]) if w is None else np.flatnonzero(w > 0)
    sub = k[np.ix_(keep, keep)]
    sw = None if w is None else w[keep]
    m = est.fit(sub, sw_y(y, keep), sample_weight=sw) if y is not None else est.fit(sub, sample_weight=sw)
    return m, kt[:, keep], keep


def sw_y(y, keep):
    return y[keep]


@pytest.fixture(scope="module")
def grams(gr):
    x, y, xt, yt = gr
    x, y = x[:400], y[:400]
    return x, y, xt, rbf_kernel(x, gamma=GAMMA), rbf_kernel(xt, x, gamma=GAMMA)


@pytest.mark.parametrize("weighted", [False, True])
def test_precomputed_svc_matches_sklearn(grams, weighted):
    x, y, _, k, kt = grams
    w = _weights(len(x), 11) if weighted else None
    c = 0.1
    ours = kern.SVC(kernel="precomputed", C=c, tol=EPS).fit(k, y, sample_weight=w)
    ref, ref_kt, keep = _reference(sk_svm.SVC(kernel="precomputed", C=c, tol=EPS), k, kt, y, w)
    np.testing.assert_array_equal(ours.predict(kt), ref.predict(ref_kt))
    assert ours.support_vectors_.shape == ref.support_vectors_.shape == (0, 0)
    assert ours.n_features_in_ == len(x)
    assert np.all(np.isin(ours.support_, keep))  # no support vector of weight 0
    bound = _bound(c * (len(x) if w is None else w.sum()))
    gap = _gap(k, ours.support_, ours.dual_coef_[0], keep[ref.support_], ref.dual_coef_[0])
    assert gap <= bound**2, (gap, bound**2)
    f1 = ours.decision_function(kt) - ours.intercept_[0]
    f2 = ref.decision_function(ref_kt) - ref.intercept_[0]
    assert np.max(np.abs(f1 - f2)) <= bound


@pytest.mark.parametrize("weighted", [False, True])
def test_precomputed_svr_matches_sklearn(regression, weighted):
    x, y, xt, yt = regression
    gamma, c = 0.5, 0.3
    k, kt = rbf_kernel(x, gamma=gamma), rbf_kernel(xt, x, gamma=gamma)
    w = _weights(len(x), 12) if weighted else None
    params = dict(kernel="precomputed", C=c, epsilon=0.05, tol=EPS)
    ours = kern.SVR(**params).fit(k, y, sample_weight=w)
    ref, ref_kt, keep = _reference(sk_svm.SVR(**params), k, kt, y, w)
    bound = _bound(c * (len(x) if w is None else w.sum()), variables_per_sample=2)
    gap = _gap(k, ours.support_, ours.dual_coef_[0], keep[ref.support_], ref.dual_coef_[0])
    assert gap <= bound**2, (gap, bound**2)
    f1, f2 = ours.predict(kt) - ours.intercept_[0], ref.predict(ref_kt) - ref.intercept_[0]
    assert np.max(np.abs(f1 - f2)) <= bound
    rmse = lambda m, t: np.sqrt(np.mean((m.predict(t) - yt) ** 2))  # noqa: E731
    assert abs(rmse(ours, kt) - rmse(ref, ref_kt)) <= 1e-4


@pytest.mark.parametrize("weighted", [False, True])
def test_precomputed_nu_models_match_sklearn(grams, regression, weighted):
    x, y, _, k, kt = grams
    w = _weights(len(x), 13) if weighted else None
    params = dict(kernel="precomputed", nu=0.3, tol=1e-6)
    ours = kern.NuSVC(**params).fit(k, y, sample_weight=w)
    ref, ref_kt, _ = _reference(sk_svm.NuSVC(**params), k, kt, y, w)
    np.testing.assert_array_equal(ours.predict(kt), ref.predict(ref_kt))

    eps = 1e-6
    ours = kern.OneClassSVM(kernel="precomputed", nu=0.1, tol=eps).fit(k, sample_weight=w)
    ref, ref_kt, keep = _reference(sk_svm.OneClassSVM(kernel="precomputed", nu=0.1, tol=eps), k, kt, None, w)
    np.testing.assert_array_equal(ours.score_samples(kt) - ours.offset_, ours.decision_function(kt))
    # The bound of the module docstring with `C_i = w_i` (1 unweighted) and tol = 1e-6.
    s = float(len(x) if w is None else w.sum())
    g = 2 * eps * s
    bound = np.sqrt(2 * g) + np.sqrt(2 * (g + U32 * s**2))
    f1, f2 = ours.score_samples(kt), ref.score_samples(ref_kt)
    assert np.max(np.abs(f1 - f2)) <= bound
    sure = np.abs(ref.decision_function(ref_kt)) > bound + abs(ours.offset_ - ref.offset_[0])
    # (Disclosure: a first version also asserted `sure.mean() > 0.9`; it failed, 14-19 % of the test
    # points are beyond the bound here, because LIBSVM's 32-bit cache term `u (sum C)^2` dominates `B`.
    # The prediction check is therefore weak for one-class; the decision-value bound above is not.)
    np.testing.assert_array_equal(ours.predict(kt)[sure], ref.predict(ref_kt)[sure])

    x, y, xt, yt = regression
    k, kt = rbf_kernel(x, gamma=0.5), rbf_kernel(xt, x, gamma=0.5)
    w = _weights(len(x), 14) if weighted else None
    params = dict(kernel="precomputed", nu=0.4, C=3.0, tol=1e-6)
    ours = kern.NuSVR(**params).fit(k, y, sample_weight=w)
    ref, ref_kt, _ = _reference(sk_svm.NuSVR(**params), k, kt, y, w)
    rmse = lambda m, t: np.sqrt(np.mean((m.predict(t) - yt) ** 2))  # noqa: E731
    assert abs(rmse(ours, kt) - rmse(ref, ref_kt)) <= 1e-4


def test_sklearn_precomputed_weight_zero_bug_is_what_the_references_avoid(grams):
    """The premise of the weighted references: scikit-learn's precomputed SVC with a weight-0 sample
    disagrees with its own fit on the matrix without that sample, while kern's agrees."""
    x, y, _, k, kt = grams
    w = _weights(len(x), 11)
    assert (w == 0).any()
    sk_direct = sk_svm.SVC(kernel="precomputed", C=0.1, tol=EPS).fit(k, y, sample_weight=w).predict(kt)
    ref, ref_kt, _ = _reference(sk_svm.SVC(kernel="precomputed", C=0.1, tol=EPS), k, kt, y, w)
    ours = kern.SVC(kernel="precomputed", C=0.1, tol=EPS).fit(k, y, sample_weight=w).predict(kt)
    np.testing.assert_array_equal(ours, ref.predict(ref_kt))
    assert (sk_direct != ref.predict(ref_kt)).any()


def test_precomputed_gram_of_a_kern_kernel_is_that_kernel(gr):
    """The Gram matrix of a kern kernel (`kern.gram`) given as `kernel="precomputed"` trains the machine
    the kernel itself trains, with and without sample weights (both fits at tol=1e-8).

    Bound, fixed before running: the SVC's own Gram `K1` and `kern.gram`'s `K2` may be computed by
    different code and differ per entry by `eta <= 2 (beta (2d + 4) u R + 8u)` (`u = 2^-53`,
    `R = max ||x_i||^2 + ||x_j||^2`: the rounding of `r^2` as in kern-models' precomputed tests, and
    kern's vectorized `exp`, documented within `4 eps = 8u` relative of `f64::exp`). For any feasible `a`, `|D1(a) - D2(a)| <= eta/2 S^2` with `S = sum C_i`, so the
    second fit is within `G + eta S^2` of the first problem's optimum and the expansions differ by at
    most `B = sqrt(2G) + sqrt(2(G + eta S^2))` in the first kernel's norm; decision values without the
    intercept (test rows also off by `eta`) by `B + eta S`, and `(c1 - c2)' K2 (c1 - c2)` by
    `B^2 + eta (2S)^2`. The agreement criterion (identical predictions) is asserted too."""
    x, y, xt, _ = gr
    x, y = x[:300], y[:300]
    sigma = 0.6
    spec = f"gaussian:sigma={sigma}"
    k, kt = kern.gram(x, kernel=spec), kern.gram(xt, x, kernel=spec)
    beta = 1 / sigma**2  # kern's gaussian: exp(-r^2 / sigma^2)
    sq = max((x**2).sum(1).max(), (xt**2).sum(1).max())
    eta = 2 * (beta * (2 * x.shape[1] + 4) * 2.0**-53 * 2 * sq + 8 * 2.0**-53)
    for weighted in (False, True):
        w = _weights(len(x), 15) if weighted else None
        a = kern.SVC(kernel=spec, C=1.0, tol=EPS).fit(x, y, sample_weight=w)
        b = kern.SVC(kernel="precomputed", C=1.0, tol=EPS).fit(k, y, sample_weight=w)
        np.testing.assert_array_equal(a.predict(xt), b.predict(kt))
        s = float(len(x) if w is None else w.sum())
        g = 2 * EPS * s
        bound = np.sqrt(2 * g) + np.sqrt(2 * (g + eta * s**2))
        f1 = a.decision_function(xt) - a.intercept_[0]
        f2 = b.decision_function(kt) - b.intercept_[0]
        assert np.max(np.abs(f1 - f2)) <= bound + eta * s
        gap = _gap(k, a.support_, a.dual_coef_[0], b.support_, b.dual_coef_[0])
        assert gap <= bound**2 + eta * (2 * s) ** 2, (gap, bound**2)


def test_precomputed_tags_pickle_and_grid_search(grams):
    x, y, xt, k, kt = grams
    est = kern.SVC(kernel="precomputed")
    assert est.__sklearn_tags__().input_tags.pairwise
    assert not est.__sklearn_tags__().input_tags.sparse
    assert not kern.SVC().__sklearn_tags__().input_tags.pairwise
    m = est.fit(k, y)
    back = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(back.decision_function(kt), m.decision_function(kt))
    # GridSearchCV slices a pairwise estimator's X as K[train][:, train] and K[test][:, train]; the cell
    # chosen is scikit-learn's (the selection criterion of the samples-input grid-search test).
    grid = {"C": [0.1, 1.0, 10.0]}
    ours = GridSearchCV(kern.SVC(kernel="precomputed", tol=1e-6), grid, cv=3).fit(k, y)
    ref = GridSearchCV(sk_svm.SVC(kernel="precomputed", tol=1e-6), grid, cv=3).fit(k, y)
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], rtol=0, atol=0.01
    )


def test_precomputed_input_errors(grams):
    x, y, xt, k, kt = grams
    with pytest.raises(TypeError, match="Sparse precomputed"):
        kern.SVC(kernel="precomputed").fit(sp.csr_matrix(k), y)
    with pytest.raises(ValueError, match="square"):
        kern.SVR(kernel="precomputed").fit(k[:, :-1], np.arange(len(x), dtype=float))
    with pytest.raises(ValueError, match="square"):
        kern.OneClassSVM(kernel="precomputed").fit(k[:, :-1])
    asym = k.copy()
    asym[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        kern.SVC(kernel="precomputed").fit(asym, y)
    m = kern.SVC(kernel="precomputed").fit(k, y)
    with pytest.raises(ValueError):
        m.predict(kt[:, :-1])
    with pytest.raises(TypeError, match="Sparse precomputed"):
        m.predict(sp.csr_matrix(kt))
    # Kernel PCA takes a precomputed matrix under the SVMs' checks.
    with pytest.raises(ValueError, match="symmetric"):
        kern.KernelPCA(2, kernel="precomputed").fit(asym)
    with pytest.raises(ValueError, match="square"):
        kern.KernelPCA(2, kernel="precomputed").fit(k[:, :-1])


def test_precomputed_weights_leaving_one_class(grams):
    """Weights that leave one class are a ValueError naming the class (the property of scikit-learn's
    check_classifiers_one_label_sample_weights, on a symmetric kernel matrix)."""
    x, y, _, k, _ = grams
    w = (y == "green").astype(float)
    for est in (kern.SVC(kernel="precomputed"), kern.NuSVC(kernel="precomputed", nu=0.1)):
        with pytest.raises(ValueError, match=r"\bclass(es)?\b"):
            est.fit(k, y, sample_weight=w)


def test_precomputed_multiclass_and_probability():
    """Four digits, one-vs-one on an RBF Gram matrix: predictions identical to scikit-learn's precomputed
    SVC (the agreement criterion for digits), decision values in scikit-learn's shapes, and Platt
    probabilities (fitted by kern's internal cross-validation on the matrix) that are distributions."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    x, y = load_digits(n_class=4, return_X_y=True)
    x = StandardScaler().fit_transform(x)
    x, xt, y, _ = train_test_split(x, y, test_size=0.5, random_state=0)
    gamma = 1.0 / (x.shape[1] * x.var())
    k, kt = rbf_kernel(x, gamma=gamma), rbf_kernel(xt, x, gamma=gamma)
    ours = kern.SVC(kernel="precomputed", C=10.0, tol=1e-6).fit(k, y)
    ref = sk_svm.SVC(kernel="precomputed", C=10.0, tol=1e-6).fit(k, y)
    np.testing.assert_array_equal(ours.predict(kt), ref.predict(kt))
    assert ours.decision_function(kt).shape == ref.decision_function(kt).shape == (len(xt), 4)
    ovo = kern.SVC(kernel="precomputed", C=10.0, decision_function_shape="ovo").fit(k, y)
    assert ovo.decision_function(kt).shape == (len(xt), 6)
    p = kern.SVC(kernel="precomputed", C=10.0, probability=True, random_state=0).fit(k, y).predict_proba(kt)
    assert p.shape == (len(xt), 4)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    assert np.all((p >= 0) & (p <= 1))
