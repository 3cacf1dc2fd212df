#!/usr/bin/env python3
"""Peer comparison of kern's SVM with LIBSVM (libsvm-official) and scikit-learn.

Not part of CI. Needs `pip install libsvm-official scikit-learn numpy` and a release build of `kern`
(`cargo build --release -p kernml-cli`). Writes the data sets as LIBSVM files into --work (default
/tmp/kern-svm-compare) so that all three read the same numbers, then for each problem runs every
solver --repeats times (median and spread of the training wall time, excluding file reading for all
three: kern's JSON "seconds", the peers' fit calls) and checks agreement:
dual objective (per binary problem), number of support vectors, test accuracy / RMSE.

Problems:
  green-red  n = 5000 train / 10000 test, Gaussian exp(-r^2/sigma^2) with sigma = 0.6 (gamma = 1/0.36), C = 1
  mnist-5k   data/mnist_5k.csv.gz (or KERN_DATA_DIR), pixels / 255, seeded shuffle, 4000 train / 1000 test,
             gamma = 0.0039, C = 2, one-vs-one over 10 classes (45 binary problems)
  sinc       epsilon-SVR on y = sin(x)/x + N(0, 0.1^2), x ~ U(-10, 10), n = 2000 / 1000 test,
             gamma = 0.5, C = 10, epsilon = 0.1

Usage: python3 bench/svm_compare.py [--repeats 5] [--only green-red,mnist,sinc] [--kern target/release/kern]
"""
import argparse, ctypes, gzip, json, os, re, statistics, subprocess, sys, tempfile, time
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            feats = " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(xi) if v != 0.0)
            lab = f"{yi:.17g}" if isinstance(yi, float) else str(yi)
            f.write(f"{lab} {feats}\n")


def green_red(n, seed, centres=None):
    """Hastie et al.'s mixture: 10 centres per class from N((1,0), I) (green, +1) and N((0,1), I)
    (red, -1); each point = a random centre of its class + N(0, I/5). Classes alternate."""
    rng = np.random.default_rng(seed)
    if centres is None:
        centres = (rng.normal([1.0, 0.0], 1.0, (10, 2)), rng.normal([0.0, 1.0], 1.0, (10, 2)))
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    k = rng.integers(0, 10, n)
    base = np.where((y == 1)[:, None], centres[0][k], centres[1][k])
    return base + rng.normal(0.0, np.sqrt(0.2), (n, 2)), y, centres


def make_data(work):
    os.makedirs(work, exist_ok=True)
    files = {}
    Xtr, ytr, cen = green_red(5000, 2004)
    Xte, yte, _ = green_red(10000, 2005, cen)
    files["green-red"] = (f"{work}/gr_train.svm", f"{work}/gr_test.svm")
    write_libsvm(files["green-red"][0], Xtr, ytr)
    write_libsvm(files["green-red"][1], Xte, yte)
    with gzip.open(os.path.join(os.environ.get("KERN_DATA_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")), "mnist_5k.csv.gz"), "rt") as f:
        a = np.loadtxt(f, delimiter=",")
    rng = np.random.default_rng(5)
    a = a[rng.permutation(len(a))]
    X, y = a[:, :784] / 255.0, a[:, 784].astype(int)
    files["mnist"] = (f"{work}/mnist_train.svm", f"{work}/mnist_test.svm")
    write_libsvm(files["mnist"][0], X[:4000], y[:4000])
    write_libsvm(files["mnist"][1], X[4000:], y[4000:])
    rng = np.random.default_rng(7)
    def sinc(n):
        x = rng.uniform(-10, 10, n)
        return x[:, None], [float(v) for v in np.sinc(x / np.pi) + rng.normal(0, 0.1, n)]
    files["sinc"] = (f"{work}/sinc_train.svm", f"{work}/sinc_test.svm")
    for path, n in zip(files["sinc"], (2000, 1000)):
        X, y = sinc(n)
        write_libsvm(path, X, y)
    return files


PROBLEMS = {
    "green-red": dict(kind="svc", gamma=1 / 0.36, C=1.0, kernel="gaussian:sigma=0.6"),
    "mnist": dict(kind="svc", gamma=0.0039, C=2.0, kernel="gaussian:gamma=0.0039"),
    "sinc": dict(kind="svr", gamma=0.5, C=10.0, eps=0.1, kernel="gaussian:gamma=0.5"),
}


