#!/usr/bin/python3
"""Convert Fashion-MNIST (Debian package dataset-fashion-mnist) to the HDF5 inputs of the tcemu apps.

Writes, into --out-dir (default: <repo>/data):

  fashion-mnist-784-euclidean.h5   ann-benchmarks layout, as ann-benchmarks publishes it:
      /train      60000 x 784 float32   raw pixel values 0..255 (training images, row-major)
      /test       10000 x 784 float32   raw pixel values 0..255 (test images = queries)
      /neighbors  10000 x 100 int32     indices into /train of the 100 nearest neighbours of each query
      /distances  10000 x 100 float32   their Euclidean distances (sqrt of the squared distance)
      attributes: distance="euclidean", type="dense", point_type="float", dimension=784
  fashion-mnist-kmeans.h5           input of the kmeans app:
      /data       70000 x 784 float32   train images then test images, raw 0..255
      /labels     70000 int32           class labels 0..9 in the same order

Ground truth is exact: pixels are integers, so ||x||^2 + ||y||^2 - 2 x.y evaluated in float64 (with
dot products below 784 * 255^2 < 2^53) is the exact squared distance. Ties are broken by the smaller
train index, so the output is deterministic.

Run with Debian's interpreter (/usr/bin/python3 with python3-numpy and python3-h5py). Files that
already exist are skipped unless --force. Each file is written to a temporary name and renamed when
complete, so an interrupted run leaves nothing half-written.
"""
import argparse
import gzip
import os
import struct
import sys
import time

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover - environment problem
    sys.exit(f"prepare_fashion_mnist: error: {e}; run with /usr/bin/python3 "
             "(Debian packages python3-numpy and python3-h5py)")

PROG = "prepare_fashion_mnist"
IDX_IMAGES_MAGIC = 0x00000803  # unsigned byte, 3 dimensions
IDX_LABELS_MAGIC = 0x00000801  # unsigned byte, 1 dimension


class PrepError(Exception):
    """A one-line, user-facing error."""


