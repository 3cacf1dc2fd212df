#!/usr/bin/env python3
"""Bag-of-words C-SVC: kern against scikit-learn's SVC on a SciPy CSR matrix and LIBSVM
(libsvm-official), linear and Gaussian kernels, on the sparse set of bench/bow_gen.py.

Not part of CI. Needs `pip install libsvm-official scikit-learn scipy numpy` and a release build of
`kern` (`cargo build --release -p kernml-cli`). Every solver runs in its own process under
`/usr/bin/time -v` (peak resident memory of that process), single process each, `--repeats` times in
the same run; the reported training time is the best of the repeats (kern: its JSON "seconds"; the
peers: the fit call), excluding file reading for all three. Reported per solver: test accuracy,
number of support vectors, best training time, peak RSS (largest over the repeats), and the CSR size
of the training data (8-byte values + 4-byte indices + row pointers, what LIBSVM-style sparse input
holds).

    python3 bench/bow_compare.py --n-train 20000 --n-test 5000 --d 1000000 [--repeats 3]
        [--work /tmp/kern-bow] [--kern target/release/kern] [--only linear,gaussian] [--kern-threads N]
        [--peers libsvm,sklearn]   (--peers "" runs kern alone)

kern runs on all cores unless --kern-threads is given (the peers run on one thread); the report
prints the thread count next to kern's time.

The data files are generated once per (n, d, seed) into --work with bench/bow_gen.py.
"""
import argparse, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Rows are L2-normalised tf-idf vectors: squared distances lie in [0, 2], so gamma = 1 spreads the
# Gaussian over its useful range; C = 1 for both kernels (LIBSVM's default).
PROBLEMS = {
    "linear": dict(kern="linear", libsvm="-t 0", sk=dict(kernel="linear"), C=1.0),
    "gaussian": dict(kern="gaussian:gamma=1", libsvm="-t 2 -g 1", sk=dict(kernel="rbf", gamma=1.0), C=1.0),
}

PEER = r'''
import json, sys, time, re, os, ctypes
# SciPy try-imports scikit-sparse; a scikit-sparse built against another NumPy raises ValueError (not
# ImportError) there and breaks `import sklearn`. Neither peer needs it: hide it.
sys.modules["sksparse"] = None
sys.modules["sksparse.cholmod"] = None
which, train, test, C, repeats, extra = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), json.loads(sys.argv[6])
times = []
if which == "libsvm":
    from libsvm.svmutil import svm_read_problem, svm_train, svm_predict
    ytr, xtr = svm_read_problem(train)
    yte, xte = svm_read_problem(test)
    for _ in range(repeats):
        t = time.perf_counter()
        m = svm_train(ytr, xtr, f"{extra} -c {C} -e 0.001 -m 100 -h 1 -q")
        times.append(time.perf_counter() - t)
    _, acc, _ = svm_predict(yte, xte, m, "-q")
    out = dict(times=times, n_sv=m.get_nr_sv(), accuracy=acc[0] / 100.0)
else:
    import numpy as np
    from sklearn.datasets import load_svmlight_files
    from sklearn.svm import SVC
    # Read together: both matrices get the width of the wider file (test words the training set never
    # saw are zero columns of the training matrix, as for LIBSVM and kern).
    Xtr, ytr, Xte, yte = load_svmlight_files([train, test])
    for X in (Xtr, Xte):  # SVC takes 32-bit index arrays only (the reader may give 64-bit ones)
        X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    for _ in range(repeats):
        m = SVC(C=C, tol=1e-3, cache_size=100, shrinking=True, **extra)
        t = time.perf_counter()
        m.fit(Xtr, ytr)
        times.append(time.perf_counter() - t)
    out = dict(times=times, n_sv=int(m.support_.shape[0]), accuracy=float(np.mean(m.predict(Xte) == yte)))
print("RESULT " + json.dumps(out))
'''


def timed(cmd):
    """Runs cmd under /usr/bin/time -v: (stdout, peak RSS in MiB)."""
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-3000:]}")
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    return r.stdout, kb / 1024.0


