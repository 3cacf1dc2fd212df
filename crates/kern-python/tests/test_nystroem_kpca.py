"""`NystroemKernelPCA`: with every training point as a centre it is `KernelPCA`; on fewer centres its
projections are those of the Nyström formulas (a NumPy reference) and of kern's command line.

Tolerances are bounds of the form `C n eps cond(K) mu_1 / gap`: the Nyström features go through a
Cholesky factor of the centres' kernel matrix and its triangular solves (relative error ~ n eps cond(K)),
and an eigenvector moves by (perturbation) / (eigenvalue gap), so a score by that much times its scale.
"""

import os
import pathlib
import pickle
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import kern

EPS = np.finfo(float).eps


def blobs(n, seed):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [2.0, 0.5], [0.5, 2.0]])
    return centres[np.arange(n) % 3] + rng.normal(0, 0.6, (n, 2))


def rbf(a, b, gamma):
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


def aligned(a, b):
    """`a` with each column's sign flipped to agree with `b`'s."""
    return a * np.where(np.sum(a * b, axis=0) < 0, -1.0, 1.0)


def gaps(mu):
    """Distance of each of the first len(mu) - 1 eigenvalues to its nearest neighbour in `mu`."""
    d = -np.diff(mu)
    return np.minimum(np.r_[np.inf, d[:-1]], d)


def test_all_points_as_centres_is_kernel_pca():
    x, xt = blobs(45, 1), blobs(20, 2)
    gamma, k = 1.0, 4
    n = len(x)
    exact = kern.KernelPCA(k + 1, kernel="rbf", gamma=gamma, eigen_solver="dense").fit(x)
    ours = kern.NystroemKernelPCA(k, n_landmarks=n, landmarks="random", kernel="rbf", gamma=gamma).fit(x)
    assert sorted(ours.component_indices_) == list(range(n))
    mu = exact.eigenvalues_
    cond = np.linalg.cond(rbf(x, x, gamma))
    err = 10 * n * EPS * cond * mu[0]
    np.testing.assert_allclose(ours.eigenvalues_, mu[:k], rtol=0, atol=err)
    for new in (x, xt):
        a, b = ours.transform(new), exact.transform(new)[:, :k]
        scale = np.abs(b).max()
        for j in range(k):
            tol = err / gaps(mu)[j] * scale
            np.testing.assert_allclose(aligned(a, b)[:, j], b[:, j], rtol=0, atol=tol)
    np.testing.assert_array_equal(ours.fit_transform(x), ours.transform(x))


def nystroem_reference(x, centres, new, gamma, k, jitter):
    """Nyström kernel PCA in NumPy (Williams & Seeger 2001 features, then PCA): `phi(x) = L^-1 k_C(x)`
    with `K_mm + jitter I = L L'`; scores of the centred features on the leading eigenvectors of their
    scatter matrix. Also returns cond(K_mm + jitter I) and the 1-norms of the columns of
    `W = L^-T V` (the weights of the kernel values in a score)."""
    m = len(centres)
    kmm = rbf(centres, centres, gamma) + jitter * np.eye(m)
    chol = np.linalg.cholesky(kmm)
    f = np.linalg.solve(chol, rbf(centres, x, gamma)).T
    mean = f.mean(axis=0)
    mu, v = np.linalg.eigh((f - mean).T @ (f - mean))
    mu, v = mu[::-1], v[:, ::-1]
    fn = np.linalg.solve(chol, rbf(centres, new, gamma)).T
    w = np.linalg.solve(chol.T, v[:, :k])
    return mu[: k + 1], (fn - mean) @ v[:, :k], np.linalg.cond(kmm), np.abs(w).sum(axis=0)


