"""scikit-learn conventions: thread counts under joblib and threadpoolctl, MemoryError, ConvergenceWarning,
`__version__`, LIBSVM's fitted attributes, memory layout of X, parameter names in errors, docstrings."""

import doctest
import os
import pathlib
import re
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk_svm
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import check_classifiers_train
from threadpoolctl import threadpool_limits

import kern
import kern._base
import kern._helpers
import kern.svm
from kern._base import cpu_count, n_jobs_arg


def _blobs(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    return X, y


# --- n_jobs ---------------------------------------------------------------------------------------


def test_n_jobs_none_honours_threadpoolctl_limits():
    with threadpool_limits(limits=1):
        assert n_jobs_arg(None) == 1
    assert n_jobs_arg(None) <= cpu_count()


def test_n_jobs_none_honours_the_variables_joblib_sets_in_its_workers(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert n_jobs_arg(None) == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "1,1")  # OpenMP's nested form: the first level counts
    assert n_jobs_arg(None) == 1


def test_negative_n_jobs_as_scikit_learn():
    cpus = cpu_count()
    assert n_jobs_arg(-1) == cpus
    assert n_jobs_arg(-2) == max(cpus - 1, 1)
    assert n_jobs_arg(-(cpus + 10)) == 1
    with pytest.raises(ValueError, match="n_jobs == 0"):
        n_jobs_arg(0)
    with pytest.raises(ValueError, match="n_jobs must be None or an integer"):
        n_jobs_arg(1.5)


def _worker_threads(est, X, y):
    """Scorer run in the grid search's worker: kern's worker threads in this process (the sum of the
    pool sizes it started)."""
    return float(sum(kern._kern.pools_used()))


def _native_threads(est, X, y):
    """Scorer: the threads of this process that Python did not start (kern's pool workers among
    them), counted in /proc/self/task."""
    return float(len(os.listdir("/proc/self/task")) - threading.active_count())


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_grid_search_with_n_jobs_2_runs_no_more_threads_than_cpus():
    X, y = _blobs(400)
    scoring = {"accuracy": "accuracy", "kern": _worker_threads, "native": _native_threads}
    gs = GridSearchCV(
        kern.SVC(), {"C": [0.5, 1.0, 2.0, 4.0]}, cv=2, n_jobs=2, scoring=scoring, refit="accuracy"
    ).fit(X, y)
    per_worker = max(cpu_count() // 2, 1)  # joblib gives each of its 2 workers cpu_count // 2
    kern_threads = np.concatenate([gs.cv_results_[f"split{i}_test_kern"] for i in range(2)])
    native = np.concatenate([gs.cv_results_[f"split{i}_test_native"] for i in range(2)])
    assert kern_threads.min() >= 1 and kern_threads.max() <= per_worker
    if per_worker == 1:
        # With one thread per worker the BLAS libraries start no threads of their own, so every
        # thread Python did not start is kern's: the count cannot hide one kern started.
        assert native.max() <= per_worker


# --- memory -------------------------------------------------------------------------------------------


def test_memory_refusal_raises_memory_error_with_python_advice():
    X, y = _blobs()
    kern.set_memory_limit("1K")
    try:
        with pytest.raises(MemoryError, match=r"needs .* but 1\.0 kB is available") as e:
            kern.SVC().fit(X, y)
        msg = str(e.value)
        assert "kern.set_memory_limit" in msg and "--" not in msg
        with pytest.raises(MemoryError):
            kern.gram(X)
    finally:
        assert kern.set_memory_limit(None) is None
    kern.SVC().fit(X, y)  # the limit is gone


def test_set_memory_limit_reads_sizes_and_refuses_nonsense():
    try:
        assert kern.set_memory_limit("4G") == 4 << 30
        assert kern.set_memory_limit(1000) == 1000
        for bad in (-1, "lots", 1.5, True):
            with pytest.raises(ValueError, match="limit must be"):
                kern.set_memory_limit(bad)
    finally:
        kern.set_memory_limit(None)


# --- convergence and version ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make", [kern.SVC, kern.NuSVC, kern.SVR, kern.NuSVR, kern.OneClassSVM], ids=lambda c: c.__name__
)
def test_iteration_cap_gives_fit_status_1_and_a_convergence_warning(make):
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning, match=r"max_iter=2"):
        m = make(max_iter=2).fit(X, y)
    assert m.fit_status_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert make().fit(X, y).fit_status_ == 0


def test_version_is_the_crate_version():
    """`kern.__version__` is the version of the Rust crates the package was built from (maturin gives
    the Python distribution the same version)."""
    manifest = pathlib.Path(__file__).resolve().parents[3] / "Cargo.toml"
    if not manifest.is_file():
        pytest.skip("not in the source tree")
    text = manifest.read_text(encoding="utf-8")
    package = text[text.index("[workspace.package]") :]
    expected = re.search(r'^version = "([^"]+)"', package, re.MULTILINE).group(1)
    assert kern.__version__ == expected


# --- fitted attributes as scikit-learn's ------------------------------------------------------------


def _sk(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # scikit-learn 1.9 deprecates probability
        return est


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (kern.SVC(), sk_svm.SVC()),
        (kern.SVC(class_weight="balanced"), sk_svm.SVC(class_weight="balanced")),
        (kern.SVC(class_weight={0: 2.0, 2: 0.5}), sk_svm.SVC(class_weight={0: 2.0, 2: 0.5})),
        (kern.NuSVC(nu=0.3), sk_svm.NuSVC(nu=0.3)),
    ],
    ids=["svc", "balanced", "dict", "nusvc"],
)
def test_classifier_attributes_match_scikit_learn(ours, theirs):
    X, y = load_iris(return_X_y=True)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert ours.shape_fit_ == theirs.shape_fit_ == X.shape
    assert ours.fit_status_ == theirs.fit_status_ == 0
    np.testing.assert_array_equal(ours.class_weight_, theirs.class_weight_)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    assert ours.n_support_.dtype == theirs.n_support_.dtype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert ours.probA_.shape == theirs.probA_.shape == (0,)
        assert ours.probB_.shape == theirs.probB_.shape == (0,)


