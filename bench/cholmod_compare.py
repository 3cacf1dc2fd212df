#!/usr/bin/env python3
"""Peer comparison: CHOLMOD (scikit-sparse) and kern's sparse Cholesky on the same matrix K_C + I/lambda.

Data: green-red (bench/nd_compare.py's seeded generator), n = 200,000 by default, kernel
cs-gaussian:sigma=0.6,c=0.12,nu=3 (about 545 non-zeros per row at that n), lambda = 1. Current figures:
docs/benchmarks.md ("Sparse Cholesky: orderings and CHOLMOD").

The matrix for CHOLMOD is built here with scipy: the pairs closer than c by cKDTree's
sparse_distance_matrix, k(r) = exp(-r^2/sigma^2) ((1 - r/c)_+)^nu (kern's cs-gaussian: the CS-RBF
paper's eq. 1 taper times the Gaussian exp(-r^2/sigma^2)), plus 1 + 1/lambda on the diagonal (k(0) = 1).
kern builds its own from the same CSV file (`kern sparse --order amd|nd --lambda L`); both report nnz,
which must agree (printed side by side).

CHOLMOD runs in a worker process (this script with --worker) so that /usr/bin/time -v sees only it:
analyze (ordering + symbolic, with ordering_method "amd" or "metis" = nested dissection) and the
supernodal numeric factorization, each timed; the matrix construction is excluded from the times but not
from the peak RSS (kern's peak includes its own assembly as well). --reps repetitions per configuration
(each a separate process); best, median and max seconds, largest peak RSS.

Installation that works on Debian 12 (SuiteSparse 5.12 from `apt-get install libsuitesparse-dev`),
in a throw-away venv (delete it afterwards; it leaves the system Python alone):
    python3 -m venv /tmp/ss && /tmp/ss/bin/pip install "numpy<2" "scipy<1.14" "cython<3" setuptools wheel
    /tmp/ss/bin/pip install --no-build-isolation --no-binary :all: scikit-sparse==0.4.12
    TMPDIR=/dev/shm /tmp/ss/bin/python bench/cholmod_compare.py --kern target/release/kern
(Cython 0.29 regenerates the C file against numpy 1.26's headers.) CHOLMOD's supernodal factorization runs
its dense blocks through the system BLAS: on Debian that is the unoptimized reference BLAS (libblas3)
unless an optimized one is installed, which makes CHOLMOD several times slower than it is for its users.
Install OpenBLAS first (`apt-get install libopenblas0-pthread`; `update-alternatives --display
libblas.so.3-x86_64-linux-gnu` must point into openblas-pthread) — the comparison is against CHOLMOD as
people run it. Notes on what did not work:
scikit-sparse has no wheel; building it needs SuiteSparse's headers
(`apt-get install libsuitesparse-dev`). On the bench machine (Debian 12: SuiteSparse 5.12, numpy 2.4)
that was not enough: the current scikit-sparse needs SuiteSparse 7 (its build fails on the missing
`cholmod_common.nsbounds_hit`), and 0.4.12 builds but its shipped C file was generated for the old numpy
ABI ("numpy.dtype size changed" at import). Untried here, for lack of time: SuiteSparse >= 7 headers (Debian 13 /
conda-forge `suitesparse`) with `pip install scikit-sparse`, or `pip install cython` and
`pip install --no-binary :all: --no-build-isolation scikit-sparse==0.4.12` so the C file is regenerated.
Warning: a scikit-sparse that fails at import with that ValueError breaks `import scipy.optimize` (and so
scikit-learn) for the whole Python installation, because scipy tries `from sksparse.cholmod import ...`
and catches only ImportError; uninstall it (`pip uninstall scikit-sparse`) if the import fails.

Usage: python3 bench/cholmod_compare.py --kern target/release/kern [--n 200000] [--reps 3]
       [--kernel-c 0.12] [--sigma 0.6] [--nu 3] [--lambda 1] [--orders amd nd] [--skip-kern]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nd_compare import green_red, timed_run, write_csv  # noqa: E402


def kc_matrix(x, sigma, c, nu, lam):
    """K_C + I/lambda in CSC (full symmetric storage)."""
    import scipy.sparse as sp
    from scipy.spatial import cKDTree

    t = cKDTree(x)
    d = t.sparse_distance_matrix(t, c, output_type="coo_matrix")
    r = d.data
    keep = d.row != d.col
    v = np.exp(-(r[keep] / sigma) ** 2) * np.maximum(1.0 - r[keep] / c, 0.0) ** nu
    n = len(x)
    a = sp.coo_matrix((v, (d.row[keep], d.col[keep])), shape=(n, n)).tocsc()
    return a + sp.identity(n, format="csc") * (1.0 + 1.0 / lam)


def worker(a):
    from sksparse import cholmod

    x, _ = green_red(a.n, a.n)
    m = kc_matrix(x, a.sigma, a.kernel_c, a.nu, a.lam)
    order = {"amd": "amd", "nd": "metis"}[a.worker]
    t = time.perf_counter()
    sym = cholmod.analyze(m, mode="supernodal", ordering_method=order)
    analyze = time.perf_counter() - t
    t = time.perf_counter()
    f = sym.cholesky(m)
    numeric = time.perf_counter() - t
    print(json.dumps({"nnz": int(m.nnz), "factor_nnz": int(f.L().nnz), "analyze_seconds": analyze,
                      "numeric_seconds": numeric, "seconds": analyze + numeric}))


def stats(v):
    v = sorted(v)
    return {"best": v[0], "median": v[len(v) // 2], "max": v[-1]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kern", default="target/release/kern")
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--sigma", type=float, default=0.6)
    ap.add_argument("--kernel-c", type=float, default=0.12)
    ap.add_argument("--nu", type=float, default=3.0)
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--orders", nargs="*", default=["amd", "nd"])
    ap.add_argument("--skip-kern", action="store_true")
    ap.add_argument("--worker", choices=["amd", "nd"])
    a = ap.parse_args()
    if a.worker:
        return worker(a)
    kernel = f"cs-gaussian:sigma={a.sigma},c={a.kernel_c},nu={a.nu:g}"
    tmp = tempfile.mkdtemp(prefix="kern-cholmod-")
    try:
        data = os.path.join(tmp, "gr.csv")
        write_csv(data, *green_red(a.n, a.n))
        for order in a.orders:
            runs = []
            for _ in range(a.reps):
                j, rss, _ = timed_run([sys.executable, os.path.abspath(__file__), "--worker", order,
                                       "--n", str(a.n), "--sigma", str(a.sigma), "--kernel-c", str(a.kernel_c),
                                       "--nu", str(a.nu), "--lambda", str(a.lam)])
                runs.append({**j, "rss": rss})
            print(json.dumps({"tool": "CHOLMOD (scikit-sparse)", "order": order, "n": a.n, "kernel": kernel,
                              "lambda": a.lam, "nnz": runs[0]["nnz"], "factor_nnz": runs[0]["factor_nnz"],
                              "factor_bytes": 8 * runs[0]["factor_nnz"], "reps": a.reps,
                              "ordering_symbolic_seconds": stats([r["analyze_seconds"] for r in runs]),
                              "numeric_seconds": stats([r["numeric_seconds"] for r in runs]),
                              "total_seconds": stats([r["seconds"] for r in runs]),
                              "peak_rss_mib": max(r["rss"] for r in runs)}), flush=True)
            if a.skip_kern:
                continue
            runs = []
            for _ in range(a.reps):
                j, rss, _ = timed_run([a.kern, "sparse", "--data", data, "--kernel", kernel, "--order", order,
                                       "--lambda", str(a.lam)])
                runs.append({**j, "rss": rss})
            print(json.dumps({"tool": "kern sparse", "order": order, "n": a.n, "kernel": kernel, "lambda": a.lam,
                              "nnz": runs[0]["nnz"], "factor_nnz": runs[0]["factor_nnz"],
                              "factor_bytes": 8 * runs[0]["factor_nnz"], "reps": a.reps,
                              "assemble_seconds": stats([r["assemble_seconds"] for r in runs]),
                              "ordering_symbolic_seconds": stats([r["order_seconds"] + r["symbolic_seconds"]
                                                                  for r in runs]),
                              "numeric_seconds": stats([r["numeric_seconds"] for r in runs]),
                              "total_seconds": stats([r["order_seconds"] + r["factor_seconds"] for r in runs]),
                              "peak_rss_mib": max(r["rss"] for r in runs)}), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
