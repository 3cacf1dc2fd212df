"""One model file, three front ends: the Python package, `kern predict` and `kern-mpi predict` give the
same predictions (all three go through kern-models' one model registry)."""

import os
import pathlib
import pickle
import subprocess

import numpy as np
import kern
from kern import _kern


def binary(name):
    """A command of the workspace's release build (`$KERN_BIN` for `kern`)."""
    env = os.environ.get("KERN_BIN")
    if env and name == "kern":
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parents[3] / "target" / "release" / name


def write_libsvm(path, x):
    with open(path, "w") as f:
        for row in x:
            f.write("0 " + " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row)) + "\n")


def test_python_kern_predict_and_kern_mpi_predict_agree(gr, tmp_path):
    assert binary("kern").is_file(), "the kern command is not built: run `cargo build --release` (or set KERN_BIN)"
    x, y, xt, _ = gr
    est = kern.SVC(probability=True, random_state=0).fit(x[:300], y[:300])
    model, data = tmp_path / "m.kern", tmp_path / "new.svm"
    model.write_bytes(est._model.to_bytes())
    write_libsvm(data, xt[:200])
    m = _kern.Model.from_bytes(model.read_bytes())
    labels, dec, proba = m.predict_all(xt[:200], True)
    # The estimator's own predictions come from the same pass.
    np.testing.assert_array_equal(est.predict(xt[:200]), est.classes_[np.array([int(c) for c in labels])])
    np.testing.assert_array_equal(proba, est.predict_proba(xt[:200]))

    def kern_predict(values):
        out = tmp_path / f"{values}.txt"
        subprocess.run(
            [str(binary("kern")), "predict", "--model", str(model), "--data", str(data), "--out", str(out),
             "--values", values],
            check=True,
            capture_output=True,
        )
        return out.read_text().splitlines()

    assert kern_predict("label") == labels
    got = np.array([[float(v) for v in line.split()] for line in kern_predict("decision")])
    np.testing.assert_allclose(got, dec, rtol=1e-12, atol=1e-12)
    lines = kern_predict("probability")
    assert lines[0] == "labels 0 1"
    np.testing.assert_allclose(
        np.array([[float(v) for v in line.split()[1:]] for line in lines[1:]]), proba, rtol=1e-12, atol=1e-12
    )
    if binary("kern-mpi").is_file():
        out = tmp_path / "mpi.txt"
        subprocess.run(
            [str(binary("kern-mpi")), "predict", "--model", str(model), "--data", str(data), "--out", str(out)],
            check=True,
            capture_output=True,
        )
        assert out.read_text().splitlines() == labels


def test_fvs_pickles_as_a_kern_model_file_and_old_pickles_still_load():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 3))
    est = kern.FeatureVectorSelection(n_components=6, kernel="rbf", gamma=0.5).fit(x)
    raw = est._model.to_bytes()
    assert raw[:8] == b"KERNMODL" and raw[12:15] == b"fvs"
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).transform(x), est.transform(x))
    # The bytes the package wrote before the map had a kind of its own: its prefix, then the payload.
    legacy = b"kern-python fvs-map\n" + raw[40:]
    np.testing.assert_array_equal(_kern.Model.from_bytes(legacy).transform(x), est.transform(x))
