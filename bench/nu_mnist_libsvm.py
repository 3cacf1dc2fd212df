#!/usr/bin/env python3
"""nu-SVC, one-class SVM and nu-SVR on MNIST-5k: kern (Python package, `maturin develop --release`)
against LIBSVM 3.37 itself (pip install libsvm-official), with agreement criteria fixed before
running: dual objective within 1e-3 relative (per one-vs-one machine for nu-SVC), number of support
vectors within 2 %, test accuracy within 0.5 points (one-class: the fraction of test samples predicted
inside, and identical labels apart from samples within the solvers' tolerance of the boundary are
reported).

nu-SVR (the digit as a real target, LIBSVM's defaults C = 1, nu = 0.5) has no accuracy; its third
criterion, fixed before the first run, is the test RMSE within 0.5 % relative. Why 0.5 %: it is the
regression counterpart of "accuracy within 0.5 points" (on a ~96 % accurate classifier 0.5 points is
about 0.5 % of the score): a statement that the two fits predict equally well, as the classification
criterion is. It is not a certificate: what LIBSVM's stopping rule (-e 1e-3) proves is far weaker
here (each solver's dual within eps * C nu l of its optimum, two sign groups of mass C nu l / 2, so
||g_L - g_K||_H <= 2 sqrt(2 eps C nu l) = 4 for l = 4000, C = 1, nu = 0.5, as in the Rust nu tests'
derivation), so the largest test prediction difference is printed as measured.

The objectives are computed here, in double, from each model's coefficients (both solvers' objective
in LIBSVM's reported scale): nu-SVC machine (i, j): 0.5 c^T K c with c the machine's sv_coef
(LIBSVM divides alpha y by r, and its reported obj by r^2); one-class: 0.5 a^T K a; nu-SVR:
0.5 b^T K b - y^T b with b = alpha - alpha* (LIBSVM's sv_coef, kern's dual_coef_; LIBSVM's Solver_NU
objective for -s 4, whose linear term is -y on alpha and +y on alpha*).

Data: data/mnist_5k.csv.gz of the repository, or of KERN_DATA_DIR (784 pixel columns then the digit), pixels / 255, shuffled
(seed 5; the file is sorted by digit), first 4000 samples train, last 1000 test. Gaussian gamma = 1 / (784 * Var(X_train)) (scikit-learn's 'scale').
Run with OMP_NUM_THREADS=1 (the libsvm-official build uses OpenMP, which spins on a loaded machine).

Usage: OMP_NUM_THREADS=1 python3 bench/nu_mnist_libsvm.py [--nu 0.1] [--oc-nu 0.1] [--svr-nu 0.5] [--svr-c 1]
"""
import argparse
import gzip
import os
import time

import numpy as np
from libsvm.svm import gen_svm_nodearray, libsvm
from libsvm.svmutil import svm_train

import kern


def load():
    with gzip.open(os.path.join(os.environ.get("KERN_DATA_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")), "mnist_5k.csv.gz"), "rt") as f:
        a = np.loadtxt(f, delimiter=",")
    a = a[np.random.default_rng(5).permutation(len(a))]  # the file is sorted by digit
    x, y = a[:, :784] / 255.0, a[:, 784].astype(int)
    return x[:4000], y[:4000], x[4000:], y[4000:]


def rbf(a, b, gamma):
    d = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.exp(-gamma * np.maximum(d, 0))


def predict(m, xs):
    """Labels through the C function svm_predict (libsvm-official's Python svm_predict sizes its
    decision-value buffer for one value on a nu-SVC model and overruns it)."""
    out = []
    for r in xs:
        node, _ = gen_svm_nodearray(r)
        out.append(libsvm.svm_predict(m, node))
    return out


def rows(x):
    return [{j + 1: float(v) for j, v in enumerate(r) if v != 0.0} for r in x]


def libsvm_pairs(m, x):
    """(i, j) -> (SV rows, coefficients) of LIBSVM's one-vs-one machines, in LIBSVM's label order."""
    labels = m.get_labels()
    k = len(labels)
    idx = np.asarray(m.get_sv_indices()) - 1
    coef = np.asarray(m.get_sv_coef())
    nsv = [m.nSV[t] for t in range(k)]
    start = np.concatenate([[0], np.cumsum(nsv)])
    out = {}
    for i in range(k):
        for j in range(i + 1, k):
            si = slice(start[i], start[i + 1])
            sj = slice(start[j], start[j + 1])
            r = np.concatenate([idx[si], idx[sj]])
            c = np.concatenate([coef[si, j - 1], coef[sj, i]])
            keep = c != 0
            out[(labels[i], labels[j])] = (x[r[keep]], c[keep])
    return out


def kern_pairs(est):
    """(i, j) -> (SV rows, coefficients) of kern's machines, in class labels."""
    sv = est._model.support_vectors()
    out = {}
    for mi, (a, b, _) in enumerate(est._model.machines()):
        r, c = est._model.machine_coefficients(mi)
        out[(int(est.classes_[a]), int(est.classes_[b]))] = (sv[np.asarray(r)], np.asarray(c))
    return out


