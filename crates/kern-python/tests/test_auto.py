"""Hyperparameters chosen on the training data: gamma='mean-to-half' (and 'max-variance', 'ahn',
'median'), C='auto', nu='auto', KernelRidge(alpha='auto'); the fitted `gamma_`, `C_`, `nu_`, `alpha_`,
checked against independent NumPy computations of the criteria and against fits at the chosen
numbers."""

import json
import pickle
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_classification, make_regression
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kern
from test_model_files import binary

#: C='auto''s grid, 10**-1 to 10**3 in half-decades, and the two extensions by two half-decades.
C_GRID = np.logspace(-1, 5, 13)
NU_GRID = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
#: KernelRidge(alpha='auto')'s grid: kern's default lambda grid, 10**-6 to 10**2 in half-decades.
ALPHA_GRID = np.logspace(-6, 2, 17)


@pytest.fixture(scope="module")
def cls_data():
    X, y = make_classification(120, 4, n_informative=3, n_redundant=0, random_state=3)
    return X, y


@pytest.fixture(scope="module")
def reg_data():
    X, y = make_regression(90, 3, noise=5.0, random_state=4)
    return X, y / np.std(y)


def _sq_dists(X):
    """Squared distances of the pairs i < j."""
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return d2[np.triu_indices(len(X), 1)]


# --- gamma: the width methods ------------------------------------------------------------------------

UNLABELLED = [
    lambda g: kern.SVR(gamma=g),
    lambda g: kern.NuSVR(gamma=g),
    lambda g: kern.OneClassSVM(gamma=g),
    lambda g: kern.KernelRidge(kernel="rbf", gamma=g),
    lambda g: kern.KernelPCA(2, kernel="rbf", gamma=g),
    lambda g: kern.NystroemKernelPCA(2, n_landmarks=20, kernel="rbf", gamma=g),
    lambda g: kern.FeatureVectorSelection(10, kernel="rbf", gamma=g),
    lambda g: kern.LSSVR(gamma=g),
]
LABELLED = [
    lambda g: kern.SVC(gamma=g),
    lambda g: kern.NuSVC(gamma=g),
    lambda g: kern.LSSVC(gamma=g),
]


def _fit(make, gamma, cls_data, reg_data):
    est = make(gamma)
    X, y = cls_data if is_classifier(est) else reg_data
    return est.fit(X, y), X


@pytest.mark.parametrize("make", UNLABELLED + LABELLED)
def test_mean_to_half_gives_mean_similarity_one_half(make, cls_data, reg_data):
    est, X = _fit(make, "mean-to-half", cls_data, reg_data)
    # kern stops at |mean - 1/2| <= 1e-12; NumPy's sum over the pairs adds rounding far below 1e-9.
    assert abs(np.exp(-est.gamma_ * _sq_dists(X)).mean() - 0.5) < 1e-9
    assert est.kernel_spec_.startswith("gaussian:")
    assert est.get_params()["gamma"] == "mean-to-half"


@pytest.mark.parametrize("make", UNLABELLED + LABELLED)
def test_median_is_one_over_the_median_squared_distance(make, cls_data, reg_data):
    est, X = _fit(make, "median", cls_data, reg_data)
    # The same median of the same squared distances, up to the rounding of a 3- or 4-term sum.
    assert est.gamma_ == pytest.approx(1.0 / np.median(_sq_dists(X)), rel=1e-12)


@pytest.mark.parametrize("make", [UNLABELLED[0], LABELLED[0]])
def test_max_variance_maximizes_the_variance_of_the_similarities(make, cls_data, reg_data):
    est, X = _fit(make, "max-variance", cls_data, reg_data)
    d2 = _sq_dists(X)

    def var(g):
        return np.exp(-g * d2).var()

    g = est.gamma_
    assert var(g) >= var(g * 1.01) and var(g) >= var(g / 1.01)
    assert var(g) > var(g * 2) and var(g) > var(g / 2)


