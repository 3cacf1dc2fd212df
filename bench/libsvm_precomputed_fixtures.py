#!/usr/bin/env python3
"""Regenerates the fixtures of kern-models' precomputed-kernel tests
(crates/kern-models/tests/fixtures/libsvm/precomputed/) with LIBSVM 3.37 itself (pip install
libsvm-official), `-t 4`.

Data: the green-red mixture (n = 60 train / 30 test, seeds 2004 / 2005) and sinc (n = 50 / 20) of
bench/libsvm_nu_fixtures.py; the kernel is the Gaussian exp(-gamma |u - v|^2), gamma = 0.5 (green-red)
and 0.2 (sinc), computed here in double precision and written with repr, so kern reads the same
doubles. Files in LIBSVM's precomputed format: `label 0:i 1:K(x_i,x_1) ... n:K(x_i,x_n)` (training row
i has serial i; test rows have serial 1, which LIBSVM does not use).

For each case <name>.model is LIBSVM's model file (svm_save_model) and <name>.expected holds:
  labels l_1 ... l_k          (classifiers)
  rho r_1 ... r_m
  sv i c_1 ... c_{k-1}         one line per support vector: its serial and sv_coef column(s)
  dec label d_1 ... d_m        svm_predict_values on the test rows

Usage: python3 bench/libsvm_precomputed_fixtures.py [OUT_DIR]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libsvm_nu_fixtures import green_red, predict, sinc  # noqa: E402
from libsvm.svmutil import svm_save_model, svm_train  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "crates", "kern-models", "tests", "fixtures", "libsvm", "precomputed")

CASES = [
    ("csvc", "gr", "-s 0 -t 4 -c 2"),
    ("nusvc", "gr", "-s 1 -t 4 -n 0.4"),
    ("oneclass", "gr", "-s 2 -t 4 -n 0.3"),
    ("epsvr", "sinc", "-s 3 -t 4 -c 5 -p 0.05"),
    ("nusvr", "sinc", "-s 4 -t 4 -c 5 -n 0.4"),
]


def gram(a, b, gamma):
    d = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d)


def rows(k, train):
    return [{0: (i + 1 if train else 1), **{j + 1: float(v) for j, v in enumerate(r)}} for i, r in enumerate(k)]


def write(path, y, rs):
    with open(path, "w") as f:
        for yi, r in zip(y, rs):
            lab = repr(float(yi)) if isinstance(yi, float) else str(int(yi))
            f.write(lab + " " + " ".join(f"{j}:{int(v) if j == 0 else repr(v)}" for j, v in sorted(r.items())) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    xtr, ytr, cen = green_red(60, 2004)
    xte, yte, _ = green_red(30, 2005, cen)
    sx, sy = sinc(50, 7)
    stx, sty = sinc(20, 8)
    sets = {
        "gr": ((ytr, rows(gram(xtr, xtr, 0.5), True)), (yte, rows(gram(xte, xtr, 0.5), False))),
        "sinc": ((sy.tolist(), rows(gram(sx, sx, 0.2), True)), (sty.tolist(), rows(gram(stx, sx, 0.2), False))),
    }
    for key, ((y, x), (yt, xt)) in sets.items():
        write(os.path.join(OUT, f"{key}_train.txt"), y, x)
        write(os.path.join(OUT, f"{key}_test.txt"), yt, xt)
    for name, key, opts in CASES:
        (y, x), (yt, xt) = sets[key]
        m = svm_train([float(v) for v in y], x, opts + " -q")
        svm_save_model(os.path.join(OUT, name + ".model"), m)
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
                f.write(f"dec {label!r} " + " ".join(repr(float(v)) for v in dec) + "\n")
        print(name, "SVs", m.l)


if __name__ == "__main__":
    main()
