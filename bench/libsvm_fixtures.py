#!/usr/bin/env python3
"""Regenerates kern-models' LIBSVM test fixtures (tests/fixtures/libsvm/).

- printf_g.txt: bit patterns of doubles with glibc's "%.17g" and "%.8g" of them, printed by a C program
  (compiled here with `cc`), for the Rust formatter's test.
- train.txt / test.txt / reg_train.txt / reg_test.txt: small seeded data sets in LIBSVM format.
- <name>.model: models written by LIBSVM itself (pip install libsvm-official), and <name>.expected: LIBSVM's
  predictions on test.txt (or reg_test.txt): one line per sample, "label dec_1 ... dec_m [| p_1 ... p_k]",
  every number printed with repr (17 significant digits round-trip).

Usage: python3 bench/libsvm_fixtures.py [OUT_DIR]
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

from ctypes import c_double

from libsvm.svm import gen_svm_nodearray, libsvm
from libsvm.svmutil import svm_load_model, svm_save_model, svm_train


def predict_c(m, xs, prob):
    """LIBSVM's C svm_predict_values / svm_predict_probability on each sample. (The Python wrapper's
    svm_predict sizes the decision-value buffer for one value when the model is nu-SVC and overruns it.)"""
    k = m.get_nr_class()
    st = m.get_svm_type()
    nd = 1 if st in (2, 3, 4) else k * (k - 1) // 2
    out = []
    for x in xs:
        node, _ = gen_svm_nodearray(x)
        dec = (c_double * nd)()
        label = libsvm.svm_predict_values(m, node, dec)
        ps = None
        if prob:
            pr = (c_double * k)()
            libsvm.svm_predict_probability(m, node, pr)
            ps = list(pr)
        out.append((label, list(dec), ps))
    return out

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "crates", "kern-models", "tests", "fixtures", "libsvm")

C_PRINTF = r"""
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <locale.h>
int main(void) {
    setlocale(LC_ALL, "C");
    char hex[64];
    while (scanf("%63s", hex) == 1) {
        uint64_t b; double v;
        sscanf(hex, "%lx", &b);
        memcpy(&v, &b, 8);
        printf("%s %.17g %.8g\n", hex, v, v);
    }
    return 0;
}
"""


def printf_fixture(path):
    rng = random.Random(18)
    vals = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e-5, 1e-4, 9.9999999999999995e-5, 1e16, 1e17, 9.999999999999999e16,
            123456789012345.625, 0.3, 2.0 / 3.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
            100.0, 1e21, 1e22, 12345678.5, 0.000123456785, 99999999.5, 9999999.95]
    for e in range(-30, 31):
        vals += [10.0 ** e, -(10.0 ** e) * 1.5, 2.0 ** e, 7.0 * 10.0 ** e / 3.0]
    while len(vals) < 3000:
        r = rng.random()
        if r < 0.3:
            vals.append(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
        elif r < 0.6:
            vals.append(rng.uniform(-1, 1) * 10.0 ** rng.randint(-8, 20))
        else:  # few-digit decimals and halfway cases, as data files hold
            vals.append(round(rng.uniform(-1000, 1000), rng.randint(0, 9)))
    hexes = []
    for v in vals:
        b = struct.unpack("<Q", struct.pack("<d", v))[0]
        if (b >> 52) & 0x7FF == 0x7FF:  # skip inf/nan
            continue
        hexes.append("%016x" % b)
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "g.c"), os.path.join(d, "g")
        open(src, "w").write(C_PRINTF)
        subprocess.run(["cc", "-O1", "-o", exe, src], check=True)
        out = subprocess.run([exe], input="\n".join(hexes) + "\n", capture_output=True, text=True, check=True)
    with open(path, "w") as f:
        f.write("# bits %.17g %.8g  (glibc printf, C locale; written by bench/libsvm_fixtures.py)\n")
        f.write(out.stdout)


def write_libsvm(path, y, x):
    with open(path, "w") as f:
        for yi, xi in zip(y, x):
            feats = " ".join(f"{j + 1}:{v}" for j, v in enumerate(xi) if v != 0.0)
            f.write(f"{yi} {feats}\n")


def datasets():
    rng = random.Random(7)
    centres = {1: (0.0, 0.0, 0.5, 0.0), 2: (1.5, 0.5, -0.5, 0.25), 3: (0.0, 1.5, 0.0, -0.5)}
    def cls(n):
        y, x = [], []
        for i in range(n):
            c = [3, 1, 2][i % 3]  # first appearance 3, 1, 2: LIBSVM's label order
            y.append(c)
            x.append([round(m + rng.gauss(0, 0.6), 4) if rng.random() > 0.15 else 0.0 for m in centres[c]])
        return y, x
    def reg(n):
        y, x = [], []
        for _ in range(n):
            a, b = round(rng.uniform(-2, 2), 3), round(rng.uniform(-1, 1), 3)
            y.append(round(a * a - b + 0.5 * a * b + rng.gauss(0, 0.05), 5))
            x.append([a, b])
        return y, x
    return cls(60), cls(25), reg(50), reg(20)


MODELS = [
    # name, data (cls/reg/bin), options, probability output
    ("csvc_rbf_3class_prob", "cls", "-s 0 -t 2 -g 0.7 -c 4 -b 1", True),
    ("csvc_linear_binary", "bin", "-s 0 -t 0 -c 2", False),
    ("csvc_poly_binary_prob", "bin25", "-s 0 -t 1 -d 3 -g 0.4 -r 1.5 -c 0.5 -b 1", True),
    ("csvc_sigmoid_3class", "cls", "-s 0 -t 3 -g 0.05 -r -0.2 -c 3", False),
    ("nusvc_rbf_3class", "cls", "-s 1 -t 2 -g 0.3 -n 0.4", False),
    ("oneclass_rbf", "cls", "-s 2 -t 2 -g 0.5 -n 0.2", False),
    ("epsvr_rbf", "reg", "-s 3 -t 2 -g 0.8 -c 10 -p 0.05", False),
    ("nusvr_poly", "reg", "-s 4 -t 1 -d 2 -g 0.5 -r 1 -c 5 -n 0.5", False),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    printf_fixture(os.path.join(OUT, "printf_g.txt"))
    (yc, xc), (ytc, xtc), (yr, xr), (ytr, xtr) = datasets()
    # binary: -1/+1 with -1 first (LIBSVM swaps so +1 is label[0]); and 2/5 (first appearance order kept)
    yb = [1 if c == 2 else -1 for c in yc]
    ytb = [1 if c == 2 else -1 for c in ytc]
    y25 = [5 if c == 1 else 2 for c in yc]
    yt25 = [5 if c == 1 else 2 for c in ytc]
    files = {"train.txt": (yc, xc), "test.txt": (ytc, xtc), "bin_train.txt": (yb, xc), "bin_test.txt": (ytb, xtc),
             "bin25_train.txt": (y25, xc), "bin25_test.txt": (yt25, xtc), "reg_train.txt": (yr, xr),
             "reg_test.txt": (ytr, xtr)}
    for name, (y, x) in files.items():
        write_libsvm(os.path.join(OUT, name), y, x)
    sets = {"cls": ("train.txt", "test.txt"), "bin": ("bin_train.txt", "bin_test.txt"),
            "bin25": ("bin25_train.txt", "bin25_test.txt"), "reg": ("reg_train.txt", "reg_test.txt")}
    for name, data, opts, prob in MODELS:
        tr, te = sets[data]
        y, x = files[tr]
        yt, xt = files[te]
        xd = [{j + 1: v for j, v in enumerate(r) if v != 0.0} for r in x]
        xtd = [{j + 1: v for j, v in enumerate(r) if v != 0.0} for r in xt]
        m = svm_train(y, xd, opts + " -q")
        path = os.path.join(OUT, name + ".model")
        svm_save_model(path, m)
        m = svm_load_model(path)  # predict with what the file holds
        rows = predict_c(m, xtd, prob)
        with open(os.path.join(OUT, name + ".expected"), "w") as f:
            f.write(f"# {name}: libsvm-official svm_predict on {te} (train: {tr}, options: {opts})\n")
            for label, dec, ps in rows:
                line = " ".join(repr(float(v)) for v in [label] + dec)
                if ps is not None:
                    line += " | " + " ".join(repr(float(v)) for v in ps)
                f.write(line + "\n")
    print("fixtures written to", os.path.abspath(OUT))


if __name__ == "__main__":
    main()