def test_ahn_on_classifiers_is_the_bandwidth_helpers_choice(cls_data):
    X, y = cls_data
    b = kern.bandwidth(X, "ahn", y=y)["gamma"]
    for est in (kern.SVC(gamma="ahn"), kern.NuSVC(gamma="ahn"), kern.LSSVC(gamma="ahn")):
        assert est.fit(X, y).gamma_ == b


@pytest.mark.parametrize("make", UNLABELLED)
def test_ahn_without_labels_is_a_value_error_naming_the_other_values(make, cls_data, reg_data):
    with pytest.raises(ValueError, match="gamma='ahn' needs class labels.*'mean-to-half'"):
        _fit(make, "ahn", cls_data, reg_data)


def test_sparse_input_chooses_the_same_width(cls_data):
    X, y = cls_data
    dense = kern.SVC(gamma="mean-to-half").fit(X, y)
    sparse = kern.SVC(gamma="mean-to-half").fit(sp.csr_matrix(X), y)
    assert abs(np.exp(-sparse.gamma_ * _sq_dists(X)).mean() - 0.5) < 1e-9
    assert sparse.gamma_ == pytest.approx(dense.gamma_, rel=1e-9)


def test_gamma_keeps_scikit_learns_numbers_and_is_always_fitted(cls_data, reg_data):
    X, y = cls_data
    d = X.shape[1]
    assert kern.SVC(gamma="auto").fit(X, y).gamma_ == 1.0 / d
    assert kern.SVC(gamma="scale").fit(X, y).gamma_ == 1.0 / (d * X.var())
    assert kern.SVC(gamma=0.3).fit(X, y).gamma_ == 0.3
    assert kern.SVC(kernel="poly", gamma="auto").fit(X, y).gamma_ == 1.0 / d
    # KernelRidge and KernelPCA: None is 1 / n_features, as in scikit-learn.
    Xr, yr = reg_data
    assert kern.KernelRidge(kernel="rbf").fit(Xr, yr).gamma_ == 1.0 / Xr.shape[1]
    assert kern.KernelPCA(2, kernel="rbf").fit(Xr).gamma_ == 1.0 / Xr.shape[1]
    # Kernels without gamma.
    assert np.isnan(kern.SVC(kernel="linear").fit(X, y).gamma_)
    assert np.isnan(kern.SVC(kernel="precomputed").fit(X @ X.T, y).gamma_)
    assert np.isnan(kern.KernelRidge().fit(Xr, yr).gamma_)


