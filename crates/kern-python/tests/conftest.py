import numpy as np
import pytest


def green_red(n, seed):
    """The green-red mixture of the CS-RBF paper (Hastie et al.'s mixture): ten Gaussian centres per
    class, points drawn around a random centre of their class."""
    rng = np.random.default_rng(seed)
    centres = np.vstack([rng.normal([1, 0], 1, (10, 2)), rng.normal([0, 1], 1, (10, 2))])
    cls = np.arange(n) % 2
    pick = rng.integers(0, 10, n) + 10 * cls
    x = centres[pick] + rng.normal(0, np.sqrt(0.2), (n, 2))
    return x, np.where(cls == 0, "green", "red")


@pytest.fixture(scope="session")
def gr():
    x, y = green_red(1000, 2004)
    xt, yt = green_red(1000, 7)
    return x, y, xt, yt


@pytest.fixture(scope="session")
def regression():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (300, 3))
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2] + 0.1 * rng.normal(size=300)
    xt = rng.uniform(-2, 2, (200, 3))
    yt = np.sin(xt[:, 0]) + 0.5 * xt[:, 1] * xt[:, 2]
    return x, y, xt, yt
