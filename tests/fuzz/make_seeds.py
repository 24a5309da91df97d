#!/usr/bin/env python3
"""Writes the small HDF5 seed files of the fuzz targets (tests/fuzz/CMakeLists.txt runs it at build
time): valid inputs for each reader in a few storage layouts (contiguous, chunked, gzip/shuffle,
float64, int64, fixed-length and variable-length string attributes), each well under 10 KB, plus a
few near-misses (wrong dtype, rank, shape) that exercise the error paths. Deterministic: no time
stamps in the object headers, fixed values.

usage: make_seeds.py OUTDIR   (writes OUTDIR/{knn,kmeans,hplai,circuit}/*.h5)
"""
import os
import sys

import h5py
import numpy as np


def grid(rows, cols, dtype=np.float32, offset=0.0):
    return (np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) * 0.25 + offset).astype(dtype)


def write(path, datasets, attrs=None, group_attrs=None, libver="earliest"):
    """datasets: {name: (array, kwargs)}; attrs: root attributes; group_attrs: {group: {attr: value}}.
    libver "earliest" (superblock 0, symbol-table groups) or "latest" (superblock 3, compact groups,
    new-style chunk indexes): both layouts are in the corpus."""
    with h5py.File(path, "w", libver=libver, track_order=False) as f:
        for name, (arr, kw) in datasets.items():
            f.create_dataset(name, data=arr, track_times=False, **kw)
        for k, v in (attrs or {}).items():
            f.attrs[k] = v
        for g, a in (group_attrs or {}).items():
            grp = f.require_group(g)
            for k, v in a.items():
                grp.attrs[k] = v


def knn(out):
    n, q, d = 8, 3, 4
    train, test = grid(n, d), grid(q, d, offset=0.1)
    nb = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4]], dtype=np.int32)
    write(f"{out}/plain.h5", {"/train": (train, {}), "/test": (test, {}), "/neighbors": (nb, {})},
          attrs={"distance": "euclidean"})
    write(f"{out}/chunked_gzip_int64.h5",
          {"/train": (train, {"chunks": (4, 4), "compression": "gzip", "shuffle": True}),
           "/test": (test, {"chunks": (1, 4)}), "/neighbors": (nb.astype(np.int64), {})},
          attrs={"distance": np.bytes_(b"euclidean")}, libver="latest")
    write(f"{out}/float64_no_truth.h5", {"/train": (train.astype(np.float64), {}), "/test": (test, {})})
    write(f"{out}/bad_truth.h5", {"/train": (train, {}), "/test": (test, {}),
                                  "/neighbors": (nb + 100, {})}, attrs={"distance": "angular"})


def kmeans(out):
    n, d, k = 12, 3, 2
    data = grid(n, d)
    labels = (np.arange(n) % k).astype(np.int32)
    write(f"{out}/plain.h5", {"/data": (data, {}), "/labels": (labels, {}),
                              "/init_centroids": (grid(k, d), {})})
    write(f"{out}/chunked_gzip.h5", {"/data": (data, {"chunks": (4, 3), "compression": "gzip"}),
                                     "/labels": (labels.astype(np.int64), {"chunks": (6,)})}, libver="latest")
    write(f"{out}/float64_only.h5", {"/data": (data.astype(np.float64), {})})
    write(f"{out}/wrong_rank.h5", {"/data": (data.reshape(-1), {}), "/labels": (labels[:3], {})})


def hplai(out):
    n = 4
    a = grid(n, n, np.float64) - 1.0
    a += np.eye(n) * 10
    b = np.arange(n, dtype=np.float64)
    write(f"{out}/plain.h5", {"/A": (a, {}), "/b": (b, {})})
    write(f"{out}/float32_column_b.h5", {"/A": (a.astype(np.float32), {"chunks": (2, 2), "compression": "gzip"}),
                                         "/b": (b.reshape(n, 1).astype(np.float32), {})})
    write(f"{out}/not_square.h5", {"/A": (a[:3], {}), "/b": (b, {})})


def circuit(out):
    s = 1 / np.sqrt(2)
    h = [[s, 0], [s, 0], [s, 0], [-s, 0]]
    x = [[0, 0], [1, 0], [1, 0], [0, 0]]
    cz = [[1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [1, 0], [0, 0], [0, 0],
          [0, 0], [0, 0], [1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [-1, 0]]
    arity = np.array([[1, 0], [1, 1], [2, 0]], dtype=np.int32)     # H q0; CX q0->q1; CZ on (q1, q2)
    qubits = np.array([0, 1, 0, 1, 2], dtype=np.int32)
    mats = np.array(h + x + cz, dtype=np.float64)
    meas = np.array([[0, 0], [1, 1], [2, 2]], dtype=np.int32)
    attrs = {"num_qubits": np.int64(3), "num_gates": np.int64(3), "num_clbits": np.int64(3),
             "format": "qsim-circuit-1", "name": "bell3"}
    write(f"{out}/bell3.h5", {"/circuit/gate_arity": (arity, {}), "/circuit/qubits": (qubits, {}),
                              "/circuit/matrices": (mats, {}), "/circuit/measurements": (meas, {})},
          group_attrs={"/circuit": attrs}, libver="latest")
    write(f"{out}/chunked_fixed_strings.h5",
          {"/circuit/gate_arity": (arity, {"chunks": (1, 2)}), "/circuit/qubits": (qubits, {"chunks": (2,)}),
           "/circuit/matrices": (mats, {"chunks": (4, 2), "compression": "gzip"})},
          group_attrs={"/circuit": dict(attrs, format=np.bytes_(b"qsim-circuit-1"), name=np.bytes_(b"c"))},
          libver="latest")
    write(f"{out}/empty.h5", {}, group_attrs={"/circuit": {"num_qubits": np.int64(2), "num_gates": np.int64(0),
                                                           "format": "qsim-circuit-1"}}, libver="latest")
    write(f"{out}/bad_unitary.h5", {"/circuit/gate_arity": (arity[:1], {}), "/circuit/qubits": (qubits[:1], {}),
                                    "/circuit/matrices": (np.array(x, dtype=np.float64) * 2, {})},
          group_attrs={"/circuit": dict(attrs, num_gates=np.int64(1))}, libver="latest")


def main():
    out = sys.argv[1]
    for name, fn in (("knn", knn), ("kmeans", kmeans), ("hplai", hplai), ("circuit", circuit)):
        os.makedirs(f"{out}/{name}", exist_ok=True)
        fn(f"{out}/{name}")


if __name__ == "__main__":
    main()