def test_the_kern_command_chooses_the_same_width_and_c(cls_data, tmp_path):
    """`kern train --kernel gaussian:gamma=mean-to-half --c auto` on the same data and seed: the same
    numbers, bit for bit (one library choice behind both front ends)."""
    assert binary("kern").is_file(), "the kern command is not built: run `cargo build --release` (or set KERN_BIN)"
    X, y = cls_data
    data = tmp_path / "train.csv"
    np.savetxt(data, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
    out = subprocess.run(
        [str(binary("kern")), "train", "--model", "svc", "--kernel", "gaussian:gamma=mean-to-half", "--c",
         "auto", "--seed", "5", "--data", str(data), "--header", "no", "--label-col", "0", "--out",
         str(tmp_path / "m.kern")],
        check=True, capture_output=True, text=True,
    )
    choices = {c["parameter"]: c["value"] for c in json.loads(out.stdout)["auto"]["choices"]}
    est = kern.SVC(gamma="mean-to-half", C="auto", random_state=5).fit(X, y)
    assert (est.gamma_, est.C_) == (choices["gamma"], choices["c"])


def test_a_chosen_width_trains_the_model_of_that_number(cls_data):
    X, y = cls_data
    auto = kern.SVC(gamma="max-variance").fit(X, y)
    fixed = kern.SVC(gamma=auto.gamma_).fit(X, y)
    assert np.array_equal(auto.decision_function(X), fixed.decision_function(X))


def test_a_kern_spec_with_automatic_values(cls_data):
    X, y = cls_data
    # The sparsest radius of the Gram matrix with half its pairs zero (a finite radius).
    est = kern.SVC(kernel="cs-gaussian:sigma=auto,c=sparse-0.5").fit(X, y)
    assert est.kernel_spec_.startswith("cs-gaussian:") and "auto" not in est.kernel_spec_
    assert np.isnan(est.gamma_)
    K = kern.gram(X, kernel=est.kernel_spec_)
    assert (K[np.triu_indices(len(X), 1)] == 0).mean() >= 0.5


def test_width_methods_apply_to_rbf_only(cls_data):
    X, y = cls_data
    with pytest.raises(ValueError, match="gamma='median' chooses the width of the 'rbf' kernel"):
        kern.SVC(kernel="poly", gamma="median").fit(X, y)
    with pytest.raises(ValueError, match="'mean-to-half'"):
        kern.KernelRidge(kernel="laplacian", gamma="mean-to-half").fit(X, y)


# --- C and nu ------------------------------------------------------------------------------------------


def test_c_auto_is_a_grid_value_and_trains_the_model_of_that_number(cls_data, reg_data):
    X, y = cls_data
    for est, data in ((kern.SVC(C="auto", random_state=1), cls_data), (kern.SVR(C="auto"), reg_data)):
        X, y = data
        est.fit(X, y)
        assert np.isclose(est.C_, C_GRID, rtol=1e-12).any(), est.C_
        fixed = clone(est).set_params(C=est.C_).fit(X, y)
        assert np.array_equal(est.decision_function(X) if hasattr(est, "classes_") else est.predict(X),
                              fixed.decision_function(X) if hasattr(est, "classes_") else fixed.predict(X))
        assert est.get_params()["C"] == "auto"


def test_c_auto_is_deterministic_for_a_random_state(cls_data):
    X, y = cls_data
    a = kern.SVC(gamma="mean-to-half", C="auto", random_state=7).fit(X, y)
    b = kern.SVC(gamma="mean-to-half", C="auto", random_state=7).fit(X, y)
    assert (a.C_, a.gamma_) == (b.C_, b.gamma_)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))


def test_given_c_and_nu_are_the_fitted_values(cls_data, reg_data):
    X, y = cls_data
    assert kern.SVC(C=2.5).fit(X, y).C_ == 2.5
    assert kern.NuSVC(nu=0.3).fit(X, y).nu_ == 0.3
    Xr, yr = reg_data
    assert kern.SVR(C=4.0).fit(Xr, yr).C_ == 4.0
    assert kern.NuSVR(nu=0.4).fit(Xr, yr).nu_ == 0.4


def test_nu_auto_is_a_grid_value_and_trains_the_model_of_that_number(cls_data, reg_data):
    for est, (X, y) in ((kern.NuSVC(nu="auto", gamma="ahn"), cls_data), (kern.NuSVR(nu="auto"), reg_data)):
        est.fit(X, y)
        assert est.nu_ in NU_GRID
        fixed = clone(est).set_params(nu=est.nu_).fit(X, y)
        assert np.array_equal(est.predict(X), fixed.predict(X))


# --- KernelRidge(alpha='auto') -------------------------------------------------------------------------


def _loo_alpha(K, y):
    """The grid's alpha of the smallest mean squared leave-one-out residual of ``(K + alpha I) c = y``:
    ``e_i = c_i / ((K + alpha I)^-1)_ii``."""
    mse = []
    for a in ALPHA_GRID:
        inv = np.linalg.inv(K + a * np.eye(len(K)))
        mse.append(np.mean((inv @ y / np.diag(inv)) ** 2))
    return ALPHA_GRID[int(np.argmin(mse))]


