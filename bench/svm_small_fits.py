#!/usr/bin/env python3
"""Per-fit time of small (KEEL-sized) C-SVC problems, in one process: kern's library against LIBSVM.

What a grid search pays per (cell, fold) is one in-process fit, so both sides are timed in process:

- kern: the `svm_small_fits` harness of kern-models (crates/kern-models/benches/svm_small_fits.rs),
  a loop of `SvcParams::fit` on samples already in memory. It is built once by cargo and then run
  directly. The library is timed rather than the Python package `kern` so that nothing but the fit
  is on the clock (the package adds its call and conversion overhead, measured within 5 %).
- LIBSVM: libsvm-official's C function `svm_train` called through ctypes on a prebuilt
  `svm_problem` (no Python wrapper, no model conversion), the model freed after each fit.

Both use the same file, the Gaussian kernel exp(-gamma ||x - y||^2) with gamma = 1/d, tolerance
1e-3, shrinking on and a 100 MB cache (LIBSVM `-m 100`, kern's default).

Timing: for each problem and C, `--repeats` rounds, each round one loop of `--fits` fits on each side,
the sides alternating (kern, LIBSVM, kern, LIBSVM, ...) so that load from other processes hits both
alike. A loop's figure is its median per fit; a side's figure is the best (smallest) of its rounds'
medians. Peak RSS is that of the loop's process (/usr/bin/time -v).

Problems (features min-max scaled to [0, 1], labels two classes):
  heart      data/statlog_heart.csv, n = 270, d = 13
  cleveland  data/cleveland.csv, rows with '?' dropped (n = 297), d = 13, label num > 0
  wisconsin  data/wisconsin.csv, n = 683, d = 9
  sonar-like synthetic with sonar's shape (n = 208, d = 60): Breiman's twonorm in d = 60
             (two unit Gaussians with means +-(2/sqrt(60)) 1), seed 7 -- sonar itself is not in data/

Fresh processes (--fresh KERN): the first --fresh-points (100) samples of each problem in a file of
their own, trained --fresh-runs (30) times by `KERN --quiet train --model svc` (the same kernel, C and
tolerance), each run a new process; reported: the best and the median of kern's own "seconds" (the
fit, file reading excluded) and of the process wall time. This is the 100-point fit of the everyday
SVM's targets, as a command-line user meets it (the thread pool, the first touch of every page).

Usage: python3 bench/svm_small_fits.py [--problems heart,cleveland,wisconsin,sonar-like]
                                       [--c 0.1,1,10,100,1000] [--fits 200] [--repeats 3]
                                       [--kern-cache-mb 100] [--json out.json]
       python3 bench/svm_small_fits.py --fresh target/release/kern [--fresh-points 100] [--fresh-runs 30]
Needs `pip install libsvm-official numpy`. One JSON line per (problem, C) on stdout, then a table.
"""
import argparse, json, os, subprocess, sys, time
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from svm_compare import write_libsvm  # noqa: E402
from svm_scale import timed  # noqa: E402


def scaled(x):
    lo, hi = x.min(axis=0), x.max(axis=0)
    return (x - lo) / np.where(hi > lo, hi - lo, 1.0)


def csv_problem(name):
    path = os.path.join(ROOT, "data", name)
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            cells = line.strip().split(",")
            if "?" in cells:
                continue
            rows.append([float(c) for c in cells])
    a = np.array(rows)
    return scaled(a[:, :-1]), a[:, -1]


def problem(name):
    if name == "heart":
        x, y = csv_problem("statlog_heart.csv")
        return x, np.where(y == 1, -1, 1)
    if name == "cleveland":
        x, y = csv_problem("cleveland.csv")
        return x, np.where(y > 0, 1, -1)
    if name == "wisconsin":
        x, y = csv_problem("wisconsin.csv")
        return x, np.where(y == 2, -1, 1)
    if name == "sonar-like":
        rng = np.random.default_rng(7)
        n, d = 208, 60
        y = np.where(np.arange(n) % 2 == 0, 1, -1)
        return rng.normal(0.0, 1.0, (n, d)) + y[:, None] * (2.0 / np.sqrt(d)), y
    raise SystemExit(f"unknown problem {name}")


