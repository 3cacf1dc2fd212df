#!/usr/bin/env python3
"""Seeded HIGGS-like synthetic binary classification set: d = 28, any n (1,000,000 in a few seconds).

The UCI HIGGS set (Baldi, Sadowski & Whiteson 2014) has 21 "low-level" kinematic columns followed by 7
"high-level" columns that are non-linear functions of them; signal and background overlap heavily
(the best models reach about 80 % accuracy). This generator keeps that layout and that character; it
is not a physics simulation. For every point:

  label         y = 1 ("signal") with probability 0.53, else 0 ("background");
  5 objects     a = 0..4 (a lepton and four jets), each with
                  pt_a  = exp(mu_y + 0.6 N)        mu_0 = 0, mu_1 = 0.15   (transverse momentum)
                  eta_a = 1.2 N                                            (pseudorapidity)
                  phi_a = U(-pi, pi)                                       (azimuth)
                signal only: objects 0,1 and objects 2,3 are decay pairs: phi_1 = phi_0 + pi + 0.5 N,
                phi_3 = phi_2 + pi + 0.8 N (wrapped to [-pi, pi)), eta_1 = 0.6 eta_0 + 0.9 N;
  missing energy  met = exp(nu_y + 0.7 N), nu_0 = -0.2, nu_1 = 0; met_phi = U(-pi, pi);
  4 b-tags      b_a = 1 with probability 0.30 (background) / 0.42 (signal), else 0  (jets a = 1..4);
  -> 15 + 2 + 4 = 21 low-level columns: pt_0, eta_0, phi_0, ..., pt_4, eta_4, phi_4, met, met_phi, b_1..b_4;
  7 high-level  pair masses m_ab = sqrt(2 pt_a pt_b (cosh(eta_a - eta_b) - cos(phi_a - phi_b))) for
                (a, b) = (0,1), (2,3), (0,2), (1,3), (0,3), (1,2), and the lepton's transverse mass
                m_T = sqrt(2 pt_0 met (1 - cos(phi_0 - met_phi))), each as log(1 + m).

The classes differ only through small shifts of scale and through angular correlations that are
invisible in any single column (phi_0 and phi_1 are each uniform for both classes) and show up in the
non-linear high-level columns: overlapping, non-linear structure. The draws are made column-block by
column-block from numpy's PCG64 seeded with --seed, so a given (n, seed) gives the same file every time.
kern-repro's `higgs_like` generator follows the same recipe (with its own random stream, so the values
differ; the distribution is the same).

Usage: python3 bench/higgs_like.py --n 1000000 --seed 1 --out higgs.csv[.gz]   (CSV, header, label last)
"""
import argparse
import gzip

import numpy as np

D = 28


def wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def higgs_like(n, seed):
    """Returns (x: n x 28 float64, y: n int in {0, 1}) following the module docstring."""
    g = np.random.default_rng(seed)
    y = (g.random(n) < 0.53).astype(np.int64)
    s = y == 1
    mu = np.where(s, 0.15, 0.0)
    pt = np.exp(mu[:, None] + 0.6 * g.standard_normal((n, 5)))
    eta = 1.2 * g.standard_normal((n, 5))
    phi = g.uniform(-np.pi, np.pi, (n, 5))
    e1, d1, d3 = g.standard_normal(n), g.standard_normal(n), g.standard_normal(n)
    phi[s, 1] = wrap(phi[s, 0] + np.pi + 0.5 * d1[s])
    phi[s, 3] = wrap(phi[s, 2] + np.pi + 0.8 * d3[s])
    eta[s, 1] = 0.6 * eta[s, 0] + 0.9 * e1[s]
    met = np.exp(np.where(s, 0.0, -0.2) + 0.7 * g.standard_normal(n))
    met_phi = g.uniform(-np.pi, np.pi, n)
    btag = (g.random((n, 4)) < np.where(s, 0.42, 0.30)[:, None]).astype(np.float64)
    low = np.empty((n, 21))
    for a in range(5):
        low[:, 3 * a], low[:, 3 * a + 1], low[:, 3 * a + 2] = pt[:, a], eta[:, a], phi[:, a]
    low[:, 15], low[:, 16], low[:, 17:21] = met, met_phi, btag

    def mass(a, b):
        m2 = 2 * pt[:, a] * pt[:, b] * (np.cosh(eta[:, a] - eta[:, b]) - np.cos(phi[:, a] - phi[:, b]))
        return np.log1p(np.sqrt(np.maximum(m2, 0.0)))

    high = [mass(a, b) for a, b in [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]]
    high.append(np.log1p(np.sqrt(np.maximum(2 * pt[:, 0] * met * (1 - np.cos(phi[:, 0] - met_phi)), 0.0))))
    return np.column_stack([low] + high), y


def write_csv(path, x, y):
    """CSV with a header, label last; gzip when the name ends in .gz."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        f.write(",".join([f"f{i}" for i in range(1, x.shape[1] + 1)] + ["label"]) + "\n")
        np.savetxt(f, np.column_stack([x, y]), delimiter=",", fmt=["%.9g"] * x.shape[1] + ["%d"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    write_csv(a.out, *higgs_like(a.n, a.seed))


if __name__ == "__main__":
    main()