def csr_mib(path):
    n = nnz = 0
    with open(path) as f:
        for line in f:
            n += 1
            nnz += line.count(":")
    return (nnz * 12 + (n + 1) * 8) / 2**20, n, nnz


def run_peer(which, prob, train, test, repeats):
    extra = prob["libsvm"] if which == "libsvm" else prob["sk"]
    out, rss = timed([sys.executable, "-c", PEER, which, train, test, str(prob["C"]), str(repeats), json.dumps(extra)])
    res = json.loads(out.split("RESULT ", 1)[1])
    res["rss"] = rss
    return res


def run_kern(prob, train, test, repeats, kern, work, threads):
    model = f"{work}/bow_model.kern"
    cmd = [kern, "train", "--data", train, "--model", "svc", "--kernel", prob["kern"], "--c", str(prob["C"]),
           "--tol", "1e-3", "--cache-mb", "100", "--out", model]
    if threads:
        cmd += ["--threads", str(threads)]
    times, rss = [], 0.0
    for _ in range(repeats):
        out, r = timed(cmd)
        j = json.loads(out.strip().splitlines()[-1])
        times.append(j["seconds"])
        rss = max(rss, r)
    out, prss = timed([kern, "predict", "--model", model, "--data", test])
    pj = json.loads(out.strip().splitlines()[-1])
    return dict(times=times, n_sv=j["n_sv"], accuracy=pj["accuracy"], rss=rss, predict_rss=prss,
                storage=j.get("storage"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-train", type=int, default=20000)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--d", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", default="/tmp/kern-bow")
    ap.add_argument("--kern", default=os.path.join(ROOT, "target/release/kern"))
    ap.add_argument("--only", default="linear,gaussian")
    ap.add_argument("--peers", default="libsvm,sklearn")
    ap.add_argument("--kern-threads", type=int, default=0, help="kern's --threads (0: all cores)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    prefix = f"{a.work}/bow_{a.n_train}_{a.n_test}_{a.d}_{a.seed}"
    train, test = f"{prefix}.train.svm", f"{prefix}.test.svm"
    if not (os.path.exists(train) and os.path.exists(test)):
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/bow_gen.py"), "--out", prefix,
                        "--n-train", str(a.n_train), "--n-test", str(a.n_test), "--d", str(a.d),
                        "--seed", str(a.seed)], check=True)
    mib, n, nnz = csr_mib(train)
    print(f"train {n} x {a.d}, {nnz} nonzeros ({nnz / n:.1f} per row), CSR {mib:.1f} MiB; test {a.n_test}")
    for name in a.only.split(","):
        prob = PROBLEMS[name]
        res = {"kern": run_kern(prob, train, test, a.repeats, a.kern, a.work, a.kern_threads)}
        peer_names = [p for p in a.peers.split(",") if p]
        for peer in peer_names:
            res[peer] = run_peer(peer, prob, train, test, a.repeats)
        threads = a.kern_threads or os.cpu_count()
        print(f"{name} C-SVC (C = {prob['C']}, kern kernel {prob['kern']}, kern on {threads} thread(s)):")
        for who, r in res.items():
            print(f"  {who:8s} best {min(r['times']):8.3f} s  (all {', '.join(f'{t:.3f}' for t in r['times'])})"
                  f"  n_sv {r['n_sv']:6d}  acc {100 * r['accuracy']:.2f}%  peak RSS {r['rss']:8.1f} MiB")
        peers = [res[p] for p in peer_names]
        if not peers:  # --peers "": kern alone (its time and memory)
            print("RESULT " + json.dumps({name: res}))
            continue
        best = min(min(p["times"]) for p in peers)
        k = res["kern"]
        print(f"  kern / faster peer time {min(k['times']) / best:.2f}; kern peak RSS / CSR {k['rss'] / mib:.1f}; "
              f"accuracy diff {100 * (k['accuracy'] - peers[0]['accuracy']):+.2f} pts vs {peer_names[0]}; "
              f"n_sv diff {100 * (k['n_sv'] - peers[0]['n_sv']) / max(1, peers[0]['n_sv']):+.2f}%")
        print("RESULT " + json.dumps({name: res}))


if __name__ == "__main__":
    main()
