#!/usr/bin/env python3
"""NumPy peer of kern-tune's bandwidth bisections.

Same data as crates/kern-tune/benches/tune.rs:
  d = 784: the even-numbered rows of mnist_5k.csv.gz (2500 rows, 250 per digit, raw pixels 0-255);
  d = 18:  the LCG set (uniform [0,1)^18 + 1.5*(i mod 3)), n = 2500.
Same algorithms, vectorised with NumPy: squared distances of the pairs i > j from one BLAS GEMM
(||x||^2 + ||y||^2 - 2 X X^T on centred data, then the strict lower triangle), then
  mean-to-half: bracket from ln2/mean(p) (doubling), bisection of log beta, or safeguarded Newton;
  max-variance: bracket by factors of 4 from ln2/mean(p), then bisection of log beta or Newton in
                log beta (rtsafe), with the paper's derivative.
Each criterion evaluation is one np.exp over the flat array. Prints median and min-max of R runs.

Usage: python3 bench/bandwidth_numpy.py [--data-dir data] [--repeats 7]
"""
import argparse
import gzip
import math
import os
import time

import numpy as np


def lcg_data(n, d):
    s = 42
    out = np.empty(n * d)
    m = (1 << 64) - 1
    for k in range(n * d):
        s = (s * 6364136223846793005 + 1442695040888963407) & m
        out[k] = (s >> 11) / float(1 << 53)
    x = out.reshape(n, d)
    x += 1.5 * (np.arange(n) % 3)[:, None]
    return x


def mnist_even(data_dir):
    path = os.path.join(data_dir, "mnist_5k.csv.gz")
    with gzip.open(path, "rt") as f:
        a = np.loadtxt(f, delimiter=",")
    return a[0:5000:2, :-1].copy()


def pairwise(x):
    x = x - x.mean(axis=0)
    g = x @ x.T
    nr = np.einsum("ij,ij->i", x, x)
    i, j = np.tril_indices(x.shape[0], -1)
    p = nr[i] + nr[j] - 2.0 * g[i, j]
    np.maximum(p, 0.0, out=p)
    return p


def mean_to_half(p, newton, tol=1e-12, rtol=1e-12, max_iter=200):
    def ev(b):
        e = np.exp(-b * p)
        return e.mean() - 0.5, -(p * e).mean() if newton else 0.0

    start = math.log(2) / p.mean()
    lo, hi, beta, it = start, math.inf, start, 0
    if not newton:
        hi = start
        while True:
            hi *= 2
            f, _ = ev(hi)
            it += 1
            if f <= 0 or it >= max_iter:
                break
            lo = hi
    while it < max_iter:
        f, fp = ev(beta)
        it += 1
        if abs(f) <= tol:
            break
        if f > 0:
            lo = beta
        else:
            hi = beta
        if newton:
            nb = beta - f / fp
            nxt = nb if lo < nb < hi else (math.sqrt(lo * hi) if math.isfinite(hi) else 2 * lo)
        else:
            nxt = math.sqrt(lo * hi)
        if (hi - lo) <= rtol * beta or abs(nxt - beta) <= rtol * beta:
            beta = nxt
            ev(beta)
            it += 1
            break
        beta = nxt
    return beta, it


def max_variance(p, newton, rtol=1e-12, max_iter=200):
    n = p.size

    def ev(b):
        e = np.exp(-b * p)
        pe = p * e
        e2 = e * e
        s0, s1 = e.sum() / n, pe.sum() / n
        t1 = (p * e2).sum() / n
        g = -2 * t1 + 2 * s0 * s1
        if not newton:
            return g, 0.0
        s2 = (p * pe).sum() / n
        t2 = (p * p * e2).sum() / n
        return g, 4 * t2 - 2 * s1 * s1 - 2 * s0 * s2

    start = math.log(2) / p.mean()
    it = 1
    g0, _ = ev(start)
    if g0 > 0:
        lo = hi = start
        while True:
            hi *= 4
            g, gp = ev(hi)
            it += 1
            if g < 0:
                last = (hi, g, gp)
                break
            lo = hi
    else:
        lo = hi = start
        while True:
            lo /= 4
            g, gp = ev(lo)
            it += 1
            if g > 0:
                last = (lo, g, gp)
                break
            hi = lo
    beta, g, gp = last
    while it < max_iter:
        if newton:
            nb = beta * math.exp(-g / (beta * gp)) if gp < 0 else math.nan
            nxt = nb if (gp < 0 and lo < nb < hi) else math.sqrt(lo * hi)
        else:
            nxt = math.sqrt(lo * hi)
        step = abs(nxt - beta)
        beta = nxt
        g, gp = ev(beta)
        it += 1
        if g > 0:
            lo = beta
        elif g < 0:
            hi = beta
        else:
            break
        if step <= rtol * beta or hi - lo <= rtol * beta:
            break
    return beta, it


def timed(f, repeats):
    ts, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2], ts[0], ts[-1], out


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data-dir", default=os.environ.get("KERN_DATA_DIR", os.path.join(here, "..", "data")))
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args()
    print(f"numpy {np.__version__}; BLAS threads per env (OMP/OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')})")
    sets = [("d784", mnist_even(a.data_dir)), ("d18", lcg_data(2500, 18))]
    for name, x in sets:
        med, lo, hi, p = timed(lambda: pairwise(x), a.repeats)
        print(f"{name}/pairwise_distances: median {med:.4f} s (min {lo:.4f}, max {hi:.4f}), {p.size} pairs")
        for mname, fn in [("mean_to_half", mean_to_half), ("max_variance", max_variance)]:
            for sname, newton in [("newton", True), ("bisection", False)]:
                med, lo, hi, (beta, it) = timed(lambda: fn(pairwise(x), newton), a.repeats)
                print(f"{name}/{mname}_{sname}: median {med:.4f} s (min {lo:.4f}, max {hi:.4f}), beta {beta:.12e}, {it} passes")
            pp = pairwise(x)
            med, lo, hi, (beta, it) = timed(lambda: fn(pp, True), a.repeats)
            print(f"{name}/solve_only_{mname}_newton: median {med:.4f} s (min {lo:.4f}, max {hi:.4f}), {it} passes")


if __name__ == "__main__":
    main()
