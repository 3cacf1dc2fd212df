#!/usr/bin/env python3
"""Peer check for kern-repro's `rkhs-svm` MNIST rows: scikit-learn's SVC (LIBSVM) on the same protocol.

The 5,000-image subset (KERN_DATA_DIR/mnist_5k.csv.gz, label last), pixels / 255, random 4000 / 1000
splits (numpy seeds 0..R-1; kern-repro uses its own seeded split, so compare spreads, not single runs),
one-vs-one C-SVC with the slides' settings (linear C = 2; Gaussian C = 2, gamma = 0.0039) and the
setting kern-repro's 3-fold CV picked (Gaussian C = 2, gamma = 0.0156). Prints test error per setting:
mean [min-max] over the splits, and the fit time.

    python3 bench/rkhs_mnist_sklearn.py --repeats 5
"""
import argparse, gzip, os, time
import numpy as np
from sklearn.svm import SVC

ap = argparse.ArgumentParser()
ap.add_argument("--repeats", type=int, default=5)
ap.add_argument("--train", type=int, default=4000)
ap.add_argument("--test", type=int, default=1000)
a = ap.parse_args()
path = os.path.join(os.environ.get("KERN_DATA_DIR", "data"), "mnist_5k.csv.gz")
with gzip.open(path, "rt") as f:
    d = np.loadtxt(f, delimiter=",")
x, y = d[:, :-1] / 255.0, d[:, -1].astype(int)
settings = [("linear C=2", dict(kernel="linear", C=2.0)),
            ("gaussian C=2 gamma=0.0039", dict(kernel="rbf", C=2.0, gamma=0.0039)),
            ("gaussian C=2 gamma=0.0156", dict(kernel="rbf", C=2.0, gamma=0.0156))]
res = {k: ([], []) for k, _ in settings}
for r in range(a.repeats):
    p = np.random.default_rng(r).permutation(len(y))
    tr, te = p[:a.train], p[a.train:a.train + a.test]
    for name, kw in settings:
        t0 = time.perf_counter()
        m = SVC(**kw).fit(x[tr], y[tr])
        res[name][1].append(time.perf_counter() - t0)
        res[name][0].append(float(np.mean(m.predict(x[te]) != y[te])))
for name, (e, t) in res.items():
    print(f"{name:28s} error {100*np.mean(e):.2f}% [{100*min(e):.2f}-{100*max(e):.2f}]  fit {np.median(t):.2f} s "
          f"[{min(t):.2f}-{max(t):.2f}]")
