#!/usr/bin/env python3
"""LIBSVM 3.37 (pip install libsvm-official) on the nu-SVR case of kern-models'
`svm::nu_tests::nu_svr_case_that_reaches_the_iteration_cap`.

The 28 points are the test's own (`nu_svr_problem(28, 1425, ..)`: x from `random_problem(28, 1, 1425)`,
targets sin x + 0.3 label), printed by kern with 17 significant digits. kern's Gaussian
`gaussian:sigma=0.8` is exp(-|u - v|^2 / sigma^2), i.e. LIBSVM's `-g 1.5625`. The script trains
`-s 4` with the test's nu, C and `-e 1e-6`, with shrinking on and off, and prints LIBSVM's
iteration count, objective, rho and support vectors (LIBSVM 3.37 reaches its 10^7 cap on both).

Usage: python3 bench/libsvm_nu_svr_cap.py
"""
import re
import subprocess
import sys

DATA = [  # (target, x)
    (-5.04815424487303988e-1, -9.35364420834577270e-1),
    (-3.21726814595587274e-1, -2.17285243321359012e-2),
    (8.53144055198541862e-1, 5.86133518197783587e-1),
    (1.07816887266750849e0, 8.91744975818787200e-1),
    (2.07994552593298743e-1, -9.21357487581895285e-2),
    (6.65314542330347924e-1, 1.30664543528965682e0),
    (-2.05638806914218486e-1, -5.30122239942428131e-1),
    (-2.63432002043649915e-1, 3.65761527648533757e-2),
    (2.41783919345227083e-1, 5.72558066350647987e-1),
    (-5.51769476699193850e-1, -1.01935347879096572e0),
    (1.29471610401071424e0, 1.67364141239977204e0),
    (-6.30102595515138475e-1, -1.19469206937983996e0),
    (1.29977796704297566e0, 1.59186958823919733e0),
    (6.95077166586663298e-1, 1.67006241135715072e0),
    (-1.03603934367775308e0, -8.27200760653323375e-1),
    (-5.71330494633252362e-1, -2.74775114514165697e-1),
    (4.07458202924769197e-2, 3.47710078246735943e-1),
    (6.02494970458039347e-1, 1.12552763068868744e0),
    (-1.28739750556473931e0, -1.72972432453798675e0),
    (-5.26659771583033676e-1, -9.73145486276954852e-1),
    (5.65866250229090983e-1, 1.04687933177737991e0),
    (-1.19317925714496398e0, -1.10436599282488812e0),
    (-1.07817939169487187e0, -8.91761724566708214e-1),
    (6.29148633481730224e-1, 3.35401827634238092e-1),
    (-1.29897047854633452e0, -1.52541575485968472e0),
    (-1.29298851139898119e0, -1.45230837423719761e0),
    (4.79240428061190715e-1, 1.80214321390956833e-1),
    (1.25796287230760306e0, 1.27981524652421452e0),
]
NU = 0.20988482261483987
C = 10 ** 1.718682912083398


def train(shrinking):
    """Trains LIBSVM in a child process (its C solver reports on stdout) and returns its report."""
    args = f"-s 4 -t 2 -g 1.5625 -c {C!r} -n {NU!r} -e 1e-6 -h {int(shrinking)}"
    child = (
        "import sys\n"
        "from libsvm.svmutil import svm_train\n"
        f"m = svm_train({[z for z, _ in DATA]!r}, [{{1: x}} for x in {[x for _, x in DATA]!r}], {args!r})\n"
        "sys.stdout.flush()\n"
        "print('rho', repr(m.rho[0]), 'nSV', m.l, flush=True)\n"
    )
    return subprocess.run([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True).stdout


for shrinking in (True, False):
    out = train(shrinking)
    it = re.search(r"#iter = (\d+)", out).group(1)
    obj = re.search(r"obj = (\S+),", out).group(1)
    cap = "reaching max number of iterations" in out
    print(f"-h {int(shrinking)}: iterations {it} (cap reached: {cap}), obj {obj}, {out.strip().splitlines()[-1]}")
