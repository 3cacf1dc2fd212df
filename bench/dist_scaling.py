#!/usr/bin/env python3
"""Strong and weak scaling of kern-mpi's two distributed solvers, with the bytes each rank sends.

Not part of CI. Needs OpenMPI (`mpirun`) and a release build of kern-mpi with MPI
(`cargo build --release -p kernml-dist --features mpi --bin kern-mpi`). One command:

    python3 bench/dist_scaling.py [--n 1000000] [--work /dev/shm/kern-dist-scaling] [--only nystrom,compact]

Problems (data written once as LIBSVM files into --work, deleted at the end unless --keep):
  nystrom   n points of 8 features (each uniform in [-1, 1], label the sign of a smooth function), LS-SVM
            with a Gaussian kernel sigma = 1.5, random:200 centres, lambda = 1e-3, FALKON preconditioner,
            tol 1e-6, conjugate gradients (so that the bytes per iteration are measured; `auto` would
            take the direct solve at this m): `kern-mpi train --landmarks random:200 --solver iterative`
  compact   n points uniform in [0, 100]^2 (labels a checkerboard), LS-SVM with the compact kernel
            cs-gaussian:sigma=0.15,c=0.3, lambda = 1, plain conjugate gradients, tol 1e-6:
            `kern-mpi train --solver iterative`

Runs (each rank with --threads 1, so P ranks use P cores; on a 2-core machine P = 4 is oversubscribed):
  strong    n points on P = 1, 2
  weak      n/4 points per rank on P = 1, 2, 4 (n/4, n/2, n points)

For every run: kern-mpi's own training seconds (rank 0), the wall time of mpirun, the peak RSS of the
largest process (`/usr/bin/time -v`: the largest of mpirun's descendants), the iterations, and what
rank 0 sent (kern-mpi's "traffic": allreduce bytes and calls, other bytes and calls), per iteration
too. Best (minimum) seconds of --repeats runs; the spread (max - min) is printed beside it.
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_nystrom(path, n, seed=11):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(n):
            x = [rng.uniform(-1.0, 1.0) for _ in range(8)]
            s = math.sin(2.0 * x[0]) + x[1] * x[2] - 0.5 * x[3] + 0.3 * math.cos(3.0 * x[4])
            f.write(("1" if s > 0 else "-1") + "".join(f" {j + 1}:{v:.5f}" for j, v in enumerate(x)) + "\n")


def write_compact(path, n, seed=7):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(n):
            a, b = rng.uniform(0.0, 100.0), rng.uniform(0.0, 100.0)
            label = "1" if (int(a) + int(b)) % 2 == 0 else "-1"
            f.write(f"{label} 1:{a:.5f} 2:{b:.5f}\n")


PROBLEMS = {
    "nystrom": (write_nystrom, ["--model", "lssvm", "--kernel", "gaussian:sigma=1.5", "--landmarks", "random:200",
                                "--lambda", "1e-3", "--seed", "1", "--solver", "iterative", "--tol", "1e-6",
                                "--max-iter", "500"]),
    "compact": (write_compact, ["--model", "lssvm", "--kernel", "cs-gaussian:sigma=0.15,c=0.3", "--lambda", "1",
                                "--solver", "iterative", "--tol", "1e-6"]),
}


def run(kern_mpi, p, data, args, out):
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    cmd = ["/usr/bin/time", "-v", "mpirun", *root, "--oversubscribe", "-np", str(p), kern_mpi, "train",
           "--data", data, *args, "--threads", "1", "--out", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    j = json.loads(r.stdout.strip().splitlines()[-1])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", r.stderr).group(1)
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return j, rss, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--work", default="/dev/shm/kern-dist-scaling")
    ap.add_argument("--only", default="nystrom,compact")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the data files")
    ap.add_argument("--kern-mpi", default=os.path.join(ROOT, "target", "release", "kern-mpi"))
    a = ap.parse_args()
    if not os.path.exists(a.kern_mpi):
        sys.exit(f"{a.kern_mpi} not found: cargo build --release -p kernml-dist --features mpi --bin kern-mpi")
    os.makedirs(a.work, exist_ok=True)
    rows = []
    try:
        for name in a.only.split(","):
            write, args = PROBLEMS[name]
            sizes = {a.n: None, a.n // 2: None, a.n // 4: None}
            for n in sizes:
                path = os.path.join(a.work, f"{name}-{n}.svm")
                write(path, n)
                sizes[n] = path
            plan = [("strong", 1, a.n), ("strong", 2, a.n), ("weak", 1, a.n // 4), ("weak", 2, a.n // 2),
                    ("weak", 4, a.n)]
            done = {}
            for kind, p, n in plan:
                if (p, n) not in done:
                    runs = [run(a.kern_mpi, p, sizes[n], args, os.path.join(a.work, "model.kern"))
                            for _ in range(a.repeats)]
                    done[(p, n)] = runs
                runs = done[(p, n)]
                secs = [r[0]["seconds"] for r in runs]
                j, rss, wall = min(runs, key=lambda r: r[0]["seconds"])
                t = j["traffic"]
                it = max(j["iterations"], 1)
                rows.append({
                    "problem": name, "scaling": kind, "P": p, "n": n, "seconds": min(secs),
                    "spread": max(secs) - min(secs), "wall": wall, "peak_rss_mib": rss / 1024,
                    "iterations": j["iterations"], "allreduce_bytes": t["allreduce_bytes"],
                    "allreduce_calls": t["allreduce_calls"], "other_bytes": t["other_bytes"],
                    "other_calls": t["other_calls"], "allreduce_bytes_per_iteration": t["allreduce_bytes"] / it,
                })
                print(json.dumps(rows[-1]), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(a.work, ignore_errors=True)
    print()
    print("| problem | scaling | P | n | seconds (spread) | wall | peak RSS | iterations | rank 0 allreduce B (calls) | per iteration | other B (calls) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['problem']} | {r['scaling']} | {r['P']} | {r['n']:,} | {r['seconds']:.1f} ({r['spread']:.1f}) | "
              f"{r['wall']:.1f} s | {r['peak_rss_mib']:.0f} MiB | {r['iterations']} | "
              f"{r['allreduce_bytes']:,} ({r['allreduce_calls']}) | {r['allreduce_bytes_per_iteration']:,.0f} | "
              f"{r['other_bytes']:,} ({r['other_calls']}) |")


if __name__ == "__main__":
    main()