def objective(sv, c, gamma):
    return 0.5 * c @ rbf(sv, sv, gamma) @ c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nu", type=float, default=0.1)
    ap.add_argument("--oc-nu", type=float, default=0.1)
    ap.add_argument("--svr-nu", type=float, default=0.5)
    ap.add_argument("--svr-c", type=float, default=1.0)
    a = ap.parse_args()
    x, y, xt, yt = load()
    gamma = float(1.0 / (784 * x.var()))
    ok = True
    print(f"MNIST-5k: n = {len(x)} train, {len(xt)} test, gamma = {gamma:.6g}, tol 1e-3 (both defaults)")

    # nu-SVC, one-vs-one over 10 digits.
    t = time.perf_counter()
    lm = svm_train(y.tolist(), rows(x), f"-s 1 -t 2 -g {gamma!r} -n {a.nu} -q")
    tl = time.perf_counter() - t
    pl = predict(lm, rows(xt))
    t = time.perf_counter()
    km = kern.NuSVC(nu=a.nu, kernel="rbf", gamma=gamma).fit(x, y)
    tk = time.perf_counter() - t
    pk = km.predict(xt)
    acc_l, acc_k = 100 * np.mean(np.asarray(pl) == yt), 100 * np.mean(pk == yt)
    nsv_l, nsv_k = lm.get_nr_sv(), len(km.support_)
    lp, kp = libsvm_pairs(lm, x), kern_pairs(km)
    worst = 0.0
    for key, (svk, ck) in kp.items():
        i, j = key
        svl, cl = lp[key] if key in lp else (lp[(j, i)][0], -lp[(j, i)][1])
        fl, fk = objective(svl, cl, gamma), objective(svk, ck, gamma)
        worst = max(worst, abs(fl - fk) / abs(fl))
    print(f"nu-SVC nu={a.nu}: LIBSVM {tl:.2f} s, {nsv_l} SVs, accuracy {acc_l:.2f} %; "
          f"kern {tk:.2f} s, {nsv_k} SVs, accuracy {acc_k:.2f} %; "
          f"worst machine objective difference {worst:.3e} (relative)")
    checks = [
        ("objective 1e-3", worst <= 1e-3),
        ("#SV 2 %", abs(nsv_k - nsv_l) <= 0.02 * nsv_l),
        ("accuracy 0.5 points", abs(acc_k - acc_l) <= 0.5),
    ]

    # One-class on the training digits.
    t = time.perf_counter()
    lo = svm_train([1.0] * len(x), rows(x), f"-s 2 -t 2 -g {gamma!r} -n {a.oc_nu} -q")
    tl = time.perf_counter() - t
    ql = predict(lo, rows(xt))
    t = time.perf_counter()
    ko = kern.OneClassSVM(nu=a.oc_nu, kernel="rbf", gamma=gamma).fit(x)
    tk = time.perf_counter() - t
    qk = ko.predict(xt)
    in_l, in_k = 100 * np.mean(np.asarray(ql) > 0), 100 * np.mean(qk > 0)
    idx = np.asarray(lo.get_sv_indices()) - 1
    cl = np.asarray(lo.get_sv_coef())[:, 0]
    fl = objective(x[idx], cl, gamma)
    fk = objective(ko.support_vectors_, ko.dual_coef_[0], gamma)
    nsv_l, nsv_k = len(idx), len(ko.support_)
    print(f"one-class nu={a.oc_nu}: LIBSVM {tl:.2f} s, {nsv_l} SVs, {in_l:.2f} % of test inside; "
          f"kern {tk:.2f} s, {nsv_k} SVs, {in_k:.2f} % inside; objective difference "
          f"{abs(fl - fk) / abs(fl):.3e} (relative); labels differ at {int(np.sum(np.asarray(ql) != qk))} test samples")
    checks += [
        ("one-class objective 1e-3", abs(fl - fk) <= 1e-3 * abs(fl)),
        ("one-class #SV 2 %", abs(nsv_k - nsv_l) <= 0.02 * nsv_l),
        ("one-class inside-fraction 0.5 points", abs(in_k - in_l) <= 0.5),
    ]

    # nu-SVR: the digit as a real number.
    yr, ytr = y.astype(np.float64), yt.astype(np.float64)
    t = time.perf_counter()
    lr = svm_train(yr.tolist(), rows(x), f"-s 4 -t 2 -g {gamma!r} -n {a.svr_nu} -c {a.svr_c} -q")
    tl = time.perf_counter() - t
    rl = np.asarray(predict(lr, rows(xt)))
    t = time.perf_counter()
    kr = kern.NuSVR(nu=a.svr_nu, C=a.svr_c, kernel="rbf", gamma=gamma).fit(x, yr)
    tk = time.perf_counter() - t
    rk = kr.predict(xt)
    idx = np.asarray(lr.get_sv_indices()) - 1
    bl = np.asarray(lr.get_sv_coef())[:, 0]
    bk = kr.dual_coef_[0]
    fl = objective(x[idx], bl, gamma) - yr[idx] @ bl
    fk = objective(kr.support_vectors_, bk, gamma) - yr[kr.support_] @ bk
    nsv_l, nsv_k = len(idx), len(kr.support_)
    rmse_l, rmse_k = np.sqrt(np.mean((rl - ytr) ** 2)), np.sqrt(np.mean((rk - ytr) ** 2))
    print(f"nu-SVR nu={a.svr_nu} C={a.svr_c}: LIBSVM {tl:.2f} s, {nsv_l} SVs, test RMSE {rmse_l:.6f}; "
          f"kern {tk:.2f} s, {nsv_k} SVs, test RMSE {rmse_k:.6f}; objectives {fl:.9g} / {fk:.9g} "
          f"(difference {abs(fl - fk) / abs(fl):.3e} relative); largest test prediction difference "
          f"{np.max(np.abs(rl - rk)):.3e}")
    checks += [
        ("nu-SVR objective 1e-3", abs(fl - fk) <= 1e-3 * abs(fl)),
        ("nu-SVR #SV 2 %", abs(nsv_k - nsv_l) <= 0.02 * nsv_l),
        ("nu-SVR test RMSE 0.5 % relative", abs(rmse_k - rmse_l) <= 0.005 * rmse_l),
    ]
    for name, good in checks:
        print(f"  {name}: {'holds' if good else 'DOES NOT HOLD'}")
        ok &= good
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
