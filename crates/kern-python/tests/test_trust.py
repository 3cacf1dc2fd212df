"""Thread caps and non-finite outputs on the everyday path."""

import warnings

import numpy as np
import pytest

import kern


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    return X, y


def test_huge_n_jobs_is_capped_to_the_cpus_with_a_user_warning():
    X, y = _data()
    cpus = kern._base.cpu_count()
    before = set(kern._kern.pools_used())
    capped = rf"n_jobs=1000000 is more than the {cpus} CPUs .* using {cpus} threads"
    with pytest.warns(UserWarning, match=capped):
        m = kern.SVC(n_jobs=10**6).fit(X, y)
    with pytest.warns(UserWarning, match="n_jobs=1000000 is more than"):
        m.predict(X)
    # The pools kern started for it have at most one thread per CPU.
    assert max(set(kern._kern.pools_used()) - before, default=cpus) <= cpus
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.set_params(n_jobs=1).predict(X)  # no warning up to the CPU count
        m.set_params(n_jobs=cpus).predict(X)
        m.set_params(n_jobs=-1).predict(X)


def test_overflowing_kernel_values_raise_naming_the_row():
    X, y = _data()
    m = kern.SVC(kernel="poly", degree=9, coef0=1.0).fit(X, y)
    bad = np.array([[0.1, 0.2], [1e200, 1e200]])
    with pytest.raises(ValueError, match=r"row 2 of the data \(rows counted from 1\)"):
        m.decision_function(bad)
