#!/usr/bin/env python3
"""Regenerates the fixtures of kern-models' nu-SVC / nu-SVR / one-class training
tests (crates/kern-models/tests/fixtures/libsvm/nu/), with LIBSVM 3.37 itself (pip install
libsvm-official).

Data sets (LIBSVM format, numbers printed with repr so that kern reads the same doubles):
  gr_train.txt / gr_test.txt     green-red mixture (Hastie et al.), n = 400 / 200, seeds 2004 / 2005
  sinc_train.txt / sinc_test.txt y = sin(x)/x + N(0, 0.1^2), x ~ U(-10, 10), n = 300 / 100
  mnist_train.txt / mnist_test.txt  digits 0, 1, 2 of data/mnist_5k.csv.gz (pixels/255
                                 rounded to 4 decimals), 150 / 30 samples, zero pixels omitted (784 features)

For each case <name>.expected holds what LIBSVM's trained model holds, at full precision:
  labels l_1 ... l_k          (classifiers)
  rho r_1 ... r_m
  sv i c_1 ... c_{k-1}         one line per support vector: 1-based training index (svm_get_sv_indices)
                               and its sv_coef column(s)
  dec label d_1 ... d_m        one line per test sample: svm_predict_values' label and decision values

Usage: python3 bench/libsvm_nu_fixtures.py [OUT_DIR]
"""
import gzip
import os
import sys
from ctypes import c_double

import numpy as np
from libsvm.svm import gen_svm_nodearray, libsvm
from libsvm.svmutil import svm_train

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "crates", "kern-models", "tests", "fixtures", "libsvm", "nu")

CASES = [
    # name, data set, LIBSVM options
    ("nusvc_gr", "gr", "-s 1 -t 2 -g 2.7777777777777777 -n 0.3 -e 1e-9"),
    ("nusvc_gr_noshrink", "gr", "-s 1 -t 2 -g 2.7777777777777777 -n 0.6 -h 0 -e 1e-9"),
    ("oneclass_gr", "gr", "-s 2 -t 2 -g 2.7777777777777777 -n 0.1 -e 1e-9"),
    ("nusvr_sinc", "sinc", "-s 4 -t 2 -g 0.5 -c 10 -n 0.3 -e 1e-9"),
    ("nusvc_mnist", "mnist", "-s 1 -t 2 -g 0.02 -n 0.2"),
    ("oneclass_mnist", "mnist", "-s 2 -t 2 -g 0.02 -n 0.3"),
]


def green_red(n, seed, centres=None):
    rng = np.random.default_rng(seed)
    if centres is None:
        centres = (rng.normal([1.0, 0.0], 1.0, (10, 2)), rng.normal([0.0, 1.0], 1.0, (10, 2)))
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    k = rng.integers(0, 10, n)
    base = np.where((y == 1)[:, None], centres[0][k], centres[1][k])
    return base + rng.normal(0.0, np.sqrt(0.2), (n, 2)), y, centres


def sinc(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-10, 10, n)
    return x[:, None], np.sinc(x / np.pi) + rng.normal(0, 0.1, n)


def mnist():
    with gzip.open(os.path.join(os.environ.get("KERN_DATA_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")), "mnist_5k.csv.gz"), "rt") as f:
        a = np.loadtxt(f, delimiter=",")
    a = a[np.isin(a[:, 784], [0, 1, 2])]
    rng = np.random.default_rng(18)
    a = a[rng.permutation(len(a))[:180]]
    # First appearance 0, 1, 2 in the training part: LIBSVM's label order equals kern's sorted one.
    first = [int(np.argmax(a[:150, 784] == c)) for c in (0, 1, 2)]
    order = first + [i for i in range(len(a)) if i not in first]
    a = a[order]
    return np.round(a[:, :784] / 255.0, 4), a[:, 784].astype(int)


def rows_of(x, dense):
    """Sparse dicts (1-based) of the rows; `dense` keeps zeros so every file has every feature."""
    return [{j + 1: float(v) for j, v in enumerate(r) if dense or v != 0.0} for r in x]


def write(path, y, rows):
    with open(path, "w") as f:
        for yi, r in zip(y, rows):
            lab = repr(float(yi)) if isinstance(yi, float) else str(int(yi))
            f.write(lab + " " + " ".join(f"{j}:{v!r}" for j, v in sorted(r.items())) + "\n")


def datasets():
    xtr, ytr, cen = green_red(400, 2004)
    xte, yte, _ = green_red(200, 2005, cen)
    sx, sy = sinc(300, 7)
    stx, sty = sinc(100, 8)
    mx, my = mnist()
    return {
        "gr": ((ytr, rows_of(xtr, True)), (yte, rows_of(xte, True))),
        "sinc": ((sy.tolist(), rows_of(sx, True)), (sty.tolist(), rows_of(stx, True))),
        "mnist": ((my[:150], rows_of(mx[:150], False)), (my[150:], rows_of(mx[150:], False))),
    }


def predict(m, rows):
    k = m.get_nr_class()
    nd = 1 if m.get_svm_type() in (2, 3, 4) else k * (k - 1) // 2
    out = []
    for r in rows:
        node, _ = gen_svm_nodearray(r)
        dec = (c_double * nd)()
        label = libsvm.svm_predict_values(m, node, dec)
        out.append((label, list(dec)))
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    sets = datasets()
    for key, ((y, x), (yt, xt)) in sets.items():
        write(os.path.join(OUT, f"{key}_train.txt"), y, x)
        write(os.path.join(OUT, f"{key}_test.txt"), yt, xt)
    for name, key, opts in CASES:
        (y, x), (yt, xt) = sets[key]
        m = svm_train([float(v) for v in y], x, opts + " -q")
        st = m.get_svm_type()
        k = m.get_nr_class()
        nr = k * (k - 1) // 2 if st in (0, 1) else 1
        with open(os.path.join(OUT, name + ".expected"), "w") as f:
            f.write(f"# {name}: LIBSVM 3.37 (libsvm-official) svm_train {opts} on {key}_train.txt, "
                    f"svm_predict_values on {key}_test.txt\n")
            if st in (0, 1):
                f.write("labels " + " ".join(str(v) for v in m.get_labels()) + "\n")
            f.write("rho " + " ".join(repr(float(m.rho[i])) for i in range(nr)) + "\n")
            for i, c in zip(m.get_sv_indices(), m.get_sv_coef()):
                f.write(f"sv {i} " + " ".join(repr(float(v)) for v in c) + "\n")
            for label, dec in predict(m, xt):
                f.write("dec " + " ".join(repr(float(v)) for v in [label] + dec) + "\n")
    print("fixtures written to", os.path.abspath(OUT))


if __name__ == "__main__":
    main()
