#!/usr/bin/env python3
"""Orderings (AMD / RCM / nested dissection) and solvers (direct / conjugate gradients) of kern's sparse
path on green-red data, each run under /usr/bin/time -v for the peak memory.

Data: the green-red mixture of Hastie, Tibshirani & Friedman (ESL 2.3) as in the CS-RBF paper: 10
centres per class from N((1,0), I) / N((0,1), I), each point one of its class's centres plus N(0, I/5);
seeded (numpy PCG64), written as CSV to a temporary directory that is removed at the end.

For every n:
  - `kern sparse --order amd|rcm|nd|auto`: nnz(L), ordering, symbolic and numeric factor seconds, peak RSS;
  - `kern train --model lssvm --solver direct|iterative` at fixed lambda and `kern predict` on a held-out
    set: seconds, iterations, final relative residual, test accuracy, peak RSS.
Prints one JSON object per run.

Usage: python3 bench/nd_compare.py --kern target/release/kern --n 20000 50000 [--reps 1]
       [--kernel cs-gaussian:sigma=0.6,c=0.12,nu=3] [--lambda 1] [--tol 1e-6] [--orders amd rcm nd auto]
       [--solvers direct iterative] [--preconditioners block-jacobi:256]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np


def green_red(n, seed, centres_seed=1):
    r = np.random.default_rng(centres_seed)
    neg = r.standard_normal((10, 2)) + [1.0, 0.0]
    pos = r.standard_normal((10, 2)) + [0.0, 1.0]
    g = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, -1, 1)
    idx = g.integers(0, 10, n)
    c = np.where((y > 0)[:, None], pos[idx], neg[idx])
    x = c + g.standard_normal((n, 2)) * np.sqrt(0.2)
    return x, y


def write_csv(path, x, y):
    with open(path, "w") as f:
        f.write("x1,x2,label\n")
        np.savetxt(f, np.column_stack([x, y]), delimiter=",", fmt=["%.17g", "%.17g", "%d"])


def timed_run(cmd):
    """Runs cmd under /usr/bin/time -v; returns (last JSON line of stdout, peak RSS in MiB, wall s)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", p.stderr).group(1)
    parts = [float(v) for v in wall.split(":")]
    secs = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    return json.loads(p.stdout.strip().splitlines()[-1]), rss, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kern", default="target/release/kern")
    ap.add_argument("--n", type=int, nargs="+", default=[20000, 50000])
    ap.add_argument("--kernel", default="cs-gaussian:sigma=0.6,c=0.12,nu=3")
    ap.add_argument("--lambda", dest="lam", default="1")
    ap.add_argument("--tol", default="1e-6")
    ap.add_argument("--orders", nargs="*", default=["amd", "rcm", "nd", "auto"])
    ap.add_argument("--solvers", nargs="*", default=["direct", "iterative"])
    ap.add_argument("--preconditioners", nargs="*", default=["block-jacobi:256"])
    ap.add_argument("--reps", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kern-nd-")
    try:
        test = os.path.join(tmp, "test.csv")
        write_csv(test, *green_red(10000, 99))
        for n in a.n:
            data = os.path.join(tmp, f"gr{n}.csv")
            write_csv(data, *green_red(n, n))
            for order in a.orders:
                for rep in range(a.reps):
                    j, rss, wall = timed_run([a.kern, "sparse", "--data", data, "--kernel", a.kernel,
                                              "--order", order, "--lambda", a.lam])
                    print(json.dumps({"run": "sparse", "n": n, "order": order, "rep": rep,
                                      "nnz": j["nnz"], "factor_nnz": j["factor_nnz"],
                                      "order_seconds": j["order_seconds"],
                                      "symbolic_seconds": j["symbolic_seconds"],
                                      "numeric_seconds": j["numeric_seconds"],
                                      "peak_rss_mib": rss, "wall_seconds": wall}), flush=True)
            for solver in a.solvers:
                pres = a.preconditioners if solver == "iterative" else ["-"]
                for pre in pres:
                    for rep in range(a.reps):
                        model = os.path.join(tmp, "m.lssvm")
                        cmd = [a.kern, "train", "--data", data, "--model", "lssvm", "--kernel", a.kernel,
                               "--lambda", a.lam, "--path", "sparse", "--solver", solver, "--order", "auto",
                               "--tol", a.tol, "--out", model]
                        if solver == "iterative":
                            cmd += ["--preconditioner", pre]
                        j, rss, wall = timed_run(cmd)
                        pj, _, _ = timed_run([a.kern, "predict", "--data", test, "--model", model])
                        print(json.dumps({"run": "train", "n": n, "solver": j["solver"], "preconditioner": pre,
                                          "rep": rep, "seconds": j["seconds"],
                                          "factor_seconds": j["factor_seconds"],
                                          "iterations": j["iterations"], "residual": j["residual"],
                                          "test_accuracy": pj["accuracy"], "peak_rss_mib": rss,
                                          "wall_seconds": wall}), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
