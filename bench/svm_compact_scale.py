#!/usr/bin/env python3
"""Compactly supported SVM at scale: the precomputed sparse kernel matrix against columns on demand.

Not part of CI. Needs numpy and a release build of `kern` (`cargo build --release -p kernml-cli`).
Green-red data (bench/svm_compare.py's generator, seed 2004, as bench/svm_scale.py's grcs-N) are
written once per n as LIBSVM files into --work. Each fit is one `kern train` process under
`/usr/bin/time -v`: C-SVC, kernel cs-gaussian:sigma=0.6,c=0.1,nu=3, C = 1.

Modes:
  precomputed  the default rule (the sparse kernel matrix is precomputed while it takes at most half
               the memory budget)
  on-demand    `kern --max-memory M` with M below twice the predicted matrix, so its columns are
               computed on demand (M = --od-max-memory)

For every n the table gives the training seconds (kern's JSON), user CPU and wall (time -v), peak
RSS, iterations, per-iteration CPU, #SV, the objective, and whether the model files of the two modes
are byte-identical.

Usage: python3 bench/svm_compact_scale.py --n 50000,200000 [--modes precomputed,on-demand]
           [--kern target/release/kern] [--work /dev/shm/kern-compact] [--cache-mb 100]
           [--od-max-memory 300M]
"""
import argparse, filecmp, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from svm_compare import green_red, write_libsvm  # noqa: E402

KERNEL = "cs-gaussian:sigma=0.6,c=0.1,nu=3"


def run(cmd):
    """Runs cmd under /usr/bin/time -v; returns (stdout, user s, wall s, peak RSS MiB)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
    w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr).group(1)
    wall = sum(float(v) * 60 ** i for i, v in enumerate(reversed(w.split(":"))))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return p.stdout, user, wall, rss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", default="50000,200000")
    p.add_argument("--modes", default="precomputed,on-demand")
    p.add_argument("--kern", default=os.path.join(ROOT, "target/release/kern"))
    p.add_argument("--work", default="/dev/shm/kern-compact")
    p.add_argument("--cache-mb", default="100")
    p.add_argument("--od-max-memory", default="300M")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    print("| n | mode | train s | user CPU s | wall s | peak RSS MiB | iterations | CPU/iter µs | #SV | objective | same bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in map(int, a.n.split(",")):
        path = f"{a.work}/grcs-{n}.svm"
        if not os.path.exists(path):
            x, y, _ = green_red(n, 2004)
            write_libsvm(path, x, y)
        models = []
        for mode in a.modes.split(","):
            out = f"{path}.{mode}.kmodel"
            glob = ["--max-memory", a.od_max_memory] if mode == "on-demand" else []
            stdout, user, wall, rss = run([a.kern, "--quiet", *glob, "train", "--data", path, "--model", "svc",
                                           "--kernel", KERNEL, "--c", "1", "--cache-mb", a.cache_mb,
                                           "--out", out])
            j = json.loads(stdout.strip().splitlines()[-1])
            m = j["machines"][0] if isinstance(j.get("machines"), list) else {}
            it = m.get("iterations") or 0
            same = filecmp.cmp(models[0], out, shallow=False) if models else ""
            models.append(out)
            per = f"{1e6 * user / it:.0f}" if it else ""
            print(f"| {n:,} | {mode} | {j['seconds']:.1f} | {user:.1f} | {wall:.1f} | {rss:.0f} | {it:,} | {per} | "
                  f"{j.get('n_sv', m.get('n_sv'))} | {m.get('objective')} | {same} |", flush=True)


if __name__ == "__main__":
    main()
