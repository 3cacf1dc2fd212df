"""`sample_weight` against scikit-learn's fitted models, with weights that include zeros.

Tolerances were derived before running (no value was tuned to a result):

* Both solvers stop when the maximal KKT violation `m(a) - M(a)` is below `eps` (`tol`). For the dual
  `min 1/2 a'Qa + p'a`, `y'a = 0`, `0 <= a_i <= C_i` every sample then adds at most `2 C_i eps` to the
  duality gap, so each dual objective is within `G = 2 eps sum C_i` of the optimum (`C_i` = C times the
  sample weight, summed over the binary problem's variables).
* scikit-learn's LIBSVM keeps kernel values as 32-bit floats: it solves a problem whose objective is
  off by at most `delta = u/2 (sum a_i)^2 <= u/2 (sum C_i)^2`, `u = 2^-24`, for kernel values in
  [-1, 1] (the RBF kernel). Its solution is within `G + 2 delta` of the true optimum.
* Since `D(a) - D(a*) >= 1/2 ||w(a) - w*||^2` (convexity), the two expansions
  `w = sum_i coef_i phi(x_i)` differ in RKHS norm by at most `B = sqrt(2G) + sqrt(2(G + 2 delta))`:
  checked on the dual coefficients as `(c1 - c2)' K (c1 - c2) <= B^2`, and on decision values without
  the intercept as `|f1(x) - f2(x)| <= B sqrt(k(x, x)) = B`.
"""

import numpy as np
import pytest
from sklearn import svm as sk_svm
from sklearn.datasets import load_digits
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import kern

EPS = 1e-8
U32 = 2.0**-24


def _bound(sum_c, variables_per_sample=1):
    g = 2 * EPS * sum_c * variables_per_sample
    delta = U32 / 2 * (sum_c * variables_per_sample) ** 2
    return np.sqrt(2 * g) + np.sqrt(2 * (g + 2 * delta))


def _weights(n, seed):
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.2, 2.5, n)
    w[rng.random(n) < 0.15] = 0.0
    return w


def _expansion_gap(x, gamma, sv1, c1, sv2, c2):
    """`(c1 - c2)' K (c1 - c2)` over the union of the two support sets (training-row indices)."""
    rows = np.union1d(sv1, sv2)
    d = np.zeros(len(rows))
    d[np.searchsorted(rows, sv1)] += c1
    d[np.searchsorted(rows, sv2)] -= c2
    k = rbf_kernel(x[rows], gamma=gamma)
    return float(d @ k @ d)


def test_weighted_svc_matches_sklearn(gr):
    x, y, xt, _ = gr
    x, y = x[:400], y[:400]
    w = _weights(len(x), 1)
    gamma, c = 1 / 0.36, 0.1
    params = dict(C=c, kernel="rbf", gamma=gamma, tol=EPS)
    ours = kern.SVC(**params).fit(x, y, sample_weight=w)
    ref = sk_svm.SVC(**params).fit(x, y, sample_weight=w)
    np.testing.assert_array_equal(ours.predict(xt), ref.predict(xt))
    # scikit-learn numbers support vectors among the samples of positive weight; kern among all.
    keep = np.flatnonzero(w > 0)
    np.testing.assert_array_equal(ours.support_, keep[ref.support_])
    assert np.all(w[ours.support_] > 0)
    bound = _bound(c * w.sum())
    gap = _expansion_gap(x, gamma, ours.support_, ours.dual_coef_[0], keep[ref.support_], ref.dual_coef_[0])
    assert gap <= bound**2, (gap, bound**2)
    f1 = ours.decision_function(xt) - ours.intercept_[0]
    f2 = ref.decision_function(xt) - ref.intercept_[0]
    assert np.max(np.abs(f1 - f2)) <= bound


def test_weighted_svc_digits_predictions_identical():
    x, y = load_digits(n_class=4, return_X_y=True)
    x = StandardScaler().fit_transform(x)
    x, xt, y, _ = train_test_split(x, y, test_size=0.5, random_state=0)
    w = _weights(len(x), 2)
    params = dict(C=10.0, kernel="rbf", gamma="scale", tol=1e-6, class_weight={1: 2.0})
    ours = kern.SVC(**params).fit(x, y, sample_weight=w)
    ref = sk_svm.SVC(**params).fit(x, y, sample_weight=w)
    np.testing.assert_array_equal(ours.predict(xt), ref.predict(xt))
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)


