#!/usr/bin/env python3
"""Landmark (Nystroem) kernel models: kern `--landmarks fvs:M` and `random:M` against scikit-learn's
`Nystroem(n_components=M)` + `RidgeClassifier`, on the HIGGS-like set (bench/higgs_like.py).

Both sides solve the same problem. scikit-learn maps x to the Nystroem features
phi(x) = K_mm^{-1/2} k_C(x) of M uniformly drawn centres and fits a ridge classifier with intercept,
min ||y - Phi w - b||^2 + alpha ||w||^2 on +-1 targets; with w = K_mm^{1/2} beta that is
min ||y - K_nm beta - b||^2 + alpha beta' K_mm beta, which is kern's landmark LS-SVM
(`--model lssvm --gam lambda`: shift s = 1/lambda, intercept eliminated) with alpha = 1/lambda. kern's
`random:M` draws its centres uniformly as scikit-learn does; `fvs:M` selects them by feature vector
selection. Kernel: kern's `gaussian:sigma=S` is exp(-r^2/S^2), i.e. scikit-learn's rbf with
gamma = 1/S^2; S defaults to the median distance of 2000 training points (computed here, once, and
passed to both).

Each configuration runs --reps times (different seeds of the centres) as a separate process under
/usr/bin/time -v: training seconds (as reported by the tool itself, excluding file reading; best and
median of the reps), peak RSS (largest over the reps; both sides hold the training set in memory:
kern its n x 28 doubles, scikit-learn a numpy array), and test accuracy on a separate held-out set
(median of the reps). One JSON object per configuration, then (unless --skip-sklearn) one JSON
object per kern configuration with the comparison against scikit-learn at equal m: kern's best
time / scikit-learn's best time (target <= 0.3), kern's peak RSS / scikit-learn's (target <= 0.25) and
the accuracy difference in points, kern's median minus scikit-learn's (target: at least -0.3), then the
same as a Markdown table.

Usage: python3 bench/nystrom_compare.py --kern target/release/kern [--n 200000] [--test 50000]
       [--m 2000] [--lambda 1000] [--reps 3] [--sigma S] [--skip-sklearn]
       [--landmarks fvs random] [--solver auto direct iterative]
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
from higgs_like import higgs_like, write_csv  # noqa: E402
from nd_compare import timed_run  # noqa: E402


def median_distance(x, seed=0, k=2000):
    g = np.random.default_rng(seed)
    s = x[g.choice(len(x), size=min(k, len(x)), replace=False)]
    sq = (s * s).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * s @ s.T, 0.0)
    return float(np.sqrt(np.median(d2[np.triu_indices(len(s), 1)])))


def sklearn_worker(a):
    """Runs inside its own process (so /usr/bin/time sees only it): load, fit, score; prints JSON."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline

    tr = np.loadtxt(a.train, delimiter=",", skiprows=1)
    te = np.loadtxt(a.test_file, delimiter=",", skiprows=1)
    t = time.perf_counter()
    model = make_pipeline(Nystroem(kernel="rbf", gamma=1.0 / a.sigma ** 2, n_components=a.m,
                                   random_state=a.seed),
                          RidgeClassifier(alpha=1.0 / a.lam))
    model.fit(tr[:, :-1], tr[:, -1])
    seconds = time.perf_counter() - t
    acc = float((model.predict(te[:, :-1]) == te[:, -1]).mean())
    print(json.dumps({"seconds": seconds, "accuracy": acc}))


