#!/usr/bin/env python3
"""Training time of kern's SVM against n, next to LIBSVM (libsvm-official) and scikit-learn.

Not part of CI. Needs `pip install libsvm-official scikit-learn numpy` and a release build of `kern`
(`cargo build --release -p kernml-cli`). Data are written as LIBSVM files into --work (default
/tmp/kern-svm-scale) so every tool reads the same numbers. Each run is a separate process under
`/usr/bin/time -v` (peak RSS); the time reported is the training time (kern's JSON "seconds", the
peers' fit call), best of --repeats.

Problems:
  gr-N        green-red (the ESL mixture as bench/svm_compare.py draws it), n = N, Gaussian
              exp(-r^2/sigma^2), sigma = 0.6 (gamma = 1/0.36), C = 1
  grcs-N      green-red n = N with the compactly supported kernel cs-gaussian:sigma=0.6,c=0.1,nu=3,
              C = 1 (kern only: LIBSVM has no compact kernels); the file is written once and reused
  twonorm-N   Breiman's twonorm: d = 20, two Gaussians with means +-(2/sqrt(20)) 1, unit covariance,
              gamma = 0.05, C = 1
  keel        per-fit time on statlog_heart.csv and wisconsin.csv (features min-max scaled to [0, 1],
              gamma = 1/d, C = 1)
  keel-inproc per-fit time in one process (what a grid search pays per fit): the KEEL problems
              above fitted --fits times in a loop by kern's library (the `svm_small_fits` bench
              harness of kern-models, built by cargo) and by LIBSVM (libsvm-official's svm_train on
              a prebuilt problem); median per fit, and kern's objective / rho / #SV to compare
  cv          an 11 x 11 grid of (C, gamma), 5 folds, on green-red n = 1000: `kern cv` against
              scikit-learn's GridSearchCV(SVC(), n_jobs=2); the best cells are compared. With
              --cv-cold, `kern cv --no-warm-start` is timed too (every fit from zero on its own
              fold matrix, the search before warm starts)

Usage: python3 bench/svm_scale.py [--only gr-5000,gr-50000,twonorm-100000,keel,keel-inproc,cv]
                                  [--repeats 3] [--kern target/release/kern] [--no-libsvm]
                                  [--fits 200] [--cv-cold]
"""
import argparse, json, os, re, subprocess, sys, time
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from svm_compare import green_red, write_libsvm  # noqa: E402


def twonorm(n, seed):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    a = 2.0 / np.sqrt(20.0)
    return rng.normal(0.0, 1.0, (n, 20)) + (y[:, None] * a), y


def keel(path):
    a = np.genfromtxt(path, delimiter=",", skip_header=1)
    x, y = a[:, :-1], a[:, -1]
    lo, hi = x.min(axis=0), x.max(axis=0)
    x = (x - lo) / np.where(hi > lo, hi - lo, 1.0)
    labels = sorted(set(y))
    return x, np.where(y == labels[0], -1, 1)


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (stdout, peak RSS in MiB)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return p.stdout, rss


def kern_train(kern, path, kernel, c, extra=()):
    out, rss = timed([kern, "--quiet", "train", "--data", path, "--model", "svc", "--kernel", kernel,
                      "--c", str(c), "--out", path + ".kmodel", *extra])
    j = json.loads(out.strip().splitlines()[-1])
    m = j.get("machines", [{}])[0] if isinstance(j.get("machines"), list) else {}
    return dict(seconds=j["seconds"], rss=rss, obj=m.get("objective"), n_sv=j.get("n_sv", m.get("n_sv")),
                iterations=m.get("iterations"))