def capture_c_stdout(fn):
    """Runs fn() with the C-level stdout redirected to a temp file; returns (result, text)."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            r = fn()
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        return r, tmp.read()


def run_libsvm(spec, train, test, repeats):
    from libsvm.svmutil import svm_read_problem, svm_train, svm_predict
    ytr, xtr = svm_read_problem(train)
    yte, xte = svm_read_problem(test)
    s = 0 if spec["kind"] == "svc" else 3
    opts = f"-s {s} -t 2 -g {spec['gamma']} -c {spec['C']} -e 0.001 -m 100 -h 1"
    if spec["kind"] == "svr":
        opts += f" -p {spec['eps']}"
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        (m, text) = capture_c_stdout(lambda: svm_train(ytr, xtr, opts))
        times.append(time.perf_counter() - t)
        out = (m, text)
    m, text = out
    objs = [float(v) for v in re.findall(r"obj = ([-\d.e+]+)", text)]
    iters = [int(v) for v in re.findall(r"#iter = (\d+)", text)]
    (_, acc, _), _ = capture_c_stdout(lambda: svm_predict(yte, xte, m, "-q"))
    if spec["kind"] == "svc" and len(objs) > 1:
        # LIBSVM orders classes by first appearance; reorder its pairs to sorted-label order (kern's).
        labels = m.get_labels()
        k = len(labels)
        pairs = [(labels[i], labels[j]) for i in range(k) for j in range(i + 1, k)]
        by_pair = {tuple(sorted(p)): o for p, o in zip(pairs, objs)}
        objs = [by_pair[p] for p in sorted(by_pair)]
    res = dict(times=times, n_sv=m.get_nr_sv(), objective=objs, iterations=sum(iters))
    if spec["kind"] == "svc":
        res["accuracy"] = acc[0] / 100.0
    else:
        res["rmse"] = acc[1] ** 0.5
    return res


def load_dense(path, d=None):
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(path, n_features=d)
    return X.toarray(), y


def run_sklearn(spec, train, test, repeats):
    from sklearn.svm import SVC, SVR
    d = 784 if "mnist" in train else None
    Xtr, ytr = load_dense(train, d)
    Xte, yte = load_dense(test, Xtr.shape[1])
    times = []
    for _ in range(repeats):
        if spec["kind"] == "svc":
            m = SVC(C=spec["C"], gamma=spec["gamma"], tol=1e-3, cache_size=100, shrinking=True)
        else:
            m = SVR(C=spec["C"], gamma=spec["gamma"], epsilon=spec["eps"], tol=1e-3, cache_size=100)
        t = time.perf_counter()
        m.fit(Xtr, ytr)
        times.append(time.perf_counter() - t)
    res = dict(times=times, n_sv=int(m.support_.shape[0]), iterations=int(np.sum(m.n_iter_)))
    if spec["kind"] == "svc":
        res["accuracy"] = float(np.mean(m.predict(Xte) == yte))
        if len(m.classes_) == 2:
            # Dual objective 1/2 (ay)^T K (ay) - sum a, from the support vectors.
            c = m.dual_coef_[0]
            sv = m.support_vectors_
            d2 = ((sv[:, None, :] - sv[None, :, :]) ** 2).sum(-1)
            K = np.exp(-spec["gamma"] * d2)
            res["objective"] = [float(0.5 * c @ K @ c - np.abs(c).sum())]
    else:
        res["rmse"] = float(np.sqrt(np.mean((m.predict(Xte) - yte) ** 2)))
    return res


def run_kern(spec, train, test, repeats, kern, work):
    model = f"{work}/model.kern"
    cmd = [kern, "train", "--data", train, "--model", spec["kind"], "--kernel", spec["kernel"],
           "--c", str(spec["C"]), "--tol", "1e-3", "--cache-mb", "100", "--out", model]
    if spec["kind"] == "svr":
        cmd += ["--epsilon-tube", str(spec["eps"])]
    times = []
    for _ in range(repeats):
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        j = json.loads(r.stdout.strip().splitlines()[-1])
        times.append(j["seconds"])
    p = subprocess.run([kern, "predict", "--model", model, "--data", test], capture_output=True, text=True, check=True)
    pj = json.loads(p.stdout.strip().splitlines()[-1])
    obj = j["objective"] if isinstance(j["objective"], list) else [j["objective"]]
    res = dict(times=times, n_sv=j["n_sv"], objective=obj, iterations=j["iterations"])
    if spec["kind"] == "svc":
        res["accuracy"] = pj["accuracy"]
    else:
        res["rmse"] = pj["rmse"]
    return res


def summary(name, r):
    t = sorted(r["times"])
    med = statistics.median(t)
    line = f"  {name:8s} median {med:7.3f} s  (min {t[0]:.3f}, max {t[-1]:.3f})  n_sv {r['n_sv']:5d}  iters {r['iterations']}"
    if "accuracy" in r:
        line += f"  acc {100 * r['accuracy']:.2f}%"
    if "rmse" in r:
        line += f"  rmse {r['rmse']:.5f}"
    if r.get("objective"):
        line += f"  obj(sum) {sum(r['objective']):.6g}"
    print(line)
    return med


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="green-red,mnist,sinc")
    ap.add_argument("--kern", default=os.path.join(ROOT, "target/release/kern"))
    ap.add_argument("--work", default="/tmp/kern-svm-compare")
    ap.add_argument("--json", default=None, help="write all figures to this JSON file")
    a = ap.parse_args()
    files = make_data(a.work)
    report = {}
    for name in a.only.split(","):
        spec = PROBLEMS[name]
        train, test = files[name]
        print(f"{name}: {spec}")
        res = {
            "libsvm": run_libsvm(spec, train, test, a.repeats),
            "sklearn": run_sklearn(spec, train, test, a.repeats),
            "kern": run_kern(spec, train, test, a.repeats, a.kern, a.work),
        }
        meds = {k: summary(k, v) for k, v in res.items()}
        lib, ours = res["libsvm"], res["kern"]
        if lib["objective"] and len(lib["objective"]) == len(ours["objective"]):
            rel = max(abs(o - l) / abs(l) for o, l in zip(ours["objective"], lib["objective"]))
            print(f"  agreement: max relative objective difference vs LIBSVM {rel:.2e} (target 1e-3)")
        print(f"  agreement: n_sv {ours['n_sv']} vs {lib['n_sv']} ({100 * (ours['n_sv'] - lib['n_sv']) / lib['n_sv']:+.2f}%, target 2%)")
        if "accuracy" in ours:
            print(f"  agreement: accuracy {100 * (ours['accuracy'] - lib['accuracy']):+.2f} points (target 0.5)")
        best = min(meds["libsvm"], meds["sklearn"])
        print(f"  speed: kern / faster peer = {meds['kern'] / best:.3f} (target <= 0.5)")
        report[name] = res
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