def test_platt_attributes_have_scikit_learns_shapes_and_signs():
    X, y = load_iris(return_X_y=True)
    ours = kern.SVC(probability=True, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        theirs = sk_svm.SVC(probability=True, random_state=0).fit(X, y)
        a, b = theirs.probA_, theirs.probB_
    assert ours.probA_.shape == ours.probB_.shape == a.shape == b.shape == (3,)
    # LIBSVM's convention P = 1 / (1 + exp(A f + B)) with f favouring the pair's first class: A < 0.
    np.testing.assert_array_equal(np.sign(ours.probA_), np.sign(a))
    assert (ours.probA_ < 0).all()


@pytest.mark.parametrize(
    "ours, theirs",
    # At the optimum (tol=1e-5): at the default tolerance a coefficient of the stopping rule's size
    # (1e-3) can be a support vector in one solver's approximate solution and zero in the other's.
    [
        (kern.SVR(tol=1e-5), sk_svm.SVR(tol=1e-5)),
        (kern.NuSVR(tol=1e-5), sk_svm.NuSVR(tol=1e-5)),
        (kern.OneClassSVM(tol=1e-5), sk_svm.OneClassSVM(tol=1e-5)),
    ],
    ids=["svr", "nusvr", "one-class"],
)
def test_single_machine_attributes_match_scikit_learn(ours, theirs):
    X, y = load_iris(return_X_y=True)
    ours.fit(X, y.astype(float))
    theirs.fit(X, y.astype(float))
    assert ours.shape_fit_ == theirs.shape_fit_
    assert ours.fit_status_ == theirs.fit_status_ == 0
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    assert ours.n_support_.dtype == theirs.n_support_.dtype
    assert isinstance(ours.n_iter_, int)
    for attr in ("class_weight_", "probA_", "probB_"):  # scikit-learn's regressors have none either
        assert hasattr(ours, attr) == hasattr(theirs, attr)


# --- memory layout of X -----------------------------------------------------------------------------


def _scores(m, X):
    return m.decision_function(X) if hasattr(m, "decision_function") else m.predict(X)


@pytest.mark.parametrize("make", [kern.SVC, kern.SVR, kern.OneClassSVM], ids=lambda c: c.__name__)
def test_c_fortran_and_strided_x_train_identical_models(make):
    X, y = _blobs(200)
    X = X * np.array([1.0, 3.0, 0.1]) + 0.3  # unequal scales: gamma='scale' sums many different values
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    ref = make().fit(X, y)
    for name, Xl in {"F": np.asfortranarray(X), "strided": wide[:, ::2]}.items():
        m = make().fit(Xl, y)
        assert np.array_equal(m.dual_coef_, ref.dual_coef_), name
        assert np.array_equal(m.intercept_, ref.intercept_), name
        assert np.array_equal(m.support_, ref.support_), name
        assert np.array_equal(_scores(m, Xl), _scores(ref, X)), name


@pytest.mark.parametrize("make", [kern.SVC, kern.SVR, kern.OneClassSVM], ids=lambda c: c.__name__)
def test_csr_and_csc_x_train_identical_models(make):
    X, y = _blobs(200)
    X[np.abs(X) < 0.5] = 0.0
    X = X * np.array([1.0, 3.0, 0.1])
    ref = make().fit(sp.csr_matrix(X), y)
    m = make().fit(sp.csc_matrix(X), y)
    assert np.array_equal(m.dual_coef_, ref.dual_coef_)
    assert np.array_equal(m.intercept_, ref.intercept_)
    assert np.array_equal(_scores(m, sp.csc_matrix(X)), _scores(ref, sp.csr_matrix(X)))


# --- parameter names in errors ------------------------------------------------------------------------


def test_gamma_scale_on_huge_values_names_gamma_not_an_internal_parameter():
    X, y = _blobs()
    with pytest.raises(ValueError, match=r"gamma='scale'") as e:
        kern.SVC().fit(X * 1e300, y)
    assert "beta" not in str(e.value)


# --- RailwaySVC defaults ------------------------------------------------------------------------------


def test_railway_defaults_work_on_breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    m = kern.RailwaySVC(random_state=0).fit(X, y)
    assert m.score(X, y) > 0.9


def test_railway_defaults_pass_check_classifiers_train():
    check_classifiers_train("RailwaySVC", kern.RailwaySVC(random_state=0))


# --- docstrings -------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [kern.svm, kern._base, kern._helpers], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    "cls",
    [kern.SVC, kern.NuSVC, kern.SVR, kern.NuSVR, kern.OneClassSVM, kern.RailwaySVC, kern.KernelRidge,
     kern.KernelPCA],
    ids=lambda c: c.__name__,
)
def test_class_docstrings_are_numpydoc_with_every_parameter(cls):
    doc = cls.__doc__
    for section in ("Parameters\n----------", "Attributes\n----------", "Examples\n--------"):
        assert section in doc
    params = doc.split("Parameters\n----------")[1].split("Attributes\n----------")[0]
    entries = [line for line in params.splitlines() if " : " in line and not line[0].isspace()]
    documented = {line.split(" : ")[0] for line in entries}
    assert documented == set(cls().get_params())
