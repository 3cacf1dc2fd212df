#!/usr/bin/env python3
"""Generate a synthetic bag-of-words classification set as LIBSVM files (train and test).

Documents have log-normal lengths (median ~100 words); word ids are Zipf-distributed over a
vocabulary of d words. The two classes draw from the same Zipf law over two different random
permutations of the vocabulary's tail, mixed with a shared head, so they differ in word distribution
but overlap. Features are tf-idf (idf from the training set), rows L2-normalised; indices are 1-based
and ascending, as LIBSVM requires. Everything is seeded: the same arguments give the same bytes.

    python3 bench/bow_gen.py --out /tmp/bow --n-train 20000 --n-test 5000 --d 1000000 --seed 1
"""

import argparse
import numpy as np


def documents(rng, n, d, zipf_a, perms, share):
    """Word-id lists and labels of n documents."""
    labels = rng.integers(0, 2, size=n)
    lengths = np.maximum(1, rng.lognormal(mean=np.log(100.0), sigma=0.5, size=n).astype(np.int64))
    docs = []
    for y, m in zip(labels, lengths):
        ranks = rng.zipf(zipf_a, size=m)
        ranks = ranks[ranks <= d] - 1
        # The `share` most frequent ranks mean the same words in both classes; the rest are permuted.
        words = np.where(ranks < share, ranks, perms[y][ranks])
        docs.append(words)
    return docs, labels


def write(path, docs, labels, idf):
    with open(path, "w") as f:
        for words, y in zip(docs, labels):
            ids, tf = np.unique(words, return_counts=True)
            w = tf * idf[ids]
            w /= np.linalg.norm(w)
            f.write(("+1" if y == 1 else "-1") + "".join(f" {i + 1}:{v:.6g}" for i, v in zip(ids, w)) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output prefix: PREFIX.train.svm, PREFIX.test.svm")
    ap.add_argument("--n-train", type=int, default=20000)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--d", type=int, default=1_000_000)
    ap.add_argument("--zipf", type=float, default=1.1, help="Zipf exponent of word ranks")
    ap.add_argument("--share", type=int, default=200, help="most frequent ranks shared by both classes")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    perms = [rng.permutation(a.d), rng.permutation(a.d)]
    train, ytr = documents(rng, a.n_train, a.d, a.zipf, perms, a.share)
    test, yte = documents(rng, a.n_test, a.d, a.zipf, perms, a.share)
    df = np.zeros(a.d)
    for words in train:
        df[np.unique(words)] += 1
    idf = np.log((1 + a.n_train) / (1 + df)) + 1.0
    write(f"{a.out}.train.svm", train, ytr, idf)
    write(f"{a.out}.test.svm", test, yte, idf)
    nnz = sum(len(np.unique(w)) for w in train)
    print(f"train {a.n_train} x {a.d}, {nnz} nonzeros ({nnz / a.n_train:.1f} per row); test {a.n_test}")


if __name__ == "__main__":
    main()