def test_kernel_ridge_alpha_auto_is_the_leave_one_out_choice(reg_data):
    X, y = reg_data
    m = kern.KernelRidge(alpha="auto", kernel="rbf", gamma=0.5).fit(X, y)
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    assert np.isclose(m.alpha_, ALPHA_GRID, rtol=1e-12).any()
    assert m.alpha_ == pytest.approx(_loo_alpha(K, y), rel=1e-12)
    # alpha_ means what scikit-learn's alpha means: the same model.
    ref = SkKernelRidge(alpha=m.alpha_, kernel="rbf", gamma=0.5).fit(X, y)
    assert np.allclose(m.predict(X), ref.predict(X), rtol=1e-7, atol=1e-9 * np.abs(y).max())
    assert kern.KernelRidge(alpha=0.25).fit(X, y).alpha_ == 0.25


def test_kernel_ridge_alpha_auto_with_several_targets(reg_data):
    X, y = reg_data
    Y = np.column_stack([y, -2 * y])
    m = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="mean-to-half").fit(X, Y)
    assert np.isclose(m.alpha_, ALPHA_GRID, rtol=1e-12).any()
    assert m.predict(X).shape == Y.shape


def test_lssvm_takes_alpha_auto_as_leave_one_out(cls_data):
    X, y = cls_data
    a = kern.LSSVC(alpha="auto").fit(X, y)
    b = kern.LSSVC().fit(X, y)
    assert a.alpha_ == b.alpha_


