"""Inputs, labels, threads, errors, pickling, pipelines and the helper functions."""

import pickle
import threading
import time

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk_svm
from sklearn.base import is_classifier
from sklearn.datasets import load_digits, make_blobs
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kern

ALL = [
    lambda: kern.SVC(C=3.0, probability=True, random_state=1),
    lambda: kern.SVR(C=3.0),
    lambda: kern.RailwaySVC(random_state=0),
    lambda: kern.KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5),
    lambda: kern.LSSVC(gam=10.0),
    lambda: kern.LSSVR(),
    lambda: kern.KernelPCA(3, kernel="rbf", gamma=0.5),
    lambda: kern.FeatureVectorSelection(20, kernel="rbf", gamma=0.5),
]


def _data(est, gr, regression):
    if is_classifier(est):
        x, y, xt, _ = gr
        return x[:300], y[:300], xt[:100]
    x, y, xt, _ = regression
    return x, y, xt


def _outputs(est, xt):
    out = [est.transform(xt)] if hasattr(est, "transform") else [est.predict(xt)]
    if hasattr(est, "decision_function"):
        out.append(est.decision_function(xt))
    if getattr(est, "probability", False):
        out.append(est.predict_proba(xt))
    return out


@pytest.mark.parametrize("make", ALL)
def test_pickle_and_joblib_round_trip(make, gr, regression, tmp_path):
    est = make()
    x, y, xt = _data(est, gr, regression)
    est.fit(x, y)
    before = _outputs(est, xt)
    again = pickle.loads(pickle.dumps(est))
    path = tmp_path / "m.joblib"
    joblib.dump(est, path)
    loaded = joblib.load(path)
    for other in (again, loaded):
        for a, b in zip(before, _outputs(other, xt)):
            np.testing.assert_array_equal(a, b)
    # The pickled state holds kern's model bytes, not a Python object graph of the model.
    state = est.__getstate__()
    assert isinstance(state["_model"], bytes)


def test_corrupt_pickled_model_is_a_value_error(gr):
    x, y, _, _ = gr
    state = kern.SVC().fit(x[:100], y[:100]).__getstate__()
    state["_model"] = state["_model"][:-7]
    with pytest.raises(ValueError):
        kern.SVC().__setstate__(state)


@pytest.mark.parametrize("make", ALL)
def test_same_bytes_at_any_thread_count(make, gr, regression):
    est = make()
    x, y, xt = _data(est, gr, regression)
    one = _outputs(est.set_params(n_jobs=1).fit(x, y), xt)
    two = _outputs(make().set_params(n_jobs=2).fit(x, y), xt)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_input_matches_dense(fmt):
    x, y = load_digits(n_class=4, return_X_y=True)
    x = x / 16.0  # digits are mostly zeros: a genuinely sparse input
    xs = sp.csr_matrix(x) if fmt == "csr" else sp.csc_matrix(x)
    for make in (lambda: kern.SVC(C=2.0), lambda: kern.KernelRidge(alpha=0.5, kernel="rbf", gamma=0.05)):
        dense = make().fit(x, y)
        sparse = make().fit(xs, y)
        if isinstance(dense, kern.SVC):
            np.testing.assert_array_equal(dense.predict(x), sparse.predict(xs))
            np.testing.assert_array_equal(dense.support_, sparse.support_)
            assert sp.issparse(sparse.support_vectors_)
        np.testing.assert_allclose(
            np.atleast_2d(dense.decision_function(x) if hasattr(dense, "decision_function") else dense.predict(x)),
            np.atleast_2d(sparse.decision_function(xs) if hasattr(sparse, "decision_function") else sparse.predict(xs)),
            rtol=0,
            atol=1e-9,
        )


def test_float32_readonly_fortran_memmap_inputs_agree(gr, tmp_path):
    x, y, xt, _ = gr
    x, y = x[:300], y[:300]
    ref = kern.SVC().fit(x, y).decision_function(xt)
    ro = x.copy()
    ro.setflags(write=False)
    path = tmp_path / "x.npy"
    np.save(path, x)
    mm = np.load(path, mmap_mode="r")
    for variant in (ro, np.asfortranarray(x), mm, x[:, ::1]):
        np.testing.assert_array_equal(kern.SVC().fit(variant, y).decision_function(xt), ref)
    # float32 is converted once to float64: same as fitting the converted array.
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(
        kern.SVC().fit(x32, y).decision_function(xt), kern.SVC().fit(x32.astype(np.float64), y).decision_function(xt)
    )
    # A strided (non-contiguous) view.
    wide = np.repeat(x, 2, axis=1)
    np.testing.assert_array_equal(kern.SVC().fit(wide[:, ::2], y).decision_function(xt), ref)


