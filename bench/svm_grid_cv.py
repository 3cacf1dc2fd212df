#!/usr/bin/env python3
"""`kern cv` against scikit-learn's GridSearchCV(SVC(), n_jobs=2): an 11 x 11 grid of (C, gamma), 5 folds.

The data: green-red (the ESL mixture, as bench/svm_compare.py draws it), n = 1000, seed 11, written
once as a LIBSVM file that both sides read. The grid: C = 2^-5, 2^-3, ..., 2^15 and
gamma = 2^-15, 2^-13, ..., 2^5 (LIBSVM's guide grid), the Gaussian kernel exp(-gamma ||x - y||^2),
tolerance 1e-3, accuracy as the score.

- kern: `kern --quiet cv --model svc --kernel gaussian:gamma=1 --folds 5 --grid ...` (all cores); the
  time is its JSON "seconds" (the search, without reading the file).
- scikit-learn: `GridSearchCV(SVC(), {"C": ..., "gamma": ...}, cv=5, n_jobs=2).fit(x, y)` in a child
  Python process; the time is that of the `fit` call (worker start-up included, as a user pays it).

Both sides use the same folds (unless --own-folds): scikit-learn's default for a classifier,
StratifiedKFold(5) (no shuffle), is drawn once; each sample's test fold is written to a file, one
integer per line, that kern reads (`--folds file:PATH`), and scikit-learn gets the same assignment as
`cv=PredefinedSplit(test_fold)`. The cells' mean scores are then compared cell by cell, and the best
cells with the tie rules: scikit-learn takes the first cell in its parameter order (sorted keys: C
outer, gamma inner) among the top mean scores (rank_test_score == 1 at the lowest index); kern takes
the first cell in grid order (c outer, gamma inner: the same order) with the highest mean.

Rounds alternate the sides (kern, scikit-learn, kern, ...; `--repeats` rounds) so that load from other
processes hits both alike; each side's figure is its best round, and all rounds are printed. Peak RSS
and user CPU are those of the process tree (/usr/bin/time -v). The best cells are compared: each
side's best cell, its score there and the other side's score at that cell (the two use different
fold splits, so the scores differ a little; the cells should agree).

Usage: python3 bench/svm_grid_cv.py [--repeats 3] [--kern target/release/kern] [--cold]
                                    [--threads N] [--json out.json] [--own-folds]
--cold also times `kern cv --no-warm-start` (every fit from zero on its own fold matrix).
Needs `pip install scikit-learn numpy` and `cargo build --release -p kernml-cli`.
"""
import argparse, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from svm_compare import green_red, write_libsvm  # noqa: E402

CS = [2.0 ** e for e in range(-5, 16, 2)]
GAMMAS = [2.0 ** e for e in range(-15, 6, 2)]
GRID = "c=2^-5..2^15:11,gamma=2^-15..2^5:11"
HIDE = ("scores", "order", "rank1")


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (stdout, peak RSS in MiB, user CPU seconds)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
    return p.stdout, rss, user


def kern_cv(a, path, *extra):
    folds = f"file:{a.fold_file}" if a.fold_file else "5"
    cmd = [a.kern, "--quiet", "cv", "--data", path, "--model", "svc", "--kernel", "gaussian:gamma=1",
           "--folds", folds, "--grid", GRID, *extra]
    if a.threads:
        cmd += ["--threads", str(a.threads)]
    out, rss, user = timed(cmd)
    j = json.loads(out.strip().splitlines()[-1])
    scores = {(c["params"]["c"], c["params"]["gamma"]): c["mean"] for c in j["cells"]}
    order = [(c["params"]["c"], c["params"]["gamma"]) for c in j["cells"]]
    best = j["best_params"]
    return dict(seconds=j["seconds"], rss_mib=rss, user_s=user, best=dict(C=best["c"], gamma=best["gamma"]),
                score=j["best_score"], scores=scores, order=order)


SK = """
import json, sys, time
from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.svm import SVC
import numpy as np
x, y = load_svmlight_file(sys.argv[1])
x = x.toarray()
cv = 5 if sys.argv[4] == "-" else PredefinedSplit(np.loadtxt(sys.argv[4], dtype=int))
g = GridSearchCV(SVC(), {"C": json.loads(sys.argv[2]), "gamma": json.loads(sys.argv[3])}, cv=cv, n_jobs=2)
t = time.perf_counter(); g.fit(x, y); s = time.perf_counter() - t
r = g.cv_results_
cells = [[p["C"], p["gamma"], m] for p, m in zip(r["params"], r["mean_test_score"])]
print(json.dumps(dict(seconds=s, best=g.best_params_, score=g.best_score_, cells=cells,
                      rank1=[i for i, k in enumerate(r["rank_test_score"]) if k == 1])))
"""