def read_idx(path, magic, rank):
    """Reads a gzip-compressed IDX file of unsigned bytes; returns a uint8 array of the header's shape."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise PrepError(f"{path}: no such file (install the Debian package dataset-fashion-mnist)")
    except (OSError, EOFError) as e:
        raise PrepError(f"{path}: cannot read gzip data: {e}")
    header = 4 + 4 * rank
    if len(raw) < header:
        raise PrepError(f"{path}: truncated IDX header ({len(raw)} bytes)")
    (found,) = struct.unpack(">I", raw[:4])
    if found != magic:
        raise PrepError(f"{path}: bad IDX magic number 0x{found:08x} (expected 0x{magic:08x})")
    dims = struct.unpack(">" + "I" * rank, raw[4:header])
    expected = header + int(np.prod(dims))
    if len(raw) != expected:
        raise PrepError(f"{path}: size {len(raw)} bytes does not match IDX shape {dims} "
                        f"({expected} bytes expected)")
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(dims)


def load_split(source_dir, split):
    """Images (n x 784 uint8) and labels (n uint8) of 'train' or 't10k'."""
    img_path = os.path.join(source_dir, f"{split}-images-idx3-ubyte.gz")
    lab_path = os.path.join(source_dir, f"{split}-labels-idx1-ubyte.gz")
    images = read_idx(img_path, IDX_IMAGES_MAGIC, 3)
    labels = read_idx(lab_path, IDX_LABELS_MAGIC, 1)
    if images.shape[0] != labels.shape[0]:
        raise PrepError(f"{img_path}: {images.shape[0]} images but {lab_path} has {labels.shape[0]} labels")
    if labels.max() > 9:
        raise PrepError(f"{lab_path}: label {int(labels.max())} outside 0..9")
    return images.reshape(images.shape[0], -1), labels


def exact_neighbors(train, test, count, batch):
    """Exact `count` nearest train rows of every test row (squared Euclidean distance in float64).

    Returns (indices int32 q x count, squared distances float64 q x count), ordered by (distance,
    index): ties go to the smaller train index.
    """
    t64 = train.astype(np.float64)
    q64 = test.astype(np.float64)
    tnorm = np.einsum("ij,ij->i", t64, t64)
    qnorm = np.einsum("ij,ij->i", q64, q64)
    q = test.shape[0]
    idx_out = np.empty((q, count), dtype=np.int32)
    d2_out = np.empty((q, count), dtype=np.float64)
    started = time.time()
    for lo in range(0, q, batch):
        hi = min(q, lo + batch)
        d2 = q64[lo:hi] @ t64.T
        d2 *= -2.0
        d2 += qnorm[lo:hi, None]
        d2 += tnorm[None, :]
        # Exact integers: the count-th smallest value is the threshold; everything at or below it is a
        # candidate (ties can add more than `count`), ordered by (distance, index).
        kth = np.partition(d2, count - 1, axis=1)[:, count - 1]
        for r in range(hi - lo):
            cand = np.flatnonzero(d2[r] <= kth[r])
            order = np.lexsort((cand, d2[r, cand]))[:count]
            idx_out[lo + r] = cand[order]
            d2_out[lo + r] = d2[r, cand[order]]
        print(f"{PROG}:   neighbours {hi}/{q} queries ({time.time() - started:.1f} s)", flush=True)
    return idx_out, d2_out


def write_atomically(path, fill):
    """Calls fill(h5py.File) on '<path>.tmp.<pid>' and renames it to path on success."""
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with h5py.File(tmp, "w") as f:
            fill(f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-dir", default="/usr/share/datasets/fashion-mnist",
                    help="directory of the IDX .gz files (default: %(default)s)")
    ap.add_argument("--out-dir", default=os.path.join(repo, "data"), help="output directory (default: %(default)s)")
    ap.add_argument("--neighbors", type=int, default=100, help="ground-truth neighbours per query (default: 100)")
    ap.add_argument("--batch", type=int, default=500, help="queries per float64 distance block (default: 500)")
    ap.add_argument("--force", action="store_true", help="rebuild files that already exist")
    args = ap.parse_args()

    knn_path = os.path.join(args.out_dir, "fashion-mnist-784-euclidean.h5")
    km_path = os.path.join(args.out_dir, "fashion-mnist-kmeans.h5")
    todo = [p for p in (knn_path, km_path) if args.force or not os.path.exists(p)]
    if not todo:
        print(f"{PROG}: {knn_path} and {km_path} exist (use --force to rebuild)")
        return 0
    if not os.path.isdir(args.out_dir):
        raise PrepError(f"{args.out_dir}: output directory does not exist")
    if not 1 <= args.neighbors <= 60000 or args.batch < 1:
        raise PrepError("--neighbors must be in 1..60000 and --batch >= 1")

    t0 = time.time()
    train, train_labels = load_split(args.source_dir, "train")
    test, test_labels = load_split(args.source_dir, "t10k")
    if train.shape[1] != test.shape[1]:
        raise PrepError(f"{args.source_dir}: train has {train.shape[1]} pixels per image, test {test.shape[1]}")
    print(f"{PROG}: read {train.shape[0]} train and {test.shape[0]} test images of {train.shape[1]} pixels "
          f"from {args.source_dir} ({time.time() - t0:.1f} s)", flush=True)

    if knn_path in todo:
        print(f"{PROG}: exact {args.neighbors} nearest neighbours in float64 ...", flush=True)
        idx, d2 = exact_neighbors(train, test, args.neighbors, args.batch)

        def fill_knn(f):
            f.create_dataset("train", data=train.astype(np.float32))
            f.create_dataset("test", data=test.astype(np.float32))
            f.create_dataset("neighbors", data=idx)
            f.create_dataset("distances", data=np.sqrt(d2).astype(np.float32))
            f.attrs["distance"] = "euclidean"
            f.attrs["type"] = "dense"
            f.attrs["point_type"] = "float"
            f.attrs["dimension"] = np.int64(train.shape[1])
            f.attrs["source"] = "Debian dataset-fashion-mnist (IDX), tcemu scripts/prepare_fashion_mnist.py"

        write_atomically(knn_path, fill_knn)
        print(f"{PROG}: wrote {knn_path} ({time.time() - t0:.1f} s)", flush=True)

    if km_path in todo:
        def fill_kmeans(f):
            f.create_dataset("data", data=np.concatenate([train, test]).astype(np.float32))
            f.create_dataset("labels", data=np.concatenate([train_labels, test_labels]).astype(np.int32))
            f.attrs["source"] = "Debian dataset-fashion-mnist (IDX): train images then t10k images"
            f.attrs["classes"] = np.int64(10)

        write_atomically(km_path, fill_kmeans)
        print(f"{PROG}: wrote {km_path} ({time.time() - t0:.1f} s)", flush=True)
    print(f"{PROG}: done in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except PrepError as e:
        sys.exit(f"{PROG}: error: {e}")
    except KeyboardInterrupt:
        sys.exit(f"{PROG}: interrupted; no output file was left half-written")
