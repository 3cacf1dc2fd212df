"""Thread caps and non-finite outputs on the everyday path."""

import os
import warnings

import numpy as np
import pytest

import kern


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    return X, y


def test_huge_n_jobs_is_capped_with_a_user_warning():
    X, y = _data()
    with pytest.warns(UserWarning, match="threads requested"):
        m = kern.SVC(n_jobs=10**6).fit(X, y)
    with pytest.warns(UserWarning, match=r"n_jobs: 1000000 threads requested, using \d+"):
        m.predict(X)
    cap = 4 * (os.cpu_count() or 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.set_params(n_jobs=1).predict(X)  # no warning below the cap
        m.set_params(n_jobs=min(cap, 4)).predict(X)


def test_overflowing_kernel_values_raise_naming_the_row():
    X, y = _data()
    m = kern.SVC(kernel="poly", degree=9, coef0=1.0).fit(X, y)
    bad = np.array([[0.1, 0.2], [1e200, 1e200]])
    with pytest.raises(ValueError, match=r"row 2 of the data \(rows counted from 1\)"):
        m.decision_function(bad)
