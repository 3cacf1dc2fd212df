#!/usr/bin/env python3
"""Cost growth against n of kern's large-n paths: direct (sparse Cholesky) and iterative (conjugate
gradients) LS-SVM on the sparse K_C, Nystroem landmark LS-SVM, and 8-component kernel PCA on the sparse
K_C (block Krylov). One JSON object per (path, n): seconds, peak RSS (/usr/bin/time -v), iterations
or matrix products, test accuracy where there is one.

Data: green-red (bench/nd_compare.py's seeded generator) at n = 50k, 200k, 1M; test set 10,000 points.
Compact kernel cs-gaussian:sigma=0.6,c=C(n),nu=3 with C(n) = --c0 * sqrt(--n0 / n): the support radius
shrinks as the points get denser so that every row keeps about the same number of neighbours (about 100
at the defaults: c = 0.0514 gave 147 stored entries per row at n = 200,000, and the count grows like
n c^2, hence c0 = 0.0424 at n0 = 200,000), so that 1,000,000 points have about 100 neighbours per
row. Current figures: docs/benchmarks.md. The Nystroem path uses
gaussian:sigma=0.6 with --landmarks random:M (default 1000), the same lambda.

Direct runs above --direct-max-n are skipped (the factor of a 2-D geometric graph grows like n log n:
tens of GiB at 1M) and reported as such.

At the end: the cost-growth table in Markdown, one row per (path, n): best seconds over the reps,
largest peak RSS, iterations (LS-SVM paths, worst over the solves) or matrix products (KPCA), test
accuracy; skipped runs say why.

Usage: python3 bench/cost_growth.py --kern target/release/kern [--n 50000 200000 1000000]
       [--paths direct iterative nystrom kpca] [--lambda 1] [--m 1000] [--reps 1]
"""
import argparse
import json
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nd_compare import green_red, timed_run, write_csv  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kern", default="target/release/kern")
    ap.add_argument("--n", type=int, nargs="+", default=[50000, 200000, 1000000])
    ap.add_argument("--paths", nargs="*", default=["direct", "iterative", "nystrom", "kpca"])
    ap.add_argument("--c0", type=float, default=0.0424)
    ap.add_argument("--n0", type=float, default=200000)
    ap.add_argument("--lambda", dest="lam", default="1")
    ap.add_argument("--m", type=int, default=1000)
    ap.add_argument("--tol", default="1e-6")
    ap.add_argument("--kpca-tol", default="1e-6")
    ap.add_argument("--direct-max-n", type=int, default=200000)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--threads", type=int)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kern-growth-")
    rows = []
    threads = ["--threads", str(a.threads)] if a.threads else []
    try:
        test = os.path.join(tmp, "test.csv")
        write_csv(test, *green_red(10000, 99))
        for n in a.n:
            data = os.path.join(tmp, f"gr{n}.csv")
            write_csv(data, *green_red(n, n))
            c = a.c0 * math.sqrt(a.n0 / n)
            compact = f"cs-gaussian:sigma=0.6,c={c:.6g},nu=3"
            for path in a.paths:
                if path == "direct" and n > a.direct_max_n:
                    rows.append({"path": path, "n": n, "skipped": f"n > --direct-max-n {a.direct_max_n}"})
                    print(json.dumps(rows[-1]), flush=True)
                    continue
                model = os.path.join(tmp, "m.kern")
                if path in ("direct", "iterative"):
                    cmd = [a.kern, "train", "--data", data, "--model", "lssvm", "--kernel", compact, "--gam",
                           a.lam, "--path", "sparse", "--solver", path, "--tol", a.tol, "--out", model]
                elif path == "nystrom":
                    cmd = [a.kern, "train", "--data", data, "--model", "lssvm", "--kernel", "gaussian:sigma=0.6",
                           "--gam", a.lam, "--landmarks", f"random:{a.m}", "--tol", a.tol, "--out", model]
                else:
                    cmd = [a.kern, "kpca", "--data", data, "--kernel", compact, "--components", "8",
                           "--tol", a.kpca_tol]
                for rep in range(a.reps):
                    j, rss, wall = timed_run(cmd + threads)
                    row = {"path": path, "n": n, "rep": rep, "kernel": cmd[cmd.index("--kernel") + 1],
                           "seconds": j["seconds"], "wall_seconds": wall, "peak_rss_mib": rss}
                    if path == "kpca":
                        row.update({"matvecs": j["matvecs"], "restarts": j["restarts"], "residual": j["residual"],
                                    "solver": j["solver"], "gram_path": j["path"],
                                    "eigenvalues": j["eigenvalues"]})
                    else:
                        p, _, _ = timed_run([a.kern, "predict", "--data", test, "--model", model])
                        row.update({"iterations": j.get("iterations"), "residual": j.get("residual"),
                                    "solver": j.get("solver"), "test_accuracy": p["accuracy"]})
                    rows.append(row)
                    print(json.dumps(row), flush=True)
            os.remove(data)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(table(rows), flush=True)


def table(rows):
    """The cost-growth table: per (path, n) the best seconds over the reps and the largest peak RSS."""
    out = ["| path | n | kernel | best s | peak RSS MiB | iterations / products | test accuracy |",
           "|---|---|---|---|---|---|---|"]
    keys = []
    for r in rows:
        if (r["path"], r["n"]) not in keys:
            keys.append((r["path"], r["n"]))
    for path, n in keys:
        rs = [r for r in rows if r["path"] == path and r["n"] == n]
        if "skipped" in rs[0]:
            out.append(f"| {path} | {n} | | skipped: {rs[0]['skipped']} | | | |")
            continue
        work = rs[0].get("matvecs", rs[0].get("iterations"))
        work = "—" if work is None else work
        acc = rs[0].get("test_accuracy")
        out.append(f"| {path} | {n} | {rs[0]['kernel']} | {min(r['seconds'] for r in rs):.1f} | "
                   f"{max(r['peak_rss_mib'] for r in rs):.0f} | {work} | "
                   f"{'' if acc is None else f'{100 * acc:.2f} %'} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