@pytest.mark.parametrize("labels", [np.array(["b", "a", "c"]), np.array([7, -3, 12]), np.array([1.0, 0.0, -2.0])])
def test_labels_of_any_type(labels):
    x, idx = make_blobs(150, centers=3, random_state=3)
    y = labels[idx]
    for est in (kern.SVC(), kern.LSSVC(gam=10.0)):
        est.fit(x, y)
        np.testing.assert_array_equal(est.classes_, np.unique(labels))
        assert est.predict(x).dtype == y.dtype
        assert est.score(x, y) > 0.9


def test_kern_spec_kernels_and_compact_support(gr):
    x, y, xt, _ = gr
    spec = "cs-gaussian:sigma=0.6,c=2.2,nu=3"
    m = kern.SVC(kernel=spec, C=1.0).fit(x, y)
    assert m.kernel_spec_ == spec
    assert m.score(xt, gr[3]) > 0.7
    # The same kernel through kern.gram and a precomputed-kernel SVC from scikit-learn agree.
    g = kern.gram(x, kernel=spec)
    ref = sk_svm.SVC(kernel="precomputed", C=1.0, tol=1e-6).fit(g, y)
    ours = kern.SVC(kernel=spec, C=1.0, tol=1e-6).fit(x, y)
    np.testing.assert_array_equal(ours.predict(xt), ref.predict(kern.gram(xt, x, kernel=spec)))
    r = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    assert np.all(g[r >= 2.2] == 0.0)
    assert kern.KernelRidge(alpha=0.1, kernel=spec).fit(x, (y == "red").astype(float)).score(x, (y == "red")) > 0.3


def test_gram_matches_numpy_and_is_symmetric_psd(gr):
    x = gr[0][:200]
    g = kern.gram(x, kernel="rbf", gamma=0.7)
    np.testing.assert_allclose(g, rbf_kernel(x, gamma=0.7), rtol=0, atol=1e-14)
    np.testing.assert_array_equal(g, g.T)
    assert np.linalg.eigvalsh(g).min() > -1e-10
    lin = kern.gram(x, x[:5], kernel="linear")
    np.testing.assert_allclose(lin, x @ x[:5].T, rtol=1e-14, atol=1e-14)


def test_bandwidth_heuristics(gr):
    x, y = gr[0][:300], gr[1][:300]
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)[np.triu_indices(300, 1)]
    med = kern.bandwidth(x, "median")
    np.testing.assert_allclose(med["gamma"], 1 / np.median(d2), rtol=1e-12)
    mth = kern.bandwidth(x, "mean-to-half")
    np.testing.assert_allclose(np.mean(np.exp(-mth["gamma"] * d2)), 0.5, atol=1e-10)
    mv = kern.bandwidth(x, "max-variance")
    var = lambda b: np.var(np.exp(-b * d2))  # noqa: E731
    assert var(mv["gamma"]) >= max(var(mv["gamma"] * 0.9), var(mv["gamma"] * 1.1))
    ahn = kern.bandwidth(x, "ahn", y=y)
    assert ahn["gamma"] > 0
    np.testing.assert_allclose(mth["sigma"], 1 / np.sqrt(mth["gamma"]), rtol=1e-15)
    with pytest.raises(ValueError):
        kern.bandwidth(x, "ahn")
    with pytest.raises(ValueError):
        kern.bandwidth(x, "silverman")


def test_support_radius(gr):
    x = gr[0][:300]
    grid = [0.5, 1.0, 2.0, 4.0]
    c = kern.support_radius(x, "gaussian:sigma=0.6", procedure="min-sparsity", value=0.5, grid=grid)
    assert c["c"] in grid and c["sparsity"] >= 0.5
    # The sparsity is the fraction of pairs at distance >= C.
    r = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))[np.triu_indices(300, 1)]
    np.testing.assert_allclose(c["sparsity"], np.mean(r >= c["c"]), atol=1e-12)


def test_fvs_features_reproduce_the_kernel(gr):
    x = gr[0][:200]
    full = kern.FeatureVectorSelection(200, kernel="rbf", gamma=0.5).fit(x)
    z = full.transform(x)
    # With the whole span selected, feature inner products are the kernel.
    np.testing.assert_allclose(z @ z.T, rbf_kernel(x, gamma=0.5), atol=1e-6)
    small = kern.FeatureVectorSelection(15, kernel="rbf", gamma=0.5).fit(x)
    rnd = kern.FeatureVectorSelection(15, kernel="rbf", gamma=0.5, basis="random", random_state=3).fit(x)
    assert small.transform(x).shape == (200, 15)
    assert np.all(np.diff(small.fitness_) >= -1e-12)
    err = lambda m: np.linalg.norm(m.transform(x) @ m.transform(x).T - rbf_kernel(x, gamma=0.5))  # noqa: E731
    assert err(small) <= err(rnd)  # greedy selection spans the data better than random landmarks
    np.testing.assert_array_equal(small.components_, x[small.component_indices_])


def test_railway_binary_blobs():
    x, y = make_blobs(300, centers=2, random_state=0)
    m = kern.RailwaySVC(random_state=0).fit(x, y)
    assert m.n_areas_ >= 1 and m.score(x, y) > 0.95


