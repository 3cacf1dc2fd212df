#!/usr/bin/env python3
"""Round trip kern -> LIBSVM model file -> LIBSVM: models trained by `kern train --format libsvm` are
loaded by LIBSVM 3.37's svm_load_model (pip install libsvm-official) and must predict the labels and
decision values kern predicts, to 1e-12.

Usage: python3 bench/libsvm_model_check.py [path/to/kern]   (default: target/release/kern)
Exit status 0 when every case agrees.
"""
import os
import subprocess
import sys
import tempfile
from ctypes import c_double

from libsvm.svm import gen_svm_nodearray, libsvm
from libsvm.svmutil import svm_load_model, svm_read_problem

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
KERN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "kern")
FIX = os.path.join(ROOT, "crates", "kern-models", "tests", "fixtures", "libsvm")

CASES = [
    ("svc", "train.txt", "test.txt", "gaussian:beta=0.7", ["--c", "4", "--probability"]),
    ("svc", "train.txt", "test.txt", "poly:degree=3,scale=0.4,coef0=1.5", ["--c", "0.5"]),
    ("svc", "bin_train.txt", "bin_test.txt", "linear", ["--c", "2"]),
    ("svc", "bin25_train.txt", "bin25_test.txt", "sigmoid:a=0.05,b=-0.2", ["--c", "3"]),
    ("svr", "reg_train.txt", "reg_test.txt", "gaussian:beta=0.8", ["--c", "10", "--epsilon-tube", "0.05"]),
]


def main():
    worst, failures = 0.0, 0
    with tempfile.TemporaryDirectory() as d:
        for model, train, test, kernel, extra in CASES:
            mfile, dec = os.path.join(d, "m.txt"), os.path.join(d, "dec.txt")
            subprocess.run([KERN, "train", "--model", model, "--kernel", kernel, "--data", os.path.join(FIX, train),
                            "--out", mfile, "--format", "libsvm"] + extra, check=True, capture_output=True)
            subprocess.run([KERN, "predict", "--model", mfile, "--data", os.path.join(FIX, test), "--out", dec,
                            "--values", "decision"], check=True, capture_output=True)
            ours = [[float(v) for v in line.split()] for line in open(dec)]
            m = svm_load_model(mfile)
            k = m.get_nr_class()
            nd = 1 if model == "svr" else k * (k - 1) // 2
            _, xs = svm_read_problem(os.path.join(FIX, test))
            case_worst = 0.0
            for x, o in zip(xs, ours):
                node, _ = gen_svm_nodearray(x)
                buf = (c_double * nd)()
                libsvm.svm_predict_values(m, node, buf)
                case_worst = max(case_worst, max(abs(a - b) for a, b in zip(list(buf), o)))
            ok = case_worst <= 1e-12
            failures += not ok
            worst = max(worst, case_worst)
            print(f"{model:4} {kernel:38} {train:16} max |LIBSVM - kern| = {case_worst:.3g}  {'ok' if ok else 'FAIL'}")
    print(f"{len(CASES) - failures} passed, {failures} failed (worst {worst:.3g})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