def summary(name, runs):
    secs = sorted(r["seconds"] for r in runs)
    accs = sorted(r["accuracy"] for r in runs)
    return {"tool": name, "reps": len(runs), "best_seconds": secs[0], "median_seconds": secs[len(secs) // 2],
            "max_seconds": secs[-1], "median_accuracy": accs[len(accs) // 2], "accuracies": accs,
            "peak_rss_mib": max(r["rss"] for r in runs), **{k: runs[0][k] for k in runs[0] if k.startswith("x_")}}


def compare(rows, sk):
    """The ratios against scikit-learn (best time, peak RSS, median accuracy), as JSON and Markdown."""
    table = ["| tool | best s | median s | peak RSS MiB | accuracy % | time ratio | RSS ratio | accuracy diff (points) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = {"compare": r["tool"], "against": sk["tool"], "n": r["n"], "m": r["m"],
             "time_ratio": r["best_seconds"] / sk["best_seconds"],
             "rss_ratio": r["peak_rss_mib"] / sk["peak_rss_mib"],
             "accuracy_diff_points": 100.0 * (r["median_accuracy"] - sk["median_accuracy"])}
        c.update({"time_ok": c["time_ratio"] <= 0.3, "rss_ok": c["rss_ratio"] <= 0.25,
                  "accuracy_ok": c["accuracy_diff_points"] >= -0.3})
        print(json.dumps(c), flush=True)
        table.append(f"| {r['tool']} | {r['best_seconds']:.1f} | {r['median_seconds']:.1f} | {r['peak_rss_mib']:.0f} "
                     f"| {100 * r['median_accuracy']:.2f} | {c['time_ratio']:.2f} | {c['rss_ratio']:.2f} "
                     f"| {c['accuracy_diff_points']:+.2f} |")
    table.append(f"| {sk['tool']} | {sk['best_seconds']:.1f} | {sk['median_seconds']:.1f} | "
                 f"{sk['peak_rss_mib']:.0f} | {100 * sk['median_accuracy']:.2f} | 1 | 1 | 0 |")
    print("\n".join(table), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kern", default="target/release/kern")
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--test", type=int, default=50000)
    ap.add_argument("--m", type=int, default=2000)
    ap.add_argument("--lambda", dest="lam", type=float, default=1000.0)
    ap.add_argument("--sigma", type=float)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--landmarks", nargs="*", default=["fvs", "random"])
    ap.add_argument("--solver", nargs="*", default=["auto"],
                    help="kern --solver values to run (auto, direct, iterative)")
    # Worker mode (internal).
    ap.add_argument("--sklearn-worker", action="store_true")
    ap.add_argument("--train")
    ap.add_argument("--test-file")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.sklearn_worker:
        return sklearn_worker(a)
    tmp = tempfile.mkdtemp(prefix="kern-nystrom-")
    rows = []
    try:
        train, test = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        xtr, ytr = higgs_like(a.n, 1)
        write_csv(train, xtr, ytr)
        write_csv(test, *higgs_like(a.test, 2))
        sigma = a.sigma or median_distance(xtr)
        del xtr, ytr
        common = {"n": a.n, "n_test": a.test, "m": a.m, "sigma": sigma, "lambda": a.lam,
                  "sklearn_alpha": 1.0 / a.lam}
        for lm in a.landmarks:
            for solver in a.solver:
                runs = []
                for rep in range(a.reps):
                    model = os.path.join(tmp, "m.kern")
                    j, rss, _ = timed_run([a.kern, "train", "--data", train, "--model", "lssvm",
                                           "--kernel", f"gaussian:sigma={sigma}", "--gam", str(a.lam),
                                           "--landmarks", f"{lm}:{a.m}", "--seed", str(rep),
                                           "--solver", solver, "--out", model])
                    p, _, _ = timed_run([a.kern, "predict", "--data", test, "--model", model])
                    runs.append({"seconds": j["seconds"], "accuracy": p["accuracy"], "rss": rss,
                                 "x_iterations": j.get("iterations"), "x_centres": j.get("centres"),
                                 "x_solved": j.get("solver"), "x_kept": j.get("kept_kernel_matrix")})
                rows.append({**common, **summary(f"kern {lm}:{a.m} --solver {solver}", runs)})
                print(json.dumps(rows[-1]), flush=True)
        if not a.skip_sklearn:
            runs = []
            for rep in range(a.reps):
                j, rss, _ = timed_run([sys.executable, os.path.abspath(__file__), "--sklearn-worker",
                                       "--train", train, "--test-file", test, "--m", str(a.m), "--lambda",
                                       str(a.lam), "--sigma", str(sigma), "--seed", str(rep)])
                runs.append({**j, "rss": rss})
            sk = {**common, **summary(f"scikit-learn Nystroem({a.m}) + RidgeClassifier", runs)}
            print(json.dumps(sk), flush=True)
            compare(rows, sk)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