@pytest.mark.parametrize("landmarks", ["random", "fvs"])
def test_projections_match_the_nystroem_formulas(landmarks):
    x, xt = blobs(300, 3), blobs(50, 4)
    gamma, k = 0.5, 3
    ours = kern.NystroemKernelPCA(
        k, n_landmarks=25, landmarks=landmarks, kernel="rbf", gamma=gamma, random_state=7
    ).fit(x)
    c = x[ours.component_indices_]
    assert len(c) <= 25 and len(set(ours.component_indices_)) == len(c)
    np.testing.assert_array_equal(ours.components_, c)
    jitter = ours._model.nystrom_kpca_parts()[2]
    assert jitter >= len(c) * EPS  # kern's jitter: m eps max k(c, c), times 100 per failed factorization
    mu, ref, cond, w1 = nystroem_reference(x, c, xt, gamma, k, jitter)
    err = 10 * len(x) * EPS * cond * mu[0]
    np.testing.assert_allclose(ours.eigenvalues_, mu[:k], rtol=0, atol=err)
    a = ours.transform(xt)
    scale = np.abs(ref).max()
    for j in range(k):
        tol = err / gaps(mu)[j] * scale
        np.testing.assert_allclose(aligned(a, ref)[:, j], ref[:, j], rtol=0, atol=tol)
    # Sparse input: the same samples, the same projections to rounding of the kernel evaluations, each
    # within gamma * 4 eps (|y|^2 + |c|^2) (squared distance, perhaps by the norms expansion) + 2 eps
    # (exp) of the dense one, weighted by the column of W.
    sq = (xt**2).sum(1).max() + (c**2).sum(1).max()
    tol = (gamma * 4 * sq + 2) * EPS * w1.max()
    np.testing.assert_allclose(ours.transform(sp.csr_matrix(xt)), a, rtol=0, atol=tol)


def test_seeded_and_thread_count_independent():
    x = blobs(200, 5)
    kw = dict(n_landmarks=30, landmarks="random", kernel="rbf", gamma=0.5)
    a = kern.NystroemKernelPCA(3, random_state=11, n_jobs=1, **kw).fit(x)
    b = kern.NystroemKernelPCA(3, random_state=11, n_jobs=2, **kw).fit(x)
    c = kern.NystroemKernelPCA(3, random_state=12, **kw).fit(x)
    np.testing.assert_array_equal(a.component_indices_, b.component_indices_)
    np.testing.assert_array_equal(a.transform(x), b.transform(x))
    assert not np.array_equal(a.component_indices_, c.component_indices_)
    # Pickling keeps the model (kern's model bytes).
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).transform(x), a.transform(x))


def test_parameters_are_checked():
    x = blobs(30, 6)
    for bad in (dict(landmarks="kmeans"), dict(n_landmarks=0), dict(n_components=0)):
        with pytest.raises(ValueError):
            kern.NystroemKernelPCA(**bad).fit(x)
    # More landmarks than samples: every sample is a centre; more components than centres: capped.
    m = kern.NystroemKernelPCA(50, n_landmarks=100, landmarks="random", kernel="rbf").fit(x)
    assert len(m.component_indices_) == 30 and m.transform(x).shape[1] <= 30


def kern_binary():
    """The `kern` command: `$KERN_BIN`, or the workspace's release build."""
    env = os.environ.get("KERN_BIN")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parents[3] / "target" / "release" / "kern"


@pytest.mark.parametrize("landmarks", ["random", "fvs"])
def test_kern_predict_projects_as_transform(tmp_path, landmarks):
    # The command is part of what is tested: a missing build fails here rather than skipping.
    assert kern_binary().is_file(), "the kern command is not built: run `cargo build --release` (or set KERN_BIN)"
    x, xt = blobs(200, 8), blobs(40, 9)
    ours = kern.NystroemKernelPCA(
        3, n_landmarks=20, landmarks=landmarks, kernel="rbf", gamma=0.7, random_state=2
    ).fit(x)
    # The pickled model is a kern model file; kern predict projects a CSV of the new points with it.
    model, data, out = tmp_path / "m.kern", tmp_path / "new.csv", tmp_path / "z.csv"
    model.write_bytes(ours._model.to_bytes())
    np.savetxt(data, xt, delimiter=",", fmt="%.17g", header="a,b", comments="")
    subprocess.run(
        [str(kern_binary()), "predict", "--model", str(model), "--data", str(data), "--label-col", "none",
         "--out", str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_text().splitlines()[0] == "pc1,pc2,pc3"
    z = np.loadtxt(out, delimiter=",", skiprows=1)
    # The same function on the same bits (17 significant digits round-trip a float64).
    np.testing.assert_array_equal(z, ours.transform(xt))
