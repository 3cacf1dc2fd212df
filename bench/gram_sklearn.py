#!/usr/bin/env python3
"""Peer timing of dense Gram matrices: scikit-learn's rbf_kernel on the same data as `kern gram`.

Usage: python3 bench/gram_sklearn.py [--repeats 5]
Needs: pip install numpy scikit-learn. Writes the same inputs as LIBSVM files under /tmp so that
`kern gram --data /tmp/kern_gram_d{D}.svm --kernel gaussian:beta=B` runs on identical data.
"""
import argparse, gzip, os, statistics, subprocess, json, time
import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

def data(d, n=5000):
    if d == 784:
        p = os.path.join(os.environ.get("KERN_DATA_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")), "mnist_5k.csv.gz")
        x = np.loadtxt(gzip.open(p), delimiter=",")[:n, :784] / 255.0
        return x, 0.02
    rng = np.random.default_rng(d)
    return rng.uniform(size=(n, d)), 0.5

def write_libsvm(path, x):
    with open(path, "w") as f:
        for row in x:
            f.write("1 " + " ".join(f"{j+1}:{float(v)!r}" for j, v in enumerate(row) if v != 0.0) + "\n")

ap = argparse.ArgumentParser()
ap.add_argument("--repeats", type=int, default=5)
ap.add_argument("--kern", default="target/release/kern")
args = ap.parse_args()
for d in (2, 18, 784):
    x, beta = data(d)
    path = f"/tmp/kern_gram_d{d}.svm"
    write_libsvm(path, x)
    ts = []
    for _ in range(args.repeats):
        t = time.perf_counter(); k = rbf_kernel(x, gamma=beta); ts.append(time.perf_counter() - t)
    ks = []
    for _ in range(args.repeats):
        out = subprocess.run([args.kern, "gram", "--data", path, "--kernel", f"gaussian:beta={beta}"],
                             capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        ks.append(json.loads(out)["seconds"])
    print(f"d={d}: sklearn median {statistics.median(ts):.4f} s (min {min(ts):.4f}, max {max(ts):.4f}); "
          f"kern median {statistics.median(ks):.4f} s (min {min(ks):.4f}, max {max(ks):.4f}); "
          f"ratio {statistics.median(ks)/statistics.median(ts):.2f}")