def test_errors_are_value_errors(gr):
    x, y = gr[0][:100], gr[1][:100]
    with pytest.raises(ValueError, match="unknown|kernel|expected"):
        kern.SVC(kernel="gausian:sigma=1").fit(x, y)
    with pytest.raises(ValueError):
        kern.SVC(kernel="cs-gaussian:sigma=1,c=-2").fit(x, y)
    with pytest.raises(ValueError):
        kern.SVC(C=-1).fit(x, y)
    with pytest.raises(ValueError):
        kern.SVC(n_jobs=0).fit(x, y)
    with pytest.raises(ValueError):
        kern.KernelPCA(2, eigen_solver="magic").fit(x)
    with pytest.raises(ValueError, match="square"):  # samples given where a kernel matrix is expected
        kern.SVC(kernel="precomputed").fit(x, y)
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError):
        kern.SVC().fit(bad, y)
    with pytest.raises(ValueError):
        kern.SVC().fit(x, y).predict(x[:, :1])
    with pytest.raises(ValueError):
        kern.SVC().fit(x, np.zeros(100))


def test_pipeline_grid_search_picks_the_same_cell_as_sklearn():
    x, y = load_digits(n_class=5, return_X_y=True)
    grid = {"svc__C": [0.1, 1.0, 10.0], "svc__gamma": [1e-3, 1e-2, 1e-1]}
    ours = GridSearchCV(make_pipeline(StandardScaler(), kern.SVC(tol=1e-6)), grid, cv=3, n_jobs=2).fit(x, y)
    ref = GridSearchCV(make_pipeline(StandardScaler(), sk_svm.SVC(tol=1e-6)), grid, cv=3, n_jobs=2).fit(x, y)
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], atol=0.01)


def test_gil_is_released_during_fit():
    # Random labels in 5-D: nearly every point becomes a support vector, so the fit takes about a second
    # even on a quiet machine (the green-red set took under 0.2 s), long enough that a held GIL would
    # show as one long stall of the loop below.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10_000, 5))
    y = rng.integers(0, 2, 10_000)
    done = threading.Event()
    spans = {}

    def work():
        t0 = time.perf_counter()
        kern.SVC(C=10.0, tol=1e-5, n_jobs=1).fit(x, y)
        spans["fit"] = time.perf_counter() - t0
        done.set()

    t = threading.Thread(target=work)
    t.start()
    ticks = [time.perf_counter()]
    while not done.is_set():
        sum(range(1000))
        ticks.append(time.perf_counter())
    t.join()
    gap = np.max(np.diff(ticks))
    assert spans["fit"] > 0.2, "fit too short to tell"
    # Holding the GIL would stall this loop for the whole fit.
    assert gap < spans["fit"] / 2


def test_fit_plan_reports_each_machine_s_path():
    """`fit_plan_` has one plan per machine; a multi-class fit's machines share the threads, a binary
    fit's only machine does not, and a compact kernel's columns are its sparse `K_C`."""
    x, y = load_digits(n_class=4, return_X_y=True)
    m = kern.SVC(gamma=0.001).fit(x, y)
    assert len(m.fit_plan_) == len(m.n_iter_) == 6
    assert {p["threading"] for p in m.fit_plan_} == {"machines"}
    assert all(p["columns"] in ("on-demand", "precomputed", "class-blocks") for p in m.fit_plan_)
    b = kern.SVC(gamma=0.001).fit(x, y % 2)
    assert len(b.fit_plan_) == 1 and b.fit_plan_[0]["threading"] in ("serial", "split")
    cs = kern.SVR(kernel="cs-gaussian:sigma=4,c=0.5,nu=3").fit(x[:200, :2] / 16, y[:200].astype(float))
    assert cs.fit_plan_[0]["columns"] == "sparse-kc"
    assert set(cs.fit_plan_[0]) == {
        "order", "start", "columns", "cache_mb", "sparse_columns", "selection", "threading", "shrinking"
    }


def test_lssvm_gam_is_the_inverse_of_alpha_and_a_constant_model_warns():
    """`alpha` is the ridge penalty of `K + alpha I` (as `KernelRidge`'s), `gam` LS-SVMlab's error weight
    of `K + I/gam`: `gam=g` is `alpha=1/g`. A huge alpha regularizes the model into a constant, which
    warns; a normal one does not."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    a = kern.LSSVR(gam=4.0).fit(X, y)
    b = kern.LSSVR(alpha=0.25).fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12, atol=1e-12)
    assert a.alpha_ == 0.25 and a.gam_ == 4.0
    with pytest.raises(ValueError):
        kern.LSSVR(alpha=1.0, gam=1.0).fit(X, y)
    with pytest.warns(UserWarning, match="constant"):
        kern.LSSVR(alpha=1e12).fit(X, y)
    with pytest.warns(UserWarning, match="constant"):
        kern.KernelRidge(alpha=1e12).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kern.LSSVR(alpha=0.1).fit(X, y)
        kern.LSSVC(alpha=0.1).fit(X, y > 0)