def test_weighted_svr_matches_sklearn(regression):
    x, y, xt, yt = regression
    w = _weights(len(x), 3)
    gamma, c = 0.5, 0.3
    params = dict(C=c, epsilon=0.05, kernel="rbf", gamma=gamma, tol=EPS)
    ours = kern.SVR(**params).fit(x, y, sample_weight=w)
    ref = sk_svm.SVR(**params).fit(x, y, sample_weight=w)
    keep = np.flatnonzero(w > 0)
    bound = _bound(c * w.sum(), variables_per_sample=2)
    gap = _expansion_gap(x, gamma, ours.support_, ours.dual_coef_[0], keep[ref.support_], ref.dual_coef_[0])
    assert gap <= bound**2, (gap, bound**2)
    f1, f2 = ours.predict(xt) - ours.intercept_[0], ref.predict(xt) - ref.intercept_[0]
    assert np.max(np.abs(f1 - f2)) <= bound
    rmse = lambda m: np.sqrt(np.mean((m.predict(xt) - yt) ** 2))  # noqa: E731
    assert abs(rmse(ours) - rmse(ref)) <= 1e-4


def test_weighted_nu_models_match_sklearn(gr, regression):
    # Criteria of the unweighted comparisons (predictions identical; RMSE within 1e-4), tol=1e-6.
    x, y, xt, _ = gr
    x, y = x[:500], y[:500]
    w = _weights(len(x), 4)
    params = dict(nu=0.3, kernel="rbf", gamma=1 / 0.36, tol=1e-6)
    ours = kern.NuSVC(**params).fit(x, y, sample_weight=w)
    ref = sk_svm.NuSVC(**params).fit(x, y, sample_weight=w)
    np.testing.assert_array_equal(ours.predict(xt), ref.predict(xt))
    params = dict(nu=0.1, kernel="rbf", gamma=1 / 0.36, tol=1e-6)
    ours = kern.OneClassSVM(**params).fit(x, sample_weight=w)
    ref = sk_svm.OneClassSVM(**params).fit(x, sample_weight=w)
    np.testing.assert_array_equal(ours.predict(xt), ref.predict(xt))
    x, y, xt, yt = regression
    w = _weights(len(x), 5)
    params = dict(nu=0.4, C=3.0, kernel="rbf", gamma=0.5, tol=1e-6)
    ours = kern.NuSVR(**params).fit(x, y, sample_weight=w)
    ref = sk_svm.NuSVR(**params).fit(x, y, sample_weight=w)
    rmse = lambda m: np.sqrt(np.mean((m.predict(xt) - yt) ** 2))  # noqa: E731
    assert abs(rmse(ours) - rmse(ref)) <= 1e-4


@pytest.mark.parametrize("sample_weight", ["array", 2.5])
def test_weighted_kernel_ridge_to_1e8(regression, sample_weight):
    x, y, xt, _ = regression
    sw = _weights(len(x), 6) if sample_weight == "array" else sample_weight
    for params in (dict(alpha=0.1, kernel="rbf", gamma=0.5), dict(alpha=1.0)):
        ours = kern.KernelRidge(**params).fit(x, y, sample_weight=sw)
        ref = SkKernelRidge(**params).fit(x, y, sample_weight=sw)
        np.testing.assert_allclose(ours.predict(xt), ref.predict(xt), rtol=0, atol=1e-8)
        np.testing.assert_allclose(
            ours.dual_coef_, ref.dual_coef_, rtol=0, atol=1e-8 * np.abs(ref.dual_coef_).max()
        )


def test_unit_weights_are_unweighted_bit_for_bit(gr, regression):
    x, y, xt, _ = gr
    ones = np.ones(len(x))
    for est in (kern.SVC(), kern.NuSVC(nu=0.3)):
        a, b = est.fit(x, y).decision_function(xt), est.fit(x, y, sample_weight=ones).decision_function(xt)
        np.testing.assert_array_equal(a, b)
    a = kern.OneClassSVM(nu=0.2).fit(x).decision_function(xt)
    np.testing.assert_array_equal(a, kern.OneClassSVM(nu=0.2).fit(x, sample_weight=ones).decision_function(xt))
    x, y, xt, _ = regression
    ones = np.ones(len(x))
    for est in (kern.SVR(), kern.NuSVR(), kern.KernelRidge(kernel="rbf")):
        np.testing.assert_array_equal(est.fit(x, y).predict(xt), est.fit(x, y, sample_weight=ones).predict(xt))


def test_bad_weights_are_value_errors(regression):
    x, y, _, _ = regression
    for w in (-np.ones(len(x)), np.zeros(len(x)), np.ones(len(x) - 1), np.full(len(x), np.nan)):
        for est in (kern.SVR(), kern.KernelRidge()):
            with pytest.raises(ValueError):
                est.fit(x, y, sample_weight=w)