def harness():
    """Builds the kern-models `svm_small_fits` harness (release) and returns its executable."""
    p = subprocess.run(["cargo", "bench", "-q", "-p", "kernml-models", "--bench", "svm_small_fits", "--no-run",
                        "--message-format=json"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    for line in p.stdout.splitlines():
        j = json.loads(line)
        if j.get("reason") == "compiler-artifact" and j.get("target", {}).get("name") == "svm_small_fits" \
                and j.get("executable"):
            return j["executable"]
    raise RuntimeError("cargo did not report the svm_small_fits executable")


def kern_loop(exe, path, gamma, c, fits, cache_mb):
    out, rss = timed([exe, path, repr(gamma), repr(c), str(fits), repr(cache_mb)])
    j = json.loads(out.strip().splitlines()[-1])
    j["rss_mib"] = rss
    return j


def libsvm_loop_worker(path, gamma, c, fits):
    """In a child process: `fits` calls of LIBSVM's C svm_train on a prebuilt problem."""
    from ctypes import pointer
    from libsvm.svm import libsvm, svm_parameter, svm_problem
    from libsvm.svmutil import svm_read_problem, svm_train
    y, x = svm_read_problem(path)
    prob = svm_problem(y, x)
    param = svm_parameter(f"-s 0 -t 2 -g {gamma!r} -c {c!r} -m 100 -e 0.001 -h 1 -q")
    first = svm_train(prob, param)  # also installs the quiet print function
    ts = []
    for _ in range(fits):
        t = time.perf_counter()
        m = libsvm.svm_train(prob, param)
        ts.append(time.perf_counter() - t)
        libsvm.svm_free_and_destroy_model(pointer(m))
    ts.sort()
    print(json.dumps(dict(median_us=ts[fits // 2] * 1e6, min_us=ts[0] * 1e6, max_us=ts[-1] * 1e6,
                          n_sv=first.get_nr_sv())))


def libsvm_loop(path, gamma, c, fits):
    out, rss = timed([sys.executable, __file__, "--libsvm-loop-worker", path, repr(gamma), repr(c), str(fits)])
    j = json.loads(out.strip().splitlines()[-1])
    j["rss_mib"] = rss
    return j


def fresh_fits(kern, path, gamma, c, runs):
    """`runs` fits of the file at `path`, each by a fresh `kern train`: kern's seconds and the wall times."""
    secs, walls = [], []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run([kern, "--quiet", "train", "--data", path, "--model", "svc", "--kernel",
                            f"gaussian:gamma={gamma!r}", "--c", repr(c), "--tol", "1e-3", "--out",
                            path + ".model"], capture_output=True, text=True)
        walls.append(time.perf_counter() - t)
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-500:])
        j = json.loads(p.stdout.strip().splitlines()[-1])
        secs.append(j["seconds"])
    os.remove(path + ".model")
    return secs, walls, j


def fresh_table(a):
    print(f"{'problem':11s} {'n':>4s} {'d':>3s} {'C':>7s} {'best ms':>8s} {'median ms':>9s} {'wall best ms':>12s} "
          f"{'wall median ms':>14s} {'SV':>4s} {'iters':>6s} placement")
    for name in a.problems.split(","):
        x, y = problem(name)
        x, y = x[:a.fresh_points], y[:a.fresh_points]
        gamma = 1.0 / x.shape[1]
        path = os.path.join(a.work, f"{name}-{len(y)}.svm")
        write_libsvm(path, x, [int(v) for v in y])
        for c in [float(v) for v in a.c.split(",")]:
            secs, walls, j = fresh_fits(a.fresh, path, gamma, c, a.fresh_runs)
            med = lambda v: sorted(v)[len(v) // 2] * 1e3
            print(f"{name:11s} {len(y):4d} {x.shape[1]:3d} {c:7g} {min(secs) * 1e3:8.3f} {med(secs):9.3f} "
                  f"{min(walls) * 1e3:12.2f} {med(walls):14.2f} {j['n_sv']:4d} {j['iterations']:6d} "
                  f"{j.get('placement', '-')}", flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--libsvm-loop-worker":
        return libsvm_loop_worker(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    p = argparse.ArgumentParser()
    p.add_argument("--problems", default="heart,cleveland,wisconsin,sonar-like")
    p.add_argument("--c", default="1,100")
    p.add_argument("--fits", type=int, default=200)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--kern-cache-mb", type=float, default=100.0,
                   help="kern's cache (a budget under 2 n^2 8 bytes makes kern compute columns on demand)")
    p.add_argument("--no-libsvm", action="store_true")
    p.add_argument("--work", default="/tmp/kern-small-fits")
    p.add_argument("--json", default=None)
    p.add_argument("--fresh", default=None, metavar="KERN", help="time fresh `kern train` processes instead")
    p.add_argument("--fresh-points", type=int, default=100)
    p.add_argument("--fresh-runs", type=int, default=30)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.fresh:
        return fresh_table(a)
    exe = harness()
    rows = []
    for name in a.problems.split(","):
        x, y = problem(name)
        gamma = 1.0 / x.shape[1]
        path = os.path.join(a.work, name + ".svm")
        write_libsvm(path, x, [int(v) for v in y])
        for c in [float(v) for v in a.c.split(",")]:
            ks, ls = [], []
            for _ in range(a.repeats):
                ks.append(kern_loop(exe, path, gamma, c, a.fits, a.kern_cache_mb))
                if not a.no_libsvm:
                    ls.append(libsvm_loop(path, gamma, c, a.fits))
            k = min(ks, key=lambda r: r["median_us"])
            row = dict(problem=name, n=len(y), d=x.shape[1], gamma=gamma, c=c, fits=a.fits,
                       kern=k, kern_medians_us=[r["median_us"] for r in ks])
            if ls:
                lb = min(ls, key=lambda r: r["median_us"])
                row.update(libsvm=lb, libsvm_medians_us=[r["median_us"] for r in ls],
                           ratio=k["median_us"] / lb["median_us"])
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print(f"{'problem':11s} {'n':>4s} {'d':>3s} {'C':>7s} {'kern us':>9s} {'LIBSVM us':>10s} {'ratio':>6s} "
          f"{'kern SV':>7s} {'LIBSVM SV':>9s} {'iters':>6s} plan")
    for r in rows:
        lb = r.get("libsvm", {})
        print(f"{r['problem']:11s} {r['n']:4d} {r['d']:3d} {r['c']:7g} {r['kern']['median_us']:9.1f} "
              f"{lb.get('median_us', float('nan')):10.1f} {r.get('ratio', float('nan')):6.2f} "
              f"{r['kern']['n_sv']:7d} {lb.get('n_sv', 0):9d} {r['kern']['iterations']:6d} "
              f"{r['kern'].get('plan', '?')}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
