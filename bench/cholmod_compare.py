#!/usr/bin/env python3
"""Peer comparison for issue 3: CHOLMOD (scikit-sparse) on the very matrices kern-sparse factors.

Input: Matrix Market files written by
    cargo run --release -p kern-sparse --example sparse_bench -- lssvm5000 DIR
(lower triangle of K_C + I/lambda, green-red n = 5000, sigma = 0.6, nu = 3, C at the tau quantile of
pairwise distances). For each file this times, with the same AMD ordering as kern-sparse:
  - CHOLMOD analyze (AMD + symbolic)        -> compare with kern's "analyze_seconds"
  - CHOLMOD numeric factorize (supernodal)  -> compare with kern's "numeric_factor_seconds"
  - CHOLMOD solve against 1 and y (eq. 14)
and, when scikit-sparse is missing, scipy's SuperLU (splu, COLAMD) as a fallback peer, named as such.
Prints one JSON object per matrix: median, min and max over --reps repetitions.

Usage: python3 bench/cholmod_compare.py DIR [--reps 5]
"""
import argparse
import glob
import json
import os
import time

import numpy as np
import scipy.io
import scipy.sparse as sp


def timed(f, reps):
    ts, out = [], None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return out, {"median": ts[len(ts) // 2], "min": ts[0], "max": ts[-1], "reps": reps}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    try:
        from sksparse import cholmod
    except ImportError:
        cholmod = None
    for path in sorted(glob.glob(os.path.join(args.dir, "*.mtx"))):
        a = sp.csc_matrix(scipy.io.mmread(path))  # symmetric file -> full matrix
        n = a.shape[0]
        ones = np.ones(n)
        rng = np.random.default_rng(0)
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        row = {"matrix": os.path.basename(path), "n": n, "nnz": int(a.nnz)}
        if cholmod is not None:
            # supernodal_mode "supernodal" = what faer chose for these matrices; ordering = AMD as ours.
            sym, t_an = timed(lambda: cholmod.analyze(a, mode="supernodal", ordering_method="amd"), args.reps)
            fac, t_num = timed(lambda: sym.cholesky(a), args.reps)
            L = fac.L()

            def bordered():
                nu = fac(ones)
                eta = fac(y)
                b = eta.sum() / nu.sum()
                return b, eta - b * nu

            (b, alpha), t_sol = timed(bordered, args.reps)
            resid = np.abs(a @ alpha + b - y).max()
            _, t_total = timed(lambda: cholmod.cholesky(a, ordering_method="amd"), args.reps)
            row.update({
                "peer": "CHOLMOD (scikit-sparse, SuiteSparse %s)" % ".".join(map(str, getattr(cholmod, "__version__", ())) or ["?"]),
                "factor_nnz": int(L.nnz),
                "analyze_seconds": t_an,
                "numeric_factor_seconds": t_num,
                "analyze_plus_factor_seconds": t_total,
                "solve_seconds": t_sol,
                "residual": float(resid),
                "b": float(b),
            })
        else:
            from scipy.sparse.linalg import splu
            lu, t_lu = timed(lambda: splu(a, permc_spec="COLAMD"), args.reps)
            row.update({"peer": "scipy SuperLU splu(COLAMD) (no CHOLMOD)", "lu_seconds": t_lu,
                        "factor_nnz": int(lu.L.nnz + lu.U.nnz)})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