def sklearn_cv(a, path):
    out, rss, user = timed([sys.executable, "-c", SK, path, json.dumps(CS), json.dumps(GAMMAS), a.fold_file or "-"])
    j = json.loads(out.strip().splitlines()[-1])
    cells = j.pop("cells")
    scores = {(c, g): m for c, g, m in cells}
    order = [(c, g) for c, g, _ in cells]
    return dict(seconds=j["seconds"], rss_mib=rss, user_s=user, best=j["best"], score=j["score"], scores=scores,
                order=order, rank1=[order[i] for i in j["rank1"]])


def write_folds(path, fold_file):
    """scikit-learn's default folds of a classifier, StratifiedKFold(5), as one test fold per line."""
    import numpy as np
    from sklearn.datasets import load_svmlight_file
    from sklearn.model_selection import StratifiedKFold
    x, y = load_svmlight_file(path)
    fold = np.full(len(y), -1, dtype=int)
    for i, (_, test) in enumerate(StratifiedKFold(5).split(x, y)):
        fold[test] = i
    np.savetxt(fold_file, fold, fmt="%d")


def same(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def compare_cells(k, s):
    """Cell-by-cell agreement of the mean scores and both sides' top cells, in each side's order."""
    pairs = [(kc, next(sc for sc in s["order"] if same(sc[0], kc[0]) and same(sc[1], kc[1]))) for kc in k["order"]]
    diffs = [abs(k["scores"][kc] - s["scores"][sc]) for kc, sc in pairs]
    top_k, top_s = max(k["scores"].values()), max(s["scores"].values())
    return dict(
        cells=len(pairs),
        equal_means=sum(d == 0.0 for d in diffs),
        max_abs_mean_diff=max(diffs),
        same_order=all(same(kc[0], sc[0]) and same(kc[1], sc[1]) for kc, sc in zip(k["order"], s["order"])),
        kern_top_cells=[dict(C=c, gamma=g) for c, g in k["order"] if k["scores"][(c, g)] == top_k],
        sklearn_top_cells=[dict(C=c, gamma=g) for c, g in s["order"] if s["scores"][(c, g)] == top_s],
        sklearn_rank1=[dict(C=c, gamma=g) for c, g in s["rank1"]],
    )


def lookup(scores, best):
    for (c, g), m in scores.items():
        if abs(c - best["C"]) <= 1e-9 * c and abs(g - best["gamma"]) <= 1e-9 * g:
            return m
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--kern", default=os.path.join(ROOT, "target/release/kern"))
    p.add_argument("--threads", type=int, default=None, help="kern cv --threads (default: all cores)")
    p.add_argument("--cold", action="store_true", help="time kern cv --no-warm-start too")
    p.add_argument("--work", default="/tmp/kern-grid-cv")
    p.add_argument("--json", default=None)
    p.add_argument("--own-folds", action="store_true",
                   help="each side draws its own 5 folds (kern's seeded k-fold, scikit-learn's StratifiedKFold)")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    x, y, _ = green_red(1000, 11)
    path = os.path.join(a.work, "gr_1000.svm")
    write_libsvm(path, x, [int(v) for v in y])
    a.fold_file = None
    if not a.own_folds:
        a.fold_file = os.path.join(a.work, "gr_1000.folds")
        write_folds(path, a.fold_file)
    runs = {"kern": [], "sklearn": []}
    if a.cold:
        runs["kern_cold"] = []
    for r in range(a.repeats):
        runs["kern"].append(kern_cv(a, path))
        runs["sklearn"].append(sklearn_cv(a, path))
        if a.cold:
            runs["kern_cold"].append(kern_cv(a, path, "--no-warm-start"))
        print(json.dumps({k: {kk: vv for kk, vv in v[-1].items() if kk not in HIDE} for k, v in runs.items()}),
              flush=True)
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in runs.items()}
    k, s = best["kern"], best["sklearn"]
    row = dict(
        problem="green-red n=1000, 11x11 (C, gamma), 5 folds",
        folds="scikit-learn's StratifiedKFold(5) on both sides" if a.fold_file else "each side its own",
        kern={kk: vv for kk, vv in k.items() if kk not in HIDE},
        sklearn={kk: vv for kk, vv in s.items() if kk not in HIDE},
        rounds={name: [r["seconds"] for r in v] for name, v in runs.items()},
        ratio=k["seconds"] / s["seconds"],
        same_best_cell=lookup({(k["best"]["C"], k["best"]["gamma"]): 0}, s["best"]) is not None,
        kern_score_at_sklearn_best=lookup(k["scores"], s["best"]),
        sklearn_score_at_kern_best=lookup(s["scores"], k["best"]),
        cells=compare_cells(k, s),
    )
    if a.cold:
        row["kern_cold"] = {kk: vv for kk, vv in best["kern_cold"].items() if kk not in HIDE}
        row["warm_over_cold"] = k["seconds"] / best["kern_cold"]["seconds"]
    print(json.dumps(row, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(row, f, indent=1)


if __name__ == "__main__":
    main()