def libsvm_worker(path, gamma, c):
    """In a child process: LIBSVM's training time on the file, its objective and #SV."""
    from libsvm.svmutil import svm_read_problem, svm_problem, svm_parameter, svm_train
    import ctypes, tempfile
    y, x = svm_read_problem(path)
    prob = svm_problem(y, x)
    param = svm_parameter(f"-s 0 -t 2 -g {gamma!r} -c {c!r} -m 200 -e 0.001")
    # LIBSVM prints "obj = ..." on C stdout: capture it through a temporary file descriptor.
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile() as tmp:
        fd = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        t = time.perf_counter()
        m = svm_train(prob, param)
        secs = time.perf_counter() - t
        libc.fflush(None)
        os.dup2(fd, 1)
        tmp.seek(0)
        text = tmp.read().decode()
    obj = [float(v) for v in re.findall(r"obj = (\S+),", text)]
    print(json.dumps(dict(seconds=secs, obj=obj[0] if obj else None, n_sv=m.get_nr_sv())))


def libsvm_loop_worker(path, gamma, c, fits):
    """In a child process: LIBSVM's per-fit time, `fits` fits of a prebuilt problem in a loop."""
    from libsvm.svmutil import svm_read_problem, svm_problem, svm_parameter, svm_train
    y, x = svm_read_problem(path)
    prob = svm_problem(y, x)
    param = svm_parameter(f"-s 0 -t 2 -g {gamma!r} -c {c!r} -m 100 -e 0.001 -q")
    svm_train(prob, param)
    ts = []
    for _ in range(fits):
        t = time.perf_counter()
        m = svm_train(prob, param)
        ts.append(time.perf_counter() - t)
    ts.sort()
    print(json.dumps(dict(median_us=ts[fits // 2] * 1e6, min_us=ts[0] * 1e6, max_us=ts[-1] * 1e6,
                          n_sv=m.get_nr_sv())))


def kern_loop(path, gamma, c, fits):
    """kern's per-fit time through the svm_small_fits bench harness (built and run by cargo)."""
    p = subprocess.run(["cargo", "bench", "-q", "-p", "kernml-models", "--bench", "svm_small_fits", "--",
                        path, repr(gamma), repr(c), str(fits)], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def keel_inproc(a):
    for f in ["statlog_heart.csv", "wisconsin.csv"]:
        x, y = keel(os.path.join(ROOT, "data", f))
        gamma = 1.0 / x.shape[1]
        path = os.path.join(a.work, "keel-" + f[:-4] + ".svm")
        if not os.path.exists(path):
            write_libsvm(path, x, [int(v) for v in y])
        for c in [1.0, 100.0]:
            row = dict(problem="keel-inproc-" + f[:-4], n=len(y), c=c, fits=a.fits,
                       kern=kern_loop(path, gamma, c, a.fits))
            if not a.no_libsvm:
                out, _ = timed([sys.executable, __file__, "--libsvm-loop-worker", path, repr(gamma), repr(c),
                                str(a.fits)])
                row["libsvm"] = json.loads(out.strip().splitlines()[-1])
                row["ratio"] = row["kern"]["median_us"] / row["libsvm"]["median_us"]
            print(json.dumps(row), flush=True)


def libsvm_train(path, gamma, c):
    out, rss = timed([sys.executable, __file__, "--libsvm-worker", path, repr(gamma), repr(c)])
    j = json.loads(out.strip().splitlines()[-1])
    j["rss"] = rss
    return j


def best_of(f, repeats):
    runs = [f() for _ in range(repeats)]
    secs = [r["seconds"] for r in runs]
    r = min(runs, key=lambda r: r["seconds"])
    r["all_seconds"] = secs
    return r


def binary_problem(a, name, x, y, gamma, kernel, c=1.0):
    path = os.path.join(a.work, name + ".svm")
    if not os.path.exists(path):
        write_libsvm(path, x, [int(v) for v in y])
    k = best_of(lambda: kern_train(a.kern, path, kernel, c), a.repeats)
    row = dict(problem=name, n=len(y), kern=k)
    if not a.no_libsvm and gamma is not None:
        row["libsvm"] = best_of(lambda: libsvm_train(path, gamma, c), a.repeats)
        row["ratio"] = k["seconds"] / row["libsvm"]["seconds"]
    return row


def cv_problem(a):
    x, y, _ = green_red(1000, 11)
    path = os.path.join(a.work, "cv_gr_1000.svm")
    write_libsvm(path, x, [int(v) for v in y])
    cs = [2.0 ** e for e in range(-5, 16, 2)]
    gammas = [2.0 ** e for e in range(-15, 6, 2)]
    grid = f"c=2^-5..2^15:11,gamma=2^-15..2^5:11"
    def kern_cv(*extra):
        out, rss = timed([a.kern, "--quiet", "cv", "--data", path, "--model", "svc", "--kernel", "gaussian:gamma=1",
                          "--folds", "5", "--grid", grid, *extra])
        j = json.loads(out.strip().splitlines()[-1])
        return dict(seconds=j["seconds"], rss=rss, best=j["best_params"], score=j["best_score"])
    k = best_of(kern_cv, a.repeats)
    row = dict(problem="cv-11x11-5fold", n=1000, kern=k)
    if a.cv_cold:
        row["kern_cold"] = best_of(lambda: kern_cv("--no-warm-start"), a.repeats)
        row["warm_over_cold"] = k["seconds"] / row["kern_cold"]["seconds"]
    code = f"""
import json, time, numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC
x, y = load_svmlight_file({path!r})
x = x.toarray()
g = GridSearchCV(SVC(), {{"C": {cs!r}, "gamma": {gammas!r}}}, cv=5, n_jobs=2)
t = time.perf_counter(); g.fit(x, y); s = time.perf_counter() - t
print(json.dumps(dict(seconds=s, best=g.best_params_, score=g.best_score_)))
"""
    def sk():
        out, rss = timed([sys.executable, "-c", code])
        j = json.loads(out.strip().splitlines()[-1])
        j["rss"] = rss
        return j
    row["sklearn"] = best_of(sk, a.repeats)
    row["ratio"] = k["seconds"] / row["sklearn"]["seconds"]
    return row


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--libsvm-worker":
        return libsvm_worker(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    if len(sys.argv) > 1 and sys.argv[1] == "--libsvm-loop-worker":
        return libsvm_loop_worker(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="gr-5000,gr-20000,gr-50000,twonorm-100000,keel,cv")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--kern", default=os.path.join(ROOT, "target/release/kern"))
    p.add_argument("--work", default="/tmp/kern-svm-scale")
    p.add_argument("--no-libsvm", action="store_true")
    p.add_argument("--fits", type=int, default=200, help="fits per loop of keel-inproc")
    p.add_argument("--cv-cold", action="store_true", help="time kern cv --no-warm-start too")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for prob in a.only.split(","):
        if prob.startswith("gr-"):
            n = int(prob[3:])
            x, y, _ = green_red(n, 2004)
            row = binary_problem(a, prob, x, y, 1 / 0.36, "gaussian:sigma=0.6")
        elif prob.startswith("grcs-"):
            n = int(prob[5:])
            x, y, _ = green_red(n, 2004)
            row = binary_problem(a, prob, x, y, None, "cs-gaussian:sigma=0.6,c=0.1,nu=3")
        elif prob.startswith("twonorm-"):
            n = int(prob[8:])
            x, y = twonorm(n, 1)
            row = binary_problem(a, prob, x, y, 0.05, "gaussian:gamma=0.05")
        elif prob == "keel":
            for f in ["statlog_heart.csv", "wisconsin.csv"]:
                x, y = keel(os.path.join(ROOT, "data", f))
                gamma = 1.0 / x.shape[1]
                row = binary_problem(a, "keel-" + f[:-4], x, y, gamma, f"gaussian:gamma={gamma!r}")
                print(json.dumps(row), flush=True)
            continue
        elif prob == "keel-inproc":
            keel_inproc(a)
            continue
        elif prob == "cv":
            row = cv_problem(a)
        else:
            raise SystemExit(f"unknown problem {prob}")
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
