"""Valid, tiny inputs for the four apps (the starting points that the campaign corrupts).

Every builder takes a `random.Random` and writes into a path; the content depends only on the
generator's state, so a case is reproducible from (seed, case index).
"""
import cmath
import math

import h5py
import numpy as np

QELIB_1Q = ["h", "x", "y", "z", "s", "sdg", "t", "tdg", "id"]
QELIB_1Q_PARAM = {"rx": 1, "ry": 1, "rz": 1, "u1": 1, "u2": 2, "u3": 3}
QELIB_2Q = ["cx", "cz", "cy", "ch"]
QELIB_2Q_PARAM = {"crz": 1, "cu1": 1, "cu3": 3}
ANGLES = ["pi/2", "-pi/4", "0.3", "1e-3", "2*pi", "pi", "-0.5*pi", "3*pi/8", "0"]


def nprng(rng):
    return np.random.default_rng(rng.getrandbits(63))


# ------------------------------------------------------------------------------------------ knn

def knn_arrays(rng, n=50, d=8, q=10, dtype=np.float32):
    g = nprng(rng)
    train = g.random((n, d)).astype(dtype)
    test = g.random((q, d)).astype(dtype)
    return train, test


def true_neighbors(train, test, k):
    t = train.astype(np.float64)
    x = test.astype(np.float64)
    dist = ((x[:, None, :] - t[None, :, :]) ** 2).sum(-1)
    return np.argsort(dist, axis=1, kind="stable")[:, :k].astype(np.int32)


def write_knn(path, rng, n=50, d=8, q=10, neighbors=True, dtype=np.float32, **dskw):
    train, test = knn_arrays(rng, n, d, q, dtype)
    with h5py.File(path, "w") as f:
        f.create_dataset("train", data=train, **dskw)
        f.create_dataset("test", data=test, **dskw)
        if neighbors:
            f.create_dataset("neighbors", data=true_neighbors(train, test, min(10, n)), **dskw)
        f.attrs["distance"] = "euclidean"
    return dict(n=n, d=d, q=q)


# --------------------------------------------------------------------------------------- kmeans

def kmeans_arrays(rng, n=100, d=4, clusters=3, dtype=np.float32):
    g = nprng(rng)
    centers = g.normal(0, 5, (clusters, d))
    labels = g.integers(0, clusters, n)
    data = centers[labels] + g.normal(0, 1, (n, d))
    return data.astype(dtype), labels.astype(np.int32)


def write_kmeans(path, rng, n=100, d=4, k_init=None, labels=True, dtype=np.float32, **dskw):
    data, lab = kmeans_arrays(rng, n, d, dtype=dtype)
    with h5py.File(path, "w") as f:
        f.create_dataset("data", data=data, **dskw)
        if labels:
            f.create_dataset("labels", data=lab, **dskw)
        if k_init:
            f.create_dataset("init_centroids", data=data[:k_init].astype(np.float32), **dskw)
    return dict(n=n, d=d)


# ---------------------------------------------------------------------------------------- hplai

def hplai_arrays(rng, n=16, dtype=np.float64):
    g = nprng(rng)
    a = g.random((n, n)) - 0.5
    np.fill_diagonal(a, 0.0)
    a += np.diag(np.abs(a).sum(1) + 1.0)
    b = g.random(n) - 0.5
    return a.astype(dtype), b.astype(dtype)


def write_hplai(path, rng, n=16, dtype=np.float64, **dskw):
    a, b = hplai_arrays(rng, n, dtype)
    with h5py.File(path, "w") as f:
        f.create_dataset("A", data=a, **dskw)
        f.create_dataset("b", data=b, **dskw)
    return dict(n=n)


# ----------------------------------------------------------------------------------------- qsim

