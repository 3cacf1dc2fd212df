#!/usr/bin/env python3
"""Calibration of the landmark solve's Auto rule (kern train --landmarks ... --solver auto): what one
conjugate-gradient iteration costs against the direct solve, with kept and with recomputed blocks of
K_nm, how many iterations FALKON's CG needs at --tol, and what Auto then does.

For every configuration (data, n, m): HIGGS-like (d = 28, bench/higgs_like.py, sigma = 8.1, lambda =
1000) or green-red (d = 2, gaussian:sigma=0.6, lambda = 1), random:m centres, seed 0:
  - kept CG at an unreachable tolerance (1e-300), --max-iter LO and HI: the slope is one kept iteration;
  - the same with --max-memory at n*m*8 bytes (the blocks no longer fit in half of it, so every
    iteration recomputes K_nm): one recomputed iteration;
  - --solver direct: the direct solve; "direct in kept / recomputed iterations" = (direct time - the
    time both need besides their iterations, i.e. the capped run minus its passes) / one iteration;
  - --solver iterative at --tol: the iterations CG needs (skipped with --no-converge);
  - --solver auto at --tol: what the rule chose and its time.
Times are kern's own training seconds (the JSON's "seconds"), best of --reps; peak RSS from
/usr/bin/time -v. Prints one JSON line per run, then a Markdown table.

Usage: python3 bench/auto_calibrate.py --kern target/release/kern
       [--configs higgs:50000:500 higgs:100000:1000 green-red:100000:1000] [--reps 1] [--tol 1e-6]
Data files go to $TMPDIR (use /dev/shm) and are deleted at the end.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import higgs_like  # noqa: E402
from nd_compare import green_red, timed_run  # noqa: E402
from nd_compare import write_csv as write_gr  # noqa: E402

KERNELS = {"higgs": ("gaussian:sigma=8.1", "1000"), "green-red": ("gaussian:sigma=0.6", "1")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kern", default="target/release/kern")
    ap.add_argument("--configs", nargs="+", default=["higgs:50000:500", "higgs:100000:1000",
                                                     "green-red:100000:1000"])
    ap.add_argument("--lo", type=int, default=4)
    ap.add_argument("--hi", type=int, default=16)
    ap.add_argument("--tol", default="1e-6")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--no-converge", action="store_true", help="skip the CG run to --tol")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kern-auto-")
    rows = []
    try:
        for conf in a.configs:
            data, n, m = conf.split(":")
            n, m = int(n), int(m)
            path = os.path.join(tmp, f"{data}{n}.csv")
            if data == "higgs":
                higgs_like.write_csv(path, *higgs_like.higgs_like(n, 1))
            else:
                write_gr(path, *green_red(n, n))
            kernel, lam = KERNELS[data]
            model = os.path.join(tmp, "m.kern")
            base = [a.kern, "train", "--data", path, "--model", "lssvm", "--kernel", kernel, "--gam", lam,
                    "--landmarks", f"random:{m}", "--seed", "0", "--out", model]
            small = ["--max-memory", str(n * m * 8)]

            def run(extra, what):
                best = None
                for _ in range(a.reps):
                    j, rss, wall = timed_run(base + extra)
                    if best is None or j["seconds"] < best[0]["seconds"]:
                        best = (j, rss)
                j, rss = best
                row = {"config": conf, "run": what, "seconds": j["seconds"], "rss_mib": round(rss),
                       "solver": j["solver"], "iterations": j["iterations"], "passes": j["passes"],
                       "kept": j["kept_kernel_matrix"], "converged": j["converged"]}
                print(json.dumps(row), flush=True)
                rows.append(row)
                return j

            capped = lambda k: ["--solver", "iterative", "--tol", "1e-300", "--max-iter", str(k)]  # noqa: E731
            klo, khi = run(capped(a.lo), f"kept {a.lo}"), run(capped(a.hi), f"kept {a.hi}")
            rlo, rhi = run(capped(a.lo) + small, f"recomputed {a.lo}"), run(capped(a.hi) + small,
                                                                             f"recomputed {a.hi}")
            direct = run(["--solver", "direct", "--tol", a.tol], "direct")
            conv = None if a.no_converge else run(["--solver", "iterative", "--tol", a.tol], "cg to tol")
            auto = run(["--solver", "auto", "--tol", a.tol], "auto")
            summary = {"config": conf, "d": 28 if data == "higgs" else 2}
            for name, lo, hi in [("kept", klo, khi), ("recomputed", rlo, rhi)]:
                it = (hi["seconds"] - lo["seconds"]) / (hi["passes"] - lo["passes"])
                common = lo["seconds"] - (lo["passes"] - 1) * it
                summary[f"{name}_iteration_s"] = round(it, 4)
                summary[f"direct_in_{name}_iterations"] = round((direct["seconds"] - common) / it, 1)
                # Flop-equivalents per kernel value of one iteration, on the direct solve's scale.
                dflops = n * m * (2 * m + 1) + 13 / 3 * m ** 3
                summary[f"{name}_flops_per_value"] = round(dflops / ((direct["seconds"] - common) / it) / (n * m), 1)
            summary.update({"direct_s": direct["seconds"], "cg_iterations": conv and conv["iterations"],
                            "cg_s": conv and conv["seconds"], "auto_s": auto["seconds"],
                            "auto_solver": auto["solver"], "auto_iterations": auto["iterations"]})
            print(json.dumps({"summary": summary}), flush=True)
            rows.append({"summary": summary})
            os.remove(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    keys = ["config", "d", "kept_iteration_s", "recomputed_iteration_s", "direct_s", "direct_in_kept_iterations",
            "direct_in_recomputed_iterations", "kept_flops_per_value", "recomputed_flops_per_value",
            "cg_iterations", "cg_s", "auto_solver", "auto_iterations", "auto_s"]
    print("\n| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        if "summary" in r:
            print("| " + " | ".join(str(r["summary"].get(k)) for k in keys) + " |")


if __name__ == "__main__":
    main()
