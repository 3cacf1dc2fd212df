#!/usr/bin/env python3
"""Kernel PCA, 8 components, Gaussian kernel (sigma = 0.6, i.e. gamma = 1/sigma^2) on the seeded
green-red mixture of the CS-RBF paper, n = 5000: `kern kpca` vs scikit-learn
`KernelPCA(eigen_solver='arpack')`. Not part of CI.

Both fit on the same CSV file. sklearn's time is `KernelPCA.fit(X)` (kernel matrix, centring, ARPACK);
kern's is the `seconds` of its JSON (Gram matrix, centring inside the products, block Krylov), file
reading excluded on both sides. Prints median and min-max of `--repeats` runs each, the ratio, and the
largest relative difference of the eigenvalues (both report eigenvalues of the centred Gram matrix).

    cargo build --release -p kernml-cli && python3 bench/kpca_compare.py [--n 5000] [--repeats 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
from sklearn.decomposition import KernelPCA


def green_red(n, seed):
    rng = np.random.default_rng(seed)
    centres = np.vstack([rng.normal([1, 0], 1, (10, 2)), rng.normal([0, 1], 1, (10, 2))])
    cls = np.arange(n) % 2
    pick = rng.integers(0, 10, n) + 10 * cls
    x = centres[pick] + rng.normal(0, np.sqrt(0.2), (n, 2))
    return x, np.where(cls == 0, -1, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--sigma", type=float, default=0.6)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--kern", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "kern"))
    a = ap.parse_args()
    x, y = green_red(a.n, 2004)
    d = tempfile.mkdtemp()
    path = os.path.join(d, "green_red.csv")
    with open(path, "w") as f:
        f.write("x1,x2,label\n")
        for (u, v), l in zip(x, y):
            f.write(f"{float(u)!r},{float(v)!r},{int(l)}\n")
    gamma = 1.0 / a.sigma ** 2
    sk_times, sk_eig = [], None
    for _ in range(a.repeats):
        t = time.perf_counter()
        m = KernelPCA(n_components=a.k, kernel="rbf", gamma=gamma, eigen_solver="arpack", random_state=0).fit(x)
        sk_times.append(time.perf_counter() - t)
        sk_eig = m.eigenvalues_
    kern_times, kern_eig = [], None
    for _ in range(a.repeats):
        out = subprocess.run(
            [a.kern, "kpca", "--data", path, "--kernel", f"gaussian:sigma={a.sigma}", "--components", str(a.k)],
            check=True, capture_output=True, text=True,
        ).stdout.strip().splitlines()[-1]
        j = json.loads(out)
        kern_times.append(j["seconds"])
        kern_eig = np.array(j["eigenvalues"])
    rel = np.max(np.abs(np.sort(sk_eig)[::-1] - kern_eig) / kern_eig[0])
    res = {
        "n": a.n, "k": a.k, "sigma": a.sigma,
        "sklearn_median": statistics.median(sk_times), "sklearn_min": min(sk_times), "sklearn_max": max(sk_times),
        "kern_median": statistics.median(kern_times), "kern_min": min(kern_times), "kern_max": max(kern_times),
        "ratio_median": statistics.median(kern_times) / statistics.median(sk_times),
        "eigenvalue_max_rel_diff": float(rel),
        "kern_solver": j["solver"], "kern_matvecs": j["matvecs"],
    }
    print(json.dumps(res))


if __name__ == "__main__":
    main()