def qasm_text(rng, n=None, gates=None, measure=None):
    n = n or rng.randint(1, 6)
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{n}];", f"creg c[{n}];"]
    for _ in range(gates if gates is not None else rng.randint(1, 20)):
        r = rng.random()
        if n >= 3 and r < 0.05:
            a, b, c = rng.sample(range(n), 3)
            lines.append(f"ccx q[{a}],q[{b}],q[{c}];")
        elif n >= 2 and r < 0.35:
            a, b = rng.sample(range(n), 2)
            if rng.random() < 0.5:
                lines.append(f"{rng.choice(QELIB_2Q)} q[{a}],q[{b}];")
            else:
                name, k = rng.choice(sorted(QELIB_2Q_PARAM.items()))
                ps = ",".join(rng.choice(ANGLES) for _ in range(k))
                lines.append(f"{name}({ps}) q[{a}],q[{b}];")
        elif r < 0.65:
            lines.append(f"{rng.choice(QELIB_1Q)} q[{rng.randrange(n)}];")
        elif r < 0.68:
            lines.append("barrier q;")
        else:
            name, k = rng.choice(sorted(QELIB_1Q_PARAM.items()))
            ps = ",".join(rng.choice(ANGLES) for _ in range(k))
            lines.append(f"{name}({ps}) q[{rng.randrange(n)}];")
    if measure if measure is not None else rng.random() < 0.5:
        lines.append("measure q -> c;")
    return "\n".join(lines) + "\n"


def haar(g, dim):
    z = (g.normal(size=(dim, dim)) + 1j * g.normal(size=(dim, dim))) / math.sqrt(2)
    q, r = np.linalg.qr(z)
    ph = np.diag(r) / np.abs(np.diag(r))
    return q * ph


H = np.array([[1, 1], [1, -1]], dtype=complex) / math.sqrt(2)
X = np.array([[0, 1], [1, 0]], dtype=complex)


def circuit_gates(rng, n):
    """[(targets, controls, matrix)] of a small valid circuit on n qubits."""
    g = nprng(rng)
    gates = []
    for _ in range(rng.randint(1, 12)):
        r = rng.random()
        if n >= 2 and r < 0.3:
            a, b = rng.sample(range(n), 2)
            gates.append(([a], [b], X))
        elif n >= 2 and r < 0.5:
            a, b = rng.sample(range(n), 2)
            gates.append(([a, b], [], haar(g, 4)))
        elif r < 0.75:
            gates.append(([rng.randrange(n)], [], H))
        else:
            th = rng.uniform(-3, 3)
            gates.append(([rng.randrange(n)], [], np.array([[1, 0], [0, cmath.exp(1j * th)]])))
    return gates


def circuit_datasets(rng, n=None, measure=True):
    """The qsim circuit-file content as plain arrays/attributes (docs/qsim.md layout)."""
    n = n or rng.randint(1, 6)
    gates = circuit_gates(rng, n)
    arity, qubits, mats = [], [], []
    for t, c, m in gates:
        arity.append([len(t), len(c)])
        qubits += t + c
        for z in np.asarray(m, dtype=complex).reshape(-1):
            mats.append([z.real, z.imag])
    meas = [[i, i] for i in range(n)] if measure else None
    return dict(
        attrs=dict(num_qubits=np.int64(n), num_gates=np.int64(len(gates)), num_clbits=np.int64(n if measure else 0),
                   format="qsim-circuit-1", name="adv"),
        gate_arity=np.array(arity, dtype=np.int32).reshape(-1, 2),
        qubits=np.array(qubits, dtype=np.int32),
        matrices=np.array(mats, dtype=np.float64).reshape(-1, 2),
        measurements=None if meas is None else np.array(meas, dtype=np.int32),
    )


def write_circuit(path, content, **dskw):
    with h5py.File(path, "w") as f:
        grp = f.create_group("circuit")
        for key in ("gate_arity", "qubits", "matrices", "measurements"):
            v = content.get(key)
            if v is not None:
                grp.create_dataset(key, data=v, **dskw)
        for k, v in content["attrs"].items():
            if v is not None:
                grp.attrs[k] = v