# --- errors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "est, match",
    [
        (kern.SVC(gamma="best"), "gamma must be 'scale', 'auto', a positive number, or for kernel='rbf' one "
                                 "of 'mean-to-half', 'max-variance', 'ahn', 'median'; got 'best'"),
        (kern.SVC(C="best"), "C must be 'auto' or a positive number, got 'best'"),
        (kern.SVR(C="Auto"), "C must be 'auto' or a positive number, got 'Auto'"),
        (kern.NuSVC(nu="best"), r"nu must be 'auto' or a number in \(0, 1\], got 'best'"),
        (kern.KernelRidge(alpha="best"), "alpha must be 'auto' or a positive number, got 'best'"),
        (kern.NuSVR(C="auto"), "C must be a real number, got 'auto'"),
        (kern.OneClassSVM(nu="auto"), "nu must be a real number, got 'auto'"),
        (kern.SVC(kernel="precomputed", C="auto"), "C='auto' chooses C by cross-validation on the samples"),
        (kern.NuSVC(kernel="precomputed", nu="auto"), "nu='auto' chooses nu by cross-validation"),
        (kern.KernelRidge(alpha="auto", kernel="precomputed"), "alpha='auto' chooses alpha by exact"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_bad_values_name_the_valid_ones(est, match, cls_data):
    X, y = cls_data
    if getattr(est, "kernel", None) == "precomputed":
        X = X @ X.T
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_kernel_ridge_alpha_auto_refuses_sample_weights(reg_data):
    X, y = reg_data
    with pytest.raises(ValueError, match="with sample_weight"):
        kern.KernelRidge(alpha="auto").fit(X, y, sample_weight=np.ones(len(y)))


def test_c_auto_on_too_few_samples_says_how_many_are_needed():
    X = np.arange(16.0).reshape(8, 2)
    with pytest.raises(ValueError, match="at least 10 samples, got 8"):
        kern.SVC(C="auto").fit(X, [0, 1] * 4)


# --- scikit-learn's machinery ----------------------------------------------------------------------------


def test_pipeline_and_grid_search_over_the_automatic_values(cls_data):
    X, y = cls_data
    pipe = make_pipeline(StandardScaler(), kern.SVC(random_state=0))
    grid = {"svc__gamma": ["mean-to-half", "median", 0.5], "svc__C": ["auto", 1.0]}
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    best = search.best_estimator_[-1]
    assert best.get_params()["gamma"] in grid["svc__gamma"]
    assert np.isfinite(best.gamma_) and best.C_ > 0
    Z = StandardScaler().fit_transform(X)
    if best.gamma == "mean-to-half":
        assert abs(np.exp(-best.gamma_ * _sq_dists(Z)).mean() - 0.5) < 1e-9
    if best.C == "auto":
        assert np.isclose(best.C_, C_GRID, rtol=1e-12).any()


def test_pickle_keeps_the_chosen_values(cls_data):
    X, y = cls_data
    est = kern.SVC(gamma="mean-to-half", C="auto").fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    assert (again.gamma_, again.C_, again.gamma, again.C) == (est.gamma_, est.C_, "mean-to-half", "auto")
    assert np.array_equal(again.decision_function(X), est.decision_function(X))


# --- gamma='loo': the mean-to-half width widened with alpha by leave-one-out ------------------------------

#: The factors of the mean-to-half width the search tries (kern-models' WIDTH_FACTORS).
WIDTH_FACTORS = [1.0, 2.0, 4.0, 8.0, 16.0]

LOO_WIDTH = [
    lambda: kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo"),
    lambda: kern.LSSVR(gamma="loo"),
    lambda: kern.LSSVC(alpha="auto", gamma="loo"),
]


def _mean_to_half_gamma(X):
    """The gamma at which the mean of ``exp(-gamma ||x_i - x_j||^2)`` over the pairs i < j is 1/2, by
    bisection on log gamma (the mean falls as gamma grows) to the last bit."""
    d2 = _sq_dists(X)
    lo, hi = np.log(1e-12 / d2.max()), np.log(1e12 / d2[d2 > 0].min())
    for _ in range(200):
        mid = (lo + hi) / 2
        if np.exp(-np.exp(mid) * d2).mean() > 0.5:
            lo = mid
        else:
            hi = mid
    return float(np.exp((lo + hi) / 2))


def _loo_fit(make, cls_data, reg_data):
    est = make()
    X, y = cls_data if is_classifier(est) else reg_data
    return est.fit(X, y), X, y


def _outputs(est, X):
    return est.decision_function(X) if is_classifier(est) else est.predict(X)


@pytest.mark.parametrize("make", LOO_WIDTH)
def test_loo_gamma_is_the_mean_to_half_width_widened_by_the_reported_factor(make, cls_data, reg_data):
    est, X, y = _loo_fit(make, cls_data, reg_data)
    s = est.width_search_
    assert s["factor"] in WIDTH_FACTORS
    # kern stops at |mean - 1/2| <= 1e-12, which moves gamma by about 1e-11 relative on these pairs.
    assert est.gamma_ * s["factor"] ** 2 == pytest.approx(_mean_to_half_gamma(X), rel=1e-9)
    # The factors are powers of two: dividing kern's own mean-to-half gamma by factor**2 is exact.
    half = clone(est).set_params(gamma="mean-to-half").fit(X, y)
    assert est.gamma_ == half.gamma_ / s["factor"] ** 2
    assert not hasattr(half, "width_search_")
    assert [c[0] for c in s["curve"]] == WIDTH_FACTORS
    errors = [c[2] for c in s["curve"]]
    assert errors[WIDTH_FACTORS.index(s["factor"])] == min(errors)
    assert all(a > 0 for _, a, _ in s["curve"]) and s["points"] == len(X) and s["seconds"] >= 0
    assert est.kernel_spec_.startswith("gaussian:") and est.get_params()["gamma"] == "loo"


@pytest.mark.parametrize("make", LOO_WIDTH)
def test_loo_gamma_trains_the_model_of_the_chosen_numbers(make, cls_data, reg_data):
    est, X, y = _loo_fit(make, cls_data, reg_data)
    fixed = clone(est).set_params(alpha=est.alpha_, gamma=est.gamma_).fit(X, y)
    a, b = _outputs(est, X), _outputs(fixed, X)
    # The same kernel and alpha: the same solve up to the rounding of a repr round trip of gamma.
    assert np.abs(a - b).max() <= 1e-10 * np.abs(b).max()
    again = make().fit(X, y)
    assert (again.gamma_, again.alpha_, again.kernel_spec_) == (est.gamma_, est.alpha_, est.kernel_spec_)
    assert {k: v for k, v in again.width_search_.items() if k != "seconds"} == {
        k: v for k, v in est.width_search_.items() if k != "seconds"
    }
    assert np.array_equal(_outputs(again, X), a)


@pytest.mark.parametrize("make", LOO_WIDTH)
def test_the_width_search_model_is_the_fit_at_the_chosen_kernel(make, cls_data, reg_data):
    """On all the samples the width search trains the model of the chosen width itself: it must be,
    bit for bit, the model a fit with that kernel spec and alpha='auto' gives."""
    est, X, y = _loo_fit(make, cls_data, reg_data)
    assert est.width_search_["points"] == len(X) and est.width_search_["model_kept"] is True
    refit = clone(est).set_params(kernel=est.kernel_spec_, gamma=None, alpha="auto").fit(X, y)
    assert not hasattr(refit, "width_search_") and refit.kernel_spec_ == est.kernel_spec_
    assert refit.alpha_ == est.alpha_
    assert np.array_equal(refit.dual_coef_, est.dual_coef_)
    assert np.array_equal(_outputs(refit, X), _outputs(est, X))


def test_a_subsampled_width_search_trains_the_final_model_on_all_samples():
    """Beyond 1,000 samples the search runs on a subsample, which also chooses alpha; the model is the
    fit on all of them at that width and alpha, for one target column given either way."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (1010, 2))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(1010)
    est = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y)
    s = est.width_search_
    assert s["points"] == 1000 and s["model_kept"] is True
    best = [c for c in s["curve"] if c[0] == s["factor"]]
    assert len(best) == 1 and est.alpha_ == s["alpha"] == best[0][1]
    assert est.dual_coef_.shape == (1010,)
    refit = kern.KernelRidge(alpha=est.alpha_, kernel=est.kernel_spec_).fit(X, y)
    assert np.array_equal(refit.dual_coef_, est.dual_coef_)
    column = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y[:, None])
    assert column.alpha_ == est.alpha_ and column.width_search_["model_kept"] is False
    assert np.allclose(column.dual_coef_[:, 0], est.dual_coef_, rtol=1e-9, atol=1e-12 * np.abs(est.dual_coef_).max())


def test_kernel_ridge_loo_alpha_is_the_numpy_leave_one_out_at_the_chosen_width(reg_data):
    X, y = reg_data
    m = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y)
    K = np.exp(-m.gamma_ * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    assert m.alpha_ == pytest.approx(_loo_alpha(K, y), rel=1e-12)
    ref = SkKernelRidge(alpha=m.alpha_, kernel="rbf", gamma=m.gamma_).fit(X, y)
    assert np.allclose(m.predict(X), ref.predict(X), rtol=1e-7, atol=1e-9 * np.abs(y).max())


def _sigma(est):
    """The width of a fitted ``gaussian:sigma=...`` kernel."""
    name, value = est.kernel_spec_.split("=")
    assert name == "gaussian:sigma"
    return float(value)


def test_a_gaussian_width_written_auto_with_alpha_auto_is_widened(reg_data):
    X, y = reg_data
    auto = kern.KernelRidge(alpha="auto", kernel="gaussian:sigma=auto").fit(X, y)
    half = kern.KernelRidge(alpha="auto", kernel="gaussian:sigma=mean-to-half").fit(X, y)
    given = kern.KernelRidge(alpha=0.1, kernel="gaussian:sigma=auto").fit(X, y)
    # sigma is a length (exp(-r^2 / sigma^2)): the factor multiplies it, exactly for powers of two.
    assert _sigma(auto) == _sigma(half) * auto.width_search_["factor"]
    assert given.kernel_spec_ == half.kernel_spec_
    assert not hasattr(half, "width_search_") and not hasattr(given, "width_search_")
    assert np.isnan(auto.gamma_)
    loo = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y)
    assert auto.width_search_["factor"] == loo.width_search_["factor"]


def test_the_kern_command_widens_the_same_width(reg_data, tmp_path):
    """`kern train --model krr --kernel gaussian:sigma=auto --lambda auto` and
    KernelRidge(kernel="gaussian:sigma=auto", alpha="auto") on the same data: the same width, factor
    and lambda, bit for bit."""
    assert binary("kern").is_file(), "the kern command is not built: run `cargo build --release` (or set KERN_BIN)"
    X, y = reg_data
    data = tmp_path / "train.csv"
    np.savetxt(data, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
    out = subprocess.run(
        [str(binary("kern")), "train", "--model", "krr", "--kernel", "gaussian:sigma=auto", "--lambda",
         "auto", "--seed", "0", "--data", str(data), "--header", "no", "--label-col", "0", "--out",
         str(tmp_path / "m.kern")],
        check=True, capture_output=True, text=True,
    )
    choices = json.loads(out.stdout)["auto"]["choices"]
    width = next(c for c in choices if c["method"] == "mean-to-half widened by leave-one-out")
    lam = next(c for c in choices if c["parameter"] == "lambda")
    est = kern.KernelRidge(alpha="auto", kernel="gaussian:sigma=auto").fit(X, y)
    assert (width["parameter"], _sigma(est)) == ("sigma", width["value"])
    assert [tuple(c) for c in width["curve"]] == est.width_search_["curve"]
    assert est.alpha_ == lam["value"]


@pytest.mark.parametrize(
    "est, match",
    [
        (kern.KernelRidge(kernel="rbf", gamma="loo"), "gamma='loo' .* needs alpha='auto'; with a given"),
        (kern.LSSVR(alpha=0.1, gamma="loo"), r"needs alpha='auto' \(or neither alpha nor gam\)"),
        (kern.LSSVC(gam=10.0, gamma="loo"), r"needs alpha='auto' \(or neither alpha nor gam\)"),
        (kern.SVC(gamma="loo"), "only KernelRidge, LSSVC and LSSVR compute"),
        (kern.SVR(gamma="loo"), "only KernelRidge, LSSVC and LSSVR compute"),
        (kern.KernelPCA(2, kernel="rbf", gamma="loo"), "only KernelRidge, LSSVC and LSSVR compute"),
        (kern.KernelRidge(alpha="auto", kernel="poly", gamma="loo"), "only KernelRidge, LSSVC and LSSVR"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_loo_gamma_refusals_name_what_it_needs(est, match, cls_data, reg_data):
    X, y = cls_data if is_classifier(est) else reg_data
    with pytest.raises(ValueError, match=match):
        est.fit(X) if isinstance(est, kern.KernelPCA) else est.fit(X, y)


def test_loo_gamma_needs_one_target_column(reg_data):
    X, y = reg_data
    column = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y[:, None])
    flat = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y)
    assert column.width_search_["curve"] == flat.width_search_["curve"]
    assert np.array_equal(column.predict(X)[:, 0], flat.predict(X))
    for kernel, gamma in (("rbf", "loo"), ("gaussian:sigma=auto", None)):
        with pytest.raises(ValueError, match="on one target column"):
            kern.KernelRidge(alpha="auto", kernel=kernel, gamma=gamma).fit(X, np.column_stack([y, y]))


def test_a_refit_without_the_search_drops_width_search(reg_data):
    X, y = reg_data
    est = kern.KernelRidge(alpha="auto", kernel="rbf", gamma="loo").fit(X, y)
    assert "factor" in est.width_search_
    est.set_params(gamma="mean-to-half").fit(X, y)
    assert not hasattr(est, "width_search_")
