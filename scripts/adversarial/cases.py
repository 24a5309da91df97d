"""Case generators of the adversarial campaign.

A generator is called as gen(ctx) with a per-case context (ctx.rng: random.Random seeded from
(seed, case index); ctx.p(name): a path in the case's scratch directory, which is also the working
directory of the run). It writes the input files and returns a dict:

  app      knn | kmeans | qsim | hplai
  argv     arguments after the program name (paths relative to the scratch directory)
  inputs   paths (relative) that must not change: hashed before and after the run
  outputs  output paths the run creates on success (validated as HDF5 on exit 0)
  expect   'ok' (valid input, must exit 0), 'error' (invalid, must exit 2) or 'any'
  desc     what the case does, one line
  optional: signal=(signum, delay_s), fsize=blocks of 512 bytes (RLIMIT_FSIZE, SIGXFSZ ignored),
            wrap='devnull' (run with /dev/null bind-mounted on itself, so no rename/unlink can
            replace the machine's /dev/null) or 'rodir:<dir>' (<dir> bind-mounted read-only),
            nonh5_outputs=[paths whose success output is not HDF5-checked]
"""
import os
import signal
import socket
import stat

import h5py
import numpy as np

import fixtures as F

APPS = ("knn", "kmeans", "qsim", "hplai")
SCHEMES = ["fp64", "fp32", "tf32", "bf16", "fp16", "fp16x2", "fp16x2-markidis", "fp16x2-egemm", "fp16x2-legemm",
           "fp16x2-aligned", "tf32x2", "tf32x2-aligned", "bf16x3", "bf16x3-aligned", "bf16x9", "int8-ozaki",
           "int8-mixpert", "auto", "int8-ozaki:3", "int8-mixpert:2"]
ODD_SCHEMES = ["fp32,", ",fp32", "fp32,,fp16x2", "fp32 ", " fp32", "fp32,fp32", "auto,all", "all,fp32"]
BAD_SCHEMES = ["", ",", "int8-ozaki:0", "int8-ozaki:19", "int8-ozaki:-1", "int8-ozaki:",
               "int8-ozaki:99999999999999999999", "int8-ozaki:3.5", "int8-ozaki:nan", "int8-mixpert:5",
               "int8-mixpert:0", "FP32", "fp33", "x" * 5000, "fp32\nfp16", "fp\x1b[31m32", "bf16\u00e9"]
QUIET = {"knn": ["--json"], "kmeans": ["--quiet"], "qsim": ["--quiet"], "hplai": ["--quiet"]}


def pick_schemes(rng):
    r = rng.random()
    if r < 0.7:
        return "fp32"
    if r < 0.95:
        return ",".join(rng.sample(SCHEMES, rng.randint(1, 3)))
    return "all"


# --------------------------------------------------------------------------- valid base commands

def base(ctx, app, with_output=False, schemes=None):
    """Writes a valid input for `app`; returns (argv, inputs, outputs, info)."""
    rng = ctx.rng
    s = schemes or pick_schemes(rng)
    out = []
    if app == "knn":
        info = F.write_knn(ctx.p("in.h5"), rng, neighbors=rng.random() < 0.7)
        argv = ["--input", "in.h5", "--k", str(rng.randint(1, 5)), "--scheme", s, "--device", "host", "--json"]
        inputs = ["in.h5"]
    elif app == "kmeans":
        k = rng.randint(1, 5)
        info = F.write_kmeans(ctx.p("in.h5"), rng, k_init=k if rng.random() < 0.3 else None)
        argv = ["--input", "in.h5", "--k", str(k), "--scheme", s, "--device", "host", "--quiet", "--max-iter", "20"]
        if rng.random() < 0.2:
            argv += ["--init", "random"]
        inputs = ["in.h5"]
    elif app == "hplai":
        if rng.random() < 0.5:
            n = rng.randint(3, 64)
            info = dict(n=n)
            argv = ["--n", str(n), "--nb", str(rng.choice([4, 8, 16, 32])), "--scheme", s, "--device", "host", "--quiet"]
            inputs = []
        else:
            info = F.write_hplai(ctx.p("in.h5"), rng, n=rng.randint(3, 48))
            argv = ["--input", "in.h5", "--nb", str(rng.choice([4, 8, 16])), "--scheme", s, "--device", "host",
                    "--quiet"]
            inputs = ["in.h5"]
    else:  # qsim
        r = rng.random()
        if r < 0.5:
            with open(ctx.p("c.qasm"), "w") as f:
                f.write(F.qasm_text(rng))
            argv = ["--qasm", "c.qasm"]
            inputs = ["c.qasm"]
        elif r < 0.8:
            F.write_circuit(ctx.p("c.h5"), F.circuit_datasets(rng))
            argv = ["--input", "c.h5"]
            inputs = ["c.h5"]
        else:
            argv = ["--generate", rng.choice(["brickwork:n=6,depth=4,seed=3", "ghz:n=5", "qft:n=4,input=3",
                                               "sycamore:n=6,depth=4,seed=2", "random:n=5,gates=30,seed=7"])]
            inputs = []
        argv += ["--scheme", s, "--device", "host", "--quiet"]
        if rng.random() < 0.3:
            argv += ["--shots", str(rng.randint(0, 50))]
        info = {}
    if with_output:
        argv += ["--output", "out.h5"]
        out = ["out.h5"]
    return argv, inputs, out, info


def input_option(app, argv):
    """(index of the value of the input option in argv, option name) or (None, None)."""
    for opt in ("--input", "--qasm"):
        if opt in argv:
            return argv.index(opt) + 1, opt
    return None, None


# --------------------------------------------------------------------------------- option fuzzing

INT_POOL = [("0", "zero"), ("-1", "neg"), ("1", "small"), ("2", "small"), ("3", "small"), ("-0", "any"),
            ("nan", "garbage"), ("inf", "garbage"), ("-inf", "garbage"), ("1e309", "garbage"), ("1.5", "garbage"),
            ("abc", "garbage"), ("", "garbage"), ("0x10", "any"), ("+3", "any"), (" 3", "any"), ("3 ", "any"),
            ("1e3", "any"), ("2147483647", "huge"), ("2147483648", "huge"), ("-2147483649", "neg"),
            ("9223372036854775807", "huge"), ("9223372036854775808", "huge"), ("99999999999999999999999", "garbage"),
            ("\u0663", "garbage"), ("3\n", "any"), ("1_000", "any"), ("--", "any")]
FLOAT_POOL = [("0", "zero"), ("-0", "any"), ("1e-7", "small"), ("0.5", "small"), ("nan", "nan"), ("NaN", "nan"),
              ("-nan", "nan"), ("inf", "any"), ("-inf", "neg"), ("1e309", "any"), ("-1", "neg"), ("1e-400", "any"),
              ("abc", "garbage"), ("", "garbage"), ("0x1p-3", "any"), ("1e308", "any"), ("5e-324", "any")]
STR_POOL = ["", " ", "x", "\n", "a\x1b[2Jb", "\u00e9\u4e2d", "-", "--k", "a" * 4096, "fp32", "host", "1"]

# per app: option -> kind. Kinds: in, out, k, pos (>= 1, bounded work), posw (>= 1, may be huge),
# nonneg_int, q (queries), uint, nonneg_float, enum:<a|b>, scheme, flag, str
OPTS = {
    "knn": {"--input": "in", "--output": "out", "--queries": "q", "--k": "k", "--scheme": "scheme",
            "--target": "enum:fp32|fp64", "--device": "enum:host|auto", "--repeat": "pos", "--batch": "posw",
            "--json": "flag", "--explain": "flag", "--recalibrate": "flag", "--list-schemes": "flag",
            "--help": "flag", "-k": "k", "-q": "q", "-s": "scheme", "-i": "in", "-o": "out"},
    "kmeans": {"--input": "in", "--output": "out", "--k": "k", "--max-iter": "pos", "--tol": "nonneg_float",
               "--seed": "uint", "--init": "enum:kmeans++|random|file", "--scheme": "scheme",
               "--target": "enum:fp32|fp64", "--device": "enum:host|auto", "--replicate": "rep",
               "--noise": "nonneg_float", "--recheck-margin": "nonneg_float", "--json": "flag", "--quiet": "flag",
               "--list-schemes": "flag", "--help": "flag", "-k": "k", "-q": "flag", "-i": "in", "-o": "out"},
    "qsim": {"--qasm": "in", "--input": "in", "--generate": "gen", "--output": "out", "--save-circuit": "out",
             "--fuse": "fuse", "--scheme": "scheme", "--target": "enum:fp32|fp64", "--device": "enum:host|auto",
             "--range-policy": "enum:fallback|ignore|error", "--kernels": "enum:auto|multipass|fused",
             "--amplitudes": "bits", "--shots": "shots", "--seed": "uint", "--json": "flag", "--quiet": "flag",
             "--list-schemes": "flag", "--help": "flag", "-d": "fuse", "-g": "gen", "-q": "flag"},
    "hplai": {"--n": "n", "--nb": "posw", "--seed": "uint", "--input": "in", "--output": "out",
              "--scheme": "scheme", "--target": "enum:fp32|fp64", "--solver": "enum:gmres|ir",
              "--max-iter": "posw", "--restart": "posw", "--repeat": "pos", "--device": "enum:host|auto",
              "--no-scaling": "flag", "--json": "flag", "--quiet": "flag", "--list-schemes": "flag",
              "--help": "flag", "-n": "n"},
}
UNKNOWN = ["--bogus", "-Z", "--k3", "---k", "--K", "-kk", "junk", "--=", "-", "--input=", "--\x01", "--sch\u00e9me"]


def fuzz_value(rng, kind, info):
    """(value, bad) for an option of `kind`; bad: the value is clearly invalid per --help/README."""
    if kind in ("k", "q", "pos", "posw", "nonneg_int", "uint", "fuse", "shots", "n", "rep"):
        v, cat = rng.choice(INT_POOL)
        if cat == "huge" and kind in ("pos", "n", "rep", "shots") and rng.random() < 0.5:
            # huge values that must fail fast (allocation), never mid-size ones that just run long
            v = rng.choice(["9223372036854775807", "4611686018427387905", "2147483647"])
        if kind == "pos" and cat == "huge":
            v, cat = "3", "small"  # --repeat/--max-iter 2^31 is a legitimate (long) run, not a hang
        if kind == "n" and cat == "small":
            v = str(rng.choice([1, 2, 3, 5, 8, 17, 64]))
        if kind == "k" and cat == "small" and rng.random() < 0.3:
            v, cat = str(info.get("n", 50) + rng.randint(1, 3)), "toolarge"
        if kind == "q" and cat == "small" and rng.random() < 0.3:
            v, cat = str(info.get("q", 10) + rng.randint(1, 3)), "toolarge"
        if kind == "fuse" and cat == "small" and rng.random() < 0.4:
            v, cat = str(rng.choice([10, 31, 64])), "toolarge"
        bad = cat == "garbage" or (cat == "neg" and kind != "uint") or \
            (cat == "zero" and kind in ("k", "q", "pos", "posw", "fuse", "n", "rep")) or cat == "toolarge"
        return v, bad
    if kind == "nonneg_float":
        v, cat = rng.choice(FLOAT_POOL)
        return v, cat in ("nan", "neg", "garbage")
    if kind.startswith("enum:"):
        good = kind[5:].split("|")
        if rng.random() < 0.4:
            return rng.choice(good), False
        v = rng.choice(STR_POOL + [good[0].upper(), good[0] + ",", "cuda" if "host" in good else "x"])
        return v, v not in good
    if kind == "scheme":
        r = rng.random()
        if r < 0.3:
            return pick_schemes(rng), False
        if r < 0.45:
            return rng.choice(ODD_SCHEMES), False
        return rng.choice(BAD_SCHEMES), True
    if kind == "gen":
        spec, bad = gen_spec(rng)
        return spec, bad
    if kind == "bits":
        return rng.choice(["0", "1", "000", "0000000000000000000000000000000000", "2", "", ",", "0,1", "01" * 40,
                           "0,0,0,0", "x", "1" * 6]), False
    if kind == "in":
        return rng.choice(["in.h5", "missing.h5", "", ".", "/dev/null", "in.h5/"]), False
    if kind == "out":
        return rng.choice(["o2.h5", "", ".", "in.h5", "nodir/o.h5", "/dev/null", "o2.h5/"]), False
    return rng.choice(STR_POOL), False


ALIASES = {
    "knn": [("-k", "--k"), ("-q", "--queries"), ("-s", "--scheme"), ("-i", "--input"), ("-o", "--output")],
    "kmeans": [("-k", "--k"), ("-q", "--quiet"), ("-i", "--input"), ("-o", "--output")],
    "qsim": [("-d", "--fuse"), ("-g", "--generate"), ("-q", "--quiet"), ("-i", "--input"), ("-o", "--output")],
    "hplai": [("-n", "--n"), ("-i", "--input"), ("-o", "--output")],
}


def spellings(app, opt):
    out = {opt}
    for a, b in ALIASES[app]:
        if opt in (a, b):
            out |= {a, b}
    return out


def present(app, argv, opt):
    """Is opt (or its alias, or its --opt=value form) already on the command line?"""
    names = spellings(app, opt)
    return any(a in names or any(a.startswith(n + "=") for n in names if n.startswith("--")) for a in argv)


def gen_options(ctx, app):
    rng = ctx.rng
    argv, inputs, outs, info = base(ctx, app, with_output=rng.random() < 0.3)
    bad_any, wild = False, False
    bad_opts = {}  # option -> its current value is clearly bad (a later replacement resets it)
    notes = []
    missing = []
    for _ in range(rng.randint(1, 3)):
        m = rng.random()
        opt = rng.choice(sorted(OPTS[app]))
        kind = OPTS[app][opt]
        if opt in ("--help", "--list-schemes"):
            wild = True
        if m < 0.35:  # replace or add an option with a fuzzed value
            if kind == "flag":
                if present(app, argv, opt):
                    wild = True
                argv.append(opt)
                notes.append(opt)
                continue
            v, bad = fuzz_value(rng, kind, info)
            if opt in argv and opt.startswith("--") and argv.index(opt) + 1 < len(argv) \
                    and argv.index(opt) + 1 not in [len(argv) - 1] + [argv.index(x) for x in missing if x in argv]:
                argv[argv.index(opt) + 1] = v
                bad_opts[opt] = bad
            else:
                if present(app, argv, opt):
                    wild = True  # a second spelling of an option already given
                if opt in ("--qasm", "--input", "--generate", "-g", "-i") or kind in ("in", "out"):
                    wild = True  # a second circuit source or an input swap: validity unclear here
                argv += [opt, v]
                bad_opts[opt] = bad
            notes.append(f"{opt}={v!r}"[:60])
        elif m < 0.45:  # missing value at the end
            if kind == "flag":
                continue
            if present(app, argv, opt):
                wild = True
            argv.append(opt)
            missing.append(opt)
            notes.append(f"{opt} without value")
        elif m < 0.58:  # duplicate
            if kind == "flag":
                argv += [opt, opt]
            else:
                v, _ = fuzz_value(rng, kind, info)
                argv += [opt, v, opt, v if rng.random() < 0.5 else fuzz_value(rng, kind, info)[0]]
            wild = True
            notes.append(f"duplicate {opt}")
        elif m < 0.7:  # unknown option or positional junk
            u = rng.choice(UNKNOWN)
            argv.insert(rng.randint(0, len(argv)), u)
            if u in ("--input=",):
                wild = True
            bad_any = True
            notes.append(f"unknown {u!r}")
        elif m < 0.8:  # = syntax
            if present(app, argv, opt):
                wild = True
            if kind == "flag":
                argv.append(opt + rng.choice(["=1", "=0", "=true", "=false", "=junk"]))
                wild = True
            else:
                v, bad = fuzz_value(rng, kind, info)
                if opt.startswith("--"):
                    argv.append(f"{opt}={v}")
                else:
                    argv += [opt + v]
                    wild = True
                bad_opts[opt + "="] = bad
                if opt in ("--qasm", "--input", "--generate") or kind in ("in", "out"):
                    wild = True
            notes.append(f"{opt}= form")
        elif m < 0.9:  # empty-string argument somewhere
            argv.insert(rng.randint(0, len(argv)), "")
            bad_any = True
            notes.append("empty argument")
        else:  # drop a required piece
            if "--k" in argv and app in ("kmeans",) and not present(app, [a for a in argv if a != "--k"], "--k"):
                i = argv.index("--k")
                del argv[i:i + 2]
                bad_any = True
                notes.append("no --k")
            elif "--n" in argv and app == "hplai" and not present(app, [a for a in argv if a != "--n"], "--n"):
                i = argv.index("--n")
                del argv[i:i + 2]
                bad_any = True
                notes.append("no --n")
            elif "--input" in argv and app in ("knn", "kmeans") and \
                    not present(app, [a for a in argv if a != "--input"], "--input"):
                i = argv.index("--input")
                del argv[i:i + 2]
                bad_any = True
                notes.append("no --input")
            else:
                argv.append("--definitely-unknown")
                bad_any = True
                notes.append("unknown --definitely-unknown")
    bad_any = bad_any or any(bad_opts.values())
    for opt in missing:
        # an option without value is clearly bad only while it stays last (otherwise it takes the next word)
        if argv and argv[-1] == opt:
            bad_any = True
        else:
            wild = True
    if any(a in ("--help", "-h", "--list-schemes") or a.startswith("--help=") or a.startswith("--list-schemes=")
           for a in argv):
        wild = True
    outs = [o for o in outs if o in argv]
    for o in ("o2.h5",):
        if o in argv:
            outs.append(o)
    expect = "error" if bad_any and not wild else "any"
    # --help, --list-schemes and --save-circuit exit 0 without writing --output: outputs are validated
    # when they exist, not required
    return dict(app=app, argv=argv, inputs=inputs, outputs=outs, expect=expect, desc="; ".join(notes),
                outputs_optional=True)


# ------------------------------------------------------------------------------ qsim --generate

def gen_spec(rng):
    """(spec, bad) for qsim --generate."""
    fam = rng.choice(["brickwork", "sycamore", "qft", "ghz", "random", "bogus", ""])
    keys = {"brickwork": ["n", "depth", "seed", "d"], "sycamore": ["n", "depth", "seed", "layout"],
            "qft": ["n", "input"], "ghz": ["n"], "random": ["n", "gates", "seed", "targets", "controls"]}
    if fam not in keys:
        return fam + rng.choice(["", ":n=4", ":"]), True
    good = {"n": str(rng.randint(2, 8)), "depth": str(rng.randint(1, 6)), "seed": str(rng.randint(0, 99)),
            "d": str(rng.randint(1, 3)), "layout": rng.choice(["line", "grid"]), "input": "1",
            "gates": str(rng.randint(1, 60)), "targets": str(rng.randint(1, 2)), "controls": str(rng.randint(0, 1))}
    required = {"brickwork": ["n", "depth", "seed"], "sycamore": ["n", "depth", "seed"], "qft": ["n"],
                "ghz": ["n"], "random": ["n", "gates", "seed"]}[fam]
    kv = {k: good[k] for k in required}
    for k in keys[fam]:
        if k not in kv and rng.random() < 0.3:
            kv[k] = good[k]
    items = list(kv.items())
    bad = False
    m = rng.random()
    if m < 0.15:
        items.append((items[0][0], str(rng.randint(2, 6))))  # duplicate key
        bad = True
    elif m < 0.3:
        items = [(k, v) for k, v in items if k != "n"]
        bad = True
    elif m < 0.5:
        k = rng.choice([k for k, _ in items])
        v = rng.choice(["0", "-1", "31", "64", "2147483648", "99999999999999999999", "nan", "", "1.5", "abc",
                        "1e3", "-0", "18446744073709551616", "4294967296"])
        items = [(kk, v if kk == k else vv) for kk, vv in items]
        bad = (k == "n" and v not in ("1e3",)) or v in ("nan", "", "abc", "1.5", "99999999999999999999",
                                                        "18446744073709551616")
        if k in ("seed",) and v in ("0", "-0", "31", "64", "2147483648", "4294967296"):
            bad = False
        if k == "seed" and v == "-1":
            bad = False  # a negative seed may wrap or be refused: either is fine
        if k == "input" and v in ("0", "-0"):
            bad = False
        if k in ("depth", "gates") and v in ("31", "64"):
            bad = False
        if v in ("1e3", "-0"):
            bad = False
    elif m < 0.6:
        items.append((rng.choice(["x", "N", "seed ", "", "n=3"]), "1"))
        bad = True
    elif m < 0.7 and fam == "random":
        n = int(kv["n"])
        items = [(k, v) for k, v in items if k not in ("targets", "controls")]
        items += [("targets", str(rng.randint(1, n))), ("controls", str(n))]  # controls + targets > n
        bad = True
    elif m < 0.75 and fam == "random":
        items = [(k, v) for k, v in items if k != "gates"] + [("gates", rng.choice(["1000000000000", "9223372036854775807"]))]
        bad = True  # must hit a documented gate limit or fail fast
    sep = rng.choice([",", ",", ",", ", ", ",,", ";"])
    if sep in (", ", ",,", ";") and len(items) > 1:
        bad = bad or sep == ";"
        if sep != ";":
            bad = bad  # tolerant parsing is fine
    spec = fam + ":" + sep.join(f"{k}={v}" for k, v in items)
    if rng.random() < 0.05:
        spec = spec.replace("=", "==", 1)
        bad = True
    return spec, bad


def gen_generate(ctx):
    rng = ctx.rng
    spec, bad = gen_spec(rng)
    argv = ["--generate", spec, "--scheme", "fp32", "--device", "host", "--quiet"]
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    # a spec with n <= 8 that parses fine must run; mid-size valid ones are not generated
    return dict(app="qsim", argv=argv, inputs=[], outputs=outs, expect="error" if bad else "any",
                desc=f"--generate {spec!r}"[:100])


# --------------------------------------------------------------------------------- HDF5 corruption

DATASETS = {"knn": ["train", "test", "neighbors"], "kmeans": ["data", "labels", "init_centroids"],
            "hplai": ["A", "b"]}
REQUIRED = {"train", "test", "data", "A", "b"}


def read_all(path):
    out = {}
    with h5py.File(path, "r") as f:
        for k in f:
            out[k] = f[k][()]
        attrs = dict(f.attrs)
    return out, attrs


def write_all(path, dsets, attrs, special=None):
    with h5py.File(path, "w") as f:
        for k, v in dsets.items():
            if special and k in special:
                special[k](f, k, v)
            else:
                f.create_dataset(k, data=v)
        for k, v in attrs.items():
            f.attrs[k] = v


def byte_mutation(rng, data):
    """Returns (bytes, description) of a random byte-level mutation."""
    b = bytearray(data)
    m = rng.randrange(7)
    if m == 0 and b:
        cut = rng.randrange(len(b))
        return bytes(b[:cut]), f"truncated at {cut} of {len(b)}"
    if m == 1:
        k = rng.randint(1, 20)
        for _ in range(k):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b), f"{k} bit flips"
    if m == 2:
        i = rng.randrange(len(b))
        L = rng.randint(1, 64)
        b[i:i + L] = bytes(rng.getrandbits(8) for _ in range(L))
        return bytes(b), f"{L} random bytes at {i}"
    if m == 3:
        i = rng.randrange(len(b))
        L = rng.randint(1, 512)
        b[i:i + L] = b"\xff" * L if rng.random() < 0.5 else b"\x00" * L
        return bytes(b), f"{L} bytes filled at {i}"
    if m == 4:
        i = rng.randrange(len(b))
        L = rng.randint(1, 256)
        del b[i:i + L]
        return bytes(b), f"{L} bytes deleted at {i}"
    if m == 5:
        i = rng.randrange(len(b))
        j = rng.randrange(len(b))
        L = rng.randint(1, 256)
        b[i:i] = b[j:j + L]
        return bytes(b), f"{L} bytes duplicated at {i}"
    # overwrite a 8-byte little-endian field with an extreme integer
    i = rng.randrange(max(1, len(b) - 8))
    v = rng.choice([0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**62 + 1, 2**63 - 1, 2**64 - 1])
    b[i:i + 8] = v.to_bytes(8, "little")
    return bytes(b), f"8-byte field at {i} := {v}"


def app_command(ctx, app, infile="in.h5", with_output=None):
    rng = ctx.rng
    if with_output is None:
        with_output = rng.random() < 0.3
    if app == "knn":
        argv = ["--input", infile, "--k", "3", "--scheme", "fp32", "--device", "host", "--json"]
    elif app == "kmeans":
        argv = ["--input", infile, "--k", "3", "--scheme", "fp32", "--device", "host", "--quiet", "--max-iter", "20"]
    elif app == "hplai":
        argv = ["--input", infile, "--nb", "8", "--scheme", "fp32", "--device", "host", "--quiet"]
    else:
        argv = ["--input", infile, "--scheme", "fp32", "--device", "host", "--quiet"]
    outs = []
    if with_output:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    return argv, outs


def write_valid(ctx, app, path, **kw):
    rng = ctx.rng
    if app == "knn":
        return F.write_knn(path, rng, **kw)
    if app == "kmeans":
        return F.write_kmeans(path, rng, **kw)
    if app == "hplai":
        return F.write_hplai(path, rng, **kw)
    F.write_circuit(path, F.circuit_datasets(rng), **kw)
    return {}


def huge_chunked(shape):
    def make(f, k, v):
        f.create_dataset(k, shape=shape, dtype=v.dtype if hasattr(v, "dtype") else "f4",
                         chunks=tuple(1 for _ in shape[:-1]) + (min(shape[-1], 4) or 1,))
    return make


def gen_h5_corrupt(ctx, app):
    """Structured corruption of the app's HDF5 input (knn, kmeans, hplai)."""
    rng = ctx.rng
    p = ctx.p("in.h5")
    kw = {}
    if app == "kmeans" and rng.random() < 0.3:
        kw["k_init"] = 3
    write_valid(ctx, app, p, **kw)
    argv, outs = app_command(ctx, app)
    if app == "kmeans" and "k_init" in kw:
        argv += ["--init", "file"]
    dsets, attrs = read_all(p)
    names = [n for n in DATASETS[app] if n in dsets]
    target = rng.choice(names)
    v = dsets[target]
    m = rng.randrange(26)
    expect = "error"
    special = {}
    if m == 0:
        del dsets[target]
        desc = f"/{target} removed"
        expect = "error" if target in REQUIRED or (target == "init_centroids") else "any"
    elif m == 1:
        dsets[target.upper() + "_"] = dsets.pop(target)
        desc = f"/{target} renamed"
        expect = "error" if target in REQUIRED or target == "init_centroids" else "any"
    elif m == 2:
        dsets[target] = v.reshape(-1)
        desc = f"/{target} flattened to rank 1"
        expect = "error" if v.ndim == 2 else "any"
    elif m == 3:
        dsets[target] = v.reshape((1,) + v.shape)
        desc = f"/{target} rank {v.ndim + 1}"
    elif m == 4:
        dsets[target] = v[:0]
        desc = f"/{target} with 0 rows"
        expect = "error" if target in REQUIRED or target == "init_centroids" else "any"
    elif m == 5 and v.ndim == 2:
        dsets[target] = v[:, :0]
        desc = f"/{target} with 0 columns"
    elif m == 6 and v.dtype.kind == "f":
        w = v.copy()
        w.flat[rng.randrange(w.size)] = rng.choice([np.nan, np.inf, -np.inf])
        dsets[target] = w
        desc = f"/{target} with a NaN/Inf"
    elif m == 7:
        dt = rng.choice(["i1", "i2", "i4", "i8", "u8", "f2", "f8", "c8", "?", "S8"])
        dsets[target] = v.astype(dt)
        desc = f"/{target} as {dt}"
        expect = "any"
        if dt in ("c8", "S8") or (dt == "?" and v.dtype.kind == "f"):
            expect = "error"
    elif m == 8:
        shape = rng.choice([(2**62 + 1, 4), (2**31, 2**31), (2**32 + 1, 8), (2**63 - 1, 1), (2**40, 2**40),
                            (2**63 - 1, 3), (4, 2**62 + 1)])
        shape = shape[:v.ndim] if v.ndim == 2 else (shape[0],)
        special[target] = huge_chunked(shape)
        desc = f"/{target} chunked, claimed shape {shape}, no data"
    elif m == 9:
        filt = rng.choice(["gzip", "lzf", "shuffle+gzip", "fletcher32", "gzip9-tiny-chunks"])

        def make(f, k, v, filt=filt):
            if filt == "gzip":
                f.create_dataset(k, data=v, compression="gzip")
            elif filt == "lzf":
                f.create_dataset(k, data=v, compression="lzf")
            elif filt == "shuffle+gzip":
                f.create_dataset(k, data=v, compression="gzip", shuffle=True)
            elif filt == "fletcher32":
                f.create_dataset(k, data=v, fletcher32=True, chunks=True)
            else:
                f.create_dataset(k, data=v, compression="gzip", compression_opts=9,
                                 chunks=tuple(max(1, x // 3) for x in v.shape))
        special[target] = make
        desc = f"/{target} {filt} (must work)" if filt != "lzf" else f"/{target} lzf (h5py-only filter)"
        expect = "ok" if filt != "lzf" else "any"
    elif m == 10:
        for k in list(dsets):
            if dsets[k].dtype.kind == "f":
                dsets[k] = dsets[k].astype("f8")
        desc = "float64 data (must work)"
        expect = "ok"
    elif m == 11:
        special[target] = lambda f, k, v: f.create_group(k)
        desc = f"/{target} is a group"
    elif m == 12:
        special[target] = lambda f, k, v: f.create_dataset(k, data=v.flat[0])
        desc = f"/{target} scalar"
    elif m == 13:
        dsets[target] = v[:1] if v.shape[0] > 1 else v
        desc = f"/{target} one row"
        expect = "any"
    elif m == 14 and v.dtype.kind == "f":
        w = v.copy()
        w = w.astype(np.float64)
        w.flat[rng.randrange(w.size)] = rng.choice([3e38, -3e38, 1e-45, 1.7e308, 65504.0, 1e20])
        dsets[target] = w.astype(v.dtype) if np.abs(w).max() < 3.4e38 else w
        desc = f"/{target} with an extreme value"
        expect = "any"
    elif m == 15 and target in ("neighbors", "labels"):
        w = v.copy()
        w.flat[rng.randrange(w.size)] = rng.choice([-1, 2**31 - 1, 10**6, -2**31])
        dsets[target] = w
        desc = f"/{target} with an out-of-range index"
        expect = "any"
    elif m == 16:
        attrs[rng.choice(["distance", "name", "x"])] = rng.choice(["euc\nlidean", "angular", "\x1b[31mred", "",
                                                                   "a" * 10000, np.bytes_(b"jaccard\x00x")])
        desc = "root attribute with control characters / odd value"
        expect = "any"
    elif m == 17:
        def make(f, k, v):
            ds = f.create_dataset(k, shape=v.shape, dtype=v.dtype, chunks=tuple(1 for _ in v.shape) or None,
                                  maxshape=tuple(None for _ in v.shape))
            if v.size:
                ds[...] = v
        special[target] = make
        desc = f"/{target} chunked 1x1, unlimited maxshape (must work)"
        expect = "ok" if v.ndim >= 1 and v.size else "any"
    elif m == 18:
        special[target] = lambda f, k, v: f.create_dataset(k, shape=v.shape, dtype=v.dtype, chunks=True)
        desc = f"/{target} allocated, never written (fill value 0)"
        expect = "any"
    elif m == 19:
        special[target] = lambda f, k, v: (f.create_dataset(k + "_real", data=v), f.__setitem__(k, h5py.SoftLink("/" + k + "_real")))
        desc = f"/{target} a soft link to the data"
        expect = "any"
    elif m == 22 and v.dtype.kind in "fi":
        dsets[target] = v.astype(v.dtype.newbyteorder(">"))
        desc = f"/{target} big-endian (must work)"
        expect = "ok"
    elif m == 23:
        libver = rng.choice(["latest", "userblock"])
        desc = f"file written with {'libver=latest' if libver == 'latest' else 'a 512-byte user block'} (must work)"
        expect = "ok"
        write_all(p, dsets, attrs)
        data = {k: dsets[k] for k in dsets}
        kwf = dict(libver="latest") if libver == "latest" else dict(userblock_size=512)
        with h5py.File(p, "w", **kwf) as f:
            for k2, v2 in data.items():
                f.create_dataset(k2, data=v2)
            for k2, v2 in attrs.items():
                f.attrs[k2] = v2
        return dict(app=app, argv=argv, inputs=["in.h5"], outputs=outs, expect=expect, desc=desc)
    elif m == 24:
        dt = rng.choice([np.dtype([("a", "f4"), ("b", "f4")]), h5py.enum_dtype({"A": 0, "B": 1}, basetype="i1"),
                         np.dtype("V4"), np.dtype(("f4", (2,)))])
        special[target] = lambda f, k, v, dt=dt: f.create_dataset(k, shape=v.shape[:1], dtype=dt)
        desc = f"/{target} of an odd dtype ({dt})"
        expect = "error" if target in REQUIRED or target == "init_centroids" else "any"
    elif m == 25:
        special[target] = lambda f, k, v: f.create_dataset(k, data=np.array(["1.0", "2.0"], dtype=h5py.string_dtype()))
        desc = f"/{target} of strings"
        expect = "error" if target in REQUIRED or target == "init_centroids" else "any"
    elif m == 20:
        special[target] = lambda f, k, v: f.__setitem__(k, h5py.SoftLink("/nowhere"))
        desc = f"/{target} a dangling soft link"
        expect = "error" if target in REQUIRED or target == "init_centroids" else "any"
    else:
        special[target] = lambda f, k, v: f.__setitem__(k, h5py.ExternalLink("other.h5", "/x"))
        desc = f"/{target} an external link to a missing file"
        expect = "error" if target in REQUIRED or target == "init_centroids" else "any"
    if "desc" not in locals():
        desc = "unchanged"
        expect = "ok"
    if app == "knn" and target == "train" and m in (4, 13):
        expect = "any" if m == 13 else "error"
    if app == "knn" and "neighbors" in desc and m in (2, 3, 5, 7, 12, 11) and expect == "error":
        expect = "any"  # a bad optional /neighbors: error or ignored
    if app == "kmeans" and target == "labels" and expect == "error" and m not in (6, 8):
        expect = "any"
    if app == "kmeans" and target == "init_centroids" and "--init" not in argv:
        expect = "any"
    write_all(p, dsets, attrs, special)
    return dict(app=app, argv=argv, inputs=["in.h5"], outputs=outs, expect=expect, desc=desc)


def gen_bytes_corrupt(ctx, app):
    """Byte-level corruption of a valid input file (any app; qsim: circuit file or QASM)."""
    rng = ctx.rng
    if app == "qsim" and rng.random() < 0.5:
        data = F.qasm_text(rng).encode()
        name, opt = "c.qasm", "--qasm"
    else:
        p = ctx.p("base.h5")
        write_valid(ctx, app, p)
        data = open(p, "rb").read()
        os.remove(p)
        name, opt = "in.h5", "--input"
    r = rng.random()
    expect = "any"
    if r < 0.1:
        data, desc = b"", "zero-length file"
        expect = "error"
    elif r < 0.2:
        data, desc = bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 7, 512, 4096]))), "random bytes"
        expect = "error" if name.endswith(".h5") else "any"
    elif r < 0.25:
        data, desc = b"\x89HDF\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(200)), "HDF5 signature + junk"
        expect = "error" if name.endswith(".h5") else "any"
    else:
        data, desc = byte_mutation(rng, data)
    with open(ctx.p(name), "wb") as f:
        f.write(data)
    argv, outs = app_command(ctx, app, name)
    if opt == "--qasm":
        argv[0] = "--qasm"
    return dict(app=app, argv=argv, inputs=[name], outputs=outs, expect=expect, desc=desc)


# ------------------------------------------------------------------------------------- file kinds

def gen_file_kind(ctx, app):
    rng = ctx.rng
    argv, inputs, outs, info = base(ctx, app, with_output=rng.random() < 0.3)
    i, opt = input_option(app, argv)
    if i is None:  # hplai --n / qsim --generate: swap in the file option
        if app == "hplai":
            j = argv.index("--n")
            del argv[j:j + 2]
            argv += ["--input", "X"]
        else:
            j = argv.index("--generate")
            del argv[j:j + 2]
            argv += [rng.choice(["--input", "--qasm"]), "X"]
        i = len(argv) - 1
    orig = argv[i] if argv[i] != "X" else None
    kinds = ["dir", "fifo", "/dev/zero", "/dev/null", "symlink", "dangling", "missing", "empty-name",
             "trailing-slash", "socket", "unreadable", "dot", "/proc/self/status", "symlink-dir", "symlink-loop"]
    if app == "kmeans":
        kinds.append("init-fifo")
    kind = rng.choice(kinds)
    expect = "error"
    if kind == "dir":
        os.mkdir(ctx.p("d"))
        argv[i] = "d"
    elif kind == "fifo":
        os.mkfifo(ctx.p("fifo"))
        argv[i] = "fifo"
    elif kind in ("/dev/zero", "/dev/null", "/proc/self/status"):
        argv[i] = kind
    elif kind == "symlink":
        if orig:
            os.symlink(orig, ctx.p("link"))
            argv[i] = "link"
            expect = "ok"
        else:
            argv[i] = "missing"
    elif kind == "dangling":
        os.symlink("nowhere.h5", ctx.p("link"))
        argv[i] = "link"
    elif kind == "missing":
        argv[i] = "missing.h5"
    elif kind == "empty-name":
        argv[i] = ""
    elif kind == "trailing-slash":
        argv[i] = (orig or "in.h5") + "/"
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(ctx.p("sock"))
        s.close()
        argv[i] = "sock"
    elif kind == "unreadable":
        if orig:
            os.chmod(ctx.p(orig), 0)
            expect = "any"  # root reads it anyway
        else:
            argv[i] = "missing"
    elif kind == "dot":
        argv[i] = "."
    elif kind == "symlink-dir":
        os.mkdir(ctx.p("d"))
        os.symlink("d", ctx.p("link"))
        argv[i] = "link"
    elif kind == "symlink-loop":
        os.symlink("loop", ctx.p("loop"))
        argv[i] = "loop"
    elif kind == "init-fifo":
        # kmeans reads the init centroids from the same file; a FIFO as the only input
        os.mkfifo(ctx.p("fifo"))
        argv[i] = "fifo"
        argv += ["--init", "file"]
    if expect == "ok" and "--k" in argv and app == "kmeans":
        pass
    return dict(app=app, argv=argv, inputs=[x for x in inputs if os.path.exists(ctx.p(x))], outputs=outs,
                expect=expect, desc=f"input is {kind}")


# ------------------------------------------------------------------------------------ output paths

def gen_output_path(ctx, app):
    rng = ctx.rng
    argv, inputs, _, info = base(ctx, app, with_output=False)
    i, _opt = input_option(app, argv)
    if i is None:
        if app == "hplai":
            F.write_hplai(ctx.p("in.h5"), rng, n=rng.randint(3, 24))
            j = argv.index("--n")
            del argv[j:j + 2]
            argv += ["--input", "in.h5"]
        else:
            with open(ctx.p("c.qasm"), "w") as f:
                f.write(F.qasm_text(rng))
            j = argv.index("--generate")
            del argv[j:j + 2]
            argv += ["--qasm", "c.qasm"]
        i, _opt = input_option(app, argv)
        inputs = [argv[i]]
    inp = argv[i]
    optname = "--output"
    if app == "qsim" and rng.random() < 0.35:
        optname = "--save-circuit"
    kinds = ["same", "hardlink", "symlink", "dotslash", "nodir", "dir", "devnull", "empty", "long", "toolong",
             "rodir", "existing", "trailing-slash", "fifo", "abs-same", "dotdot-same", "symlink-dangling",
             "subdir-ok", "dangling-dir", "dirlink-same", "existing-other"]
    if app == "qsim" and inp.endswith(".qasm"):
        kinds += ["include-file", "include-file"]
    kind = rng.choice(kinds)
    expect = "error"
    outs = []
    extra = {}
    if kind == "same":
        out = inp
    elif kind == "hardlink":
        os.link(ctx.p(inp), ctx.p("hl.h5"))
        out = "hl.h5"
    elif kind == "symlink":
        os.symlink(inp, ctx.p("sl.h5"))
        out = "sl.h5"
    elif kind == "dotslash":
        out = "./" + inp
    elif kind == "abs-same":
        out = ctx.p(inp)
    elif kind == "dotdot-same":
        os.mkdir(ctx.p("sub"))
        out = "sub/../" + inp
    elif kind == "nodir":
        out = "nodir/out.h5"
    elif kind == "dangling-dir":
        os.symlink("nowhere", ctx.p("dl"))
        out = "dl/out.h5"
    elif kind == "dir":
        os.mkdir(ctx.p("outdir"))
        out = rng.choice(["outdir", "outdir/", "."])
    elif kind == "devnull":
        out = "/dev/null"
        extra["wrap"] = "devnull"
        expect = "any"
    elif kind == "empty":
        out = ""
    elif kind == "long":
        L = rng.randint(247, 255)
        out = ("o" * (L - 3)) + ".h5"
        expect = "ok"
        outs = [out]
    elif kind == "toolong":
        out = "o" * rng.randint(256, 300) + ".h5"
    elif kind == "rodir":
        os.mkdir(ctx.p("ro"))
        out = "ro/out.h5"
        extra["wrap"] = "rodir:ro"
    elif kind == "existing":
        with open(ctx.p("out.h5"), "wb") as f:
            f.write(b"old content\n")
        out = "out.h5"
        expect = "ok"
        outs = [out]
    elif kind == "trailing-slash":
        out = "out.h5/"
    elif kind == "fifo":
        os.mkfifo(ctx.p("ofifo"))
        out = "ofifo"
    elif kind == "symlink-dangling":
        os.symlink("target.h5", ctx.p("sl.h5"))
        out = "sl.h5"
        expect = "any"  # writing through or replacing the link are both defensible
        outs = [out]
        extra["nonh5_outputs"] = [out, "target.h5"]
    elif kind == "include-file":
        # the circuit includes another file: that file is an input too
        with open(ctx.p(inp), "r") as f:
            text = f.read()
        with open(ctx.p("extra.inc"), "w") as f:
            f.write("gate myh a { h a; }\n")
        with open(ctx.p(inp), "w") as f:
            f.write(text.replace('include "qelib1.inc";', 'include "qelib1.inc";\ninclude "extra.inc";'))
        inputs = inputs + ["extra.inc"]
        out = "extra.inc"
    elif kind == "dirlink-same":
        os.symlink(".", ctx.p("here"))
        out = "here/" + inp
    elif kind == "existing-other":
        with open(ctx.p("other.h5"), "wb") as f:
            f.write(b"\x89HDF\r\n\x1a\n not really")
        out = "other.h5"
        expect = "ok"
        outs = [out]
    else:  # subdir-ok
        os.mkdir(ctx.p("sub"))
        out = "sub/out.h5"
        expect = "ok"
        outs = [out]
    argv += [optname, out]
    return dict(app=app, argv=argv, inputs=inputs, outputs=outs, expect=expect,
                desc=f"{optname} {kind}: {out[:40]!r}", **extra)


# -------------------------------------------------------------------------------------- QASM texts

def qasm_adversarial(rng):
    """(text bytes, expect, desc, extra files {name: bytes or 'fifo' or 'self'})."""
    H = 'OPENQASM 2.0;\ninclude "qelib1.inc";\n'
    kinds = ["parens", "unary", "sum", "recursive", "creg", "qreg", "include-zero", "include-self",
             "include-missing", "include-dir", "include-fifo", "unterminated-string", "unterminated-comment",
             "nonascii", "nul", "u3-extreme", "u3-extreme-valid", "measure-range", "measure-mismatch",
             "qubit-range", "repeat-qubit", "div0", "pow", "long-ident", "many-qregs", "opaque", "if", "reset",
             "empty", "header-only", "bad-version", "gate-arity", "gate-undefined", "param-count", "nested-include",
             "crlf", "huge-number", "many-params", "func-nesting", "include-devnull", "gate-self-call",
             "barrier-only", "deep-gate-nesting", "block-comment", "big-state", "dup-include", "gate-dup-arg",
             "after-measure", "flat-gates", "bom", "builtin-bad", "measure-twice", "big-file"]
    k = rng.choice(kinds)
    extra = {}
    expect = "any"
    if k == "parens":
        d = rng.choice([100, 1000, 8000, 50000, 200000])
        body = H + f"qreg q[1];\nrz({'(' * d}1{')' * d}) q[0];\n"
        desc = f"{d} nested parentheses"
    elif k == "unary":
        d = rng.choice([100, 1000, 10000, 100000, 500000])
        body = H + f"qreg q[1];\nrz({'-' * d}1) q[0];\n"
        desc = f"{d} unary minus"
    elif k == "sum":
        d = rng.choice([1000, 200000])
        op = rng.choice(["+", "*", "-", "/"])
        body = H + f"qreg q[1];\nrz({op.join(['1'] * d)}) q[0];\n"
        desc = f"{d}-term {op} chain"
    elif k == "func-nesting":
        d = rng.choice([100, 5000, 50000])
        body = H + f"qreg q[1];\nrz({'sin(' * d}1{')' * d}) q[0];\n"
        desc = f"{d} nested sin("
    elif k == "pow":
        d = rng.choice([10, 1000, 100000])
        body = H + f"qreg q[1];\nrz({'^'.join(['2'] * d)}) q[0];\n"
        desc = f"2^2^... x{d}"
    elif k == "recursive":
        L = rng.choice([8, 12, 16, 20, 22, 26, 40, 64])
        fan = rng.choice([2, 2, 3])
        lines = [H, "gate g0 a { h a; }"]
        for j in range(1, L + 1):
            lines.append(f"gate g{j} a {{ " + " ".join([f"g{j - 1} a;"] * fan) + " }")
        lines.append("qreg q[1];")
        lines.append(f"g{L} q[0];")
        body = "\n".join(lines) + "\n"
        desc = f"gate definitions {L} levels x{fan} ({fan}^{L} gates)"
        expect = "ok" if fan ** L <= 70000 else "any"
    elif k == "deep-gate-nesting":
        L = rng.choice([100, 2000, 20000])
        lines = [H, "gate g0 a { h a; }"] + [f"gate g{j} a {{ g{j - 1} a; }}" for j in range(1, L + 1)]
        body = "\n".join(lines) + f"\nqreg q[1];\ng{L} q[0];\n"
        desc = f"{L} levels of single-call gate definitions"
    elif k == "gate-self-call":
        body = H + "gate g a { g a; }\nqreg q[1];\ng q[0];\n"
        desc = "gate calling itself"
        expect = "error"
    elif k == "creg":
        v = rng.choice(["2000000000", "2147483648", "4294967297", "99999999999999999999", "0", "-1", "31", "65"])
        body = H + f"qreg q[2];\ncreg c[{v}];\nh q[0];\nmeasure q[0] -> c[0];\n"
        desc = f"creg c[{v}]"
        expect = "error" if v in ("99999999999999999999", "-1", "0", "2147483648", "4294967297", "2000000000") else "any"
        if v == "0":
            expect = "error"
    elif k == "qreg":
        v = rng.choice(["31", "2147483648", "4294967297", "99999999999999999999", "0", "-1", "30000"])
        body = H + f"qreg q[{v}];\nh q[0];\n"
        desc = f"qreg q[{v}]"
        expect = "error"
    elif k == "many-qregs":
        body = H + "".join(f"qreg q{j}[{rng.choice([1, 8, 16])}];\n" for j in range(rng.choice([3, 40, 5000]))) + "h q0[0];\n"
        desc = "many qregs"
        expect = "any"
    elif k == "include-zero":
        body = 'OPENQASM 2.0;\ninclude "/dev/zero";\nqreg q[1];\n'
        desc = 'include "/dev/zero"'
        expect = "error"
    elif k == "include-devnull":
        body = 'OPENQASM 2.0;\ninclude "/dev/null";\nqreg q[1];\nU(0,0,0) q[0];\n'
        desc = 'include "/dev/null"'
    elif k == "include-self":
        body = 'OPENQASM 2.0;\ninclude "c.qasm";\nqreg q[1];\n'
        desc = "include of itself"
        expect = "error"
    elif k == "nested-include":
        extra["a.inc"] = b'include "b.inc";\n'
        extra["b.inc"] = b'include "a.inc";\n'
        body = 'OPENQASM 2.0;\ninclude "a.inc";\nqreg q[1];\n'
        desc = "mutually recursive includes"
        expect = "error"
    elif k == "include-missing":
        body = 'OPENQASM 2.0;\ninclude "nope.inc";\nqreg q[1];\n'
        desc = "include of a missing file"
        expect = "error"
    elif k == "include-dir":
        extra["incdir"] = "dir"
        body = 'OPENQASM 2.0;\ninclude "incdir";\nqreg q[1];\n'
        desc = "include of a directory"
        expect = "error"
    elif k == "include-fifo":
        extra["inc.fifo"] = "fifo"
        body = 'OPENQASM 2.0;\ninclude "inc.fifo";\nqreg q[1];\n'
        desc = "include of a FIFO"
        expect = "error"
    elif k == "unterminated-string":
        body = 'OPENQASM 2.0;\ninclude "qelib1.inc;\nqreg q[1];\n'
        desc = "unterminated string"
        expect = "error"
    elif k == "unterminated-comment":
        body = H + "qreg q[1];\n/* never closed\nh q[0];\n"
        desc = "unterminated /* comment"
        expect = "error"
    elif k == "block-comment":
        body = H + "qreg q[1];\n// comment \x1b[2J\nh q[0]; // trailing\n"
        desc = "comments with escape sequences"
        expect = "ok"
    elif k == "nonascii":
        body = H + rng.choice(["qreg q\u00e9[2];\nh q\u00e9[0];\n", "qreg q[2];\nh q[0];\u00a0\n",
                               "qreg q[2];\n\u202eh q[0];\n", "qreg q[2];\nrz(\u03c0) q[0];\n"])
        desc = "non-ASCII characters"
    elif k == "nul":
        body = H + "qreg q[2];\nh q[0];\x00\ncx q[0],q[1];\n"
        desc = "NUL byte"
    elif k == "u3-extreme-valid":
        body = H + "qreg q[1];\nu3(1,-1e308,3.14) q[0];\n"
        desc = "u3(1,-1e308,3.14) (valid)"
        expect = "ok"
    elif k == "u3-extreme":
        a = [rng.choice(["1e308", "-1e308", "1.7976931348623157e308", "1e-320", "0", "pi", "1e300*1e300",
                         "-1e308-1e308", "1e16", "4.9e-324"]) for _ in range(3)]
        body = H + f"qreg q[1];\nu3({a[0]},{a[1]},{a[2]}) q[0];\n"
        desc = f"u3({','.join(a)})"
        expect = "any"
    elif k == "measure-range":
        body = H + "qreg q[3];\ncreg c[3];\nh q[0];\n" + rng.choice(
            ["measure q[5] -> c[0];\n", "measure q[0] -> c[3];\n", "measure q[-1] -> c[0];\n",
             "measure q[0] -> c[99999999999];\n"])
        desc = "measure out of range"
        expect = "error"
    elif k == "measure-mismatch":
        body = H + "qreg q[3];\ncreg c[2];\nh q[0];\nmeasure q -> c;\n"
        desc = "measure register size mismatch"
        expect = "error"
    elif k == "qubit-range":
        body = H + "qreg q[2];\n" + rng.choice(["h q[2];\n", "cx q[0],q[7];\n", "h q[2147483648];\n", "h q[-1];\n"])
        desc = "qubit index out of range"
        expect = "error"
    elif k == "repeat-qubit":
        body = H + "qreg q[3];\n" + rng.choice(["cx q[0],q[0];\n", "ccx q[1],q[0],q[1];\n", "swap q[2],q[2];\n"])
        desc = "repeated qubit argument"
        expect = "error"
    elif k == "div0":
        body = H + "qreg q[1];\n" + rng.choice(["rz(1/0) q[0];\n", "rz(0/0) q[0];\n", "rz(ln(0)) q[0];\n",
                                               "rz(sqrt(-1)) q[0];\n", "rz(exp(1000)) q[0];\n"])
        desc = "non-finite parameter"
        expect = "error"
    elif k == "long-ident":
        L = rng.choice([1000, 100000, 1000000])
        body = H + f"qreg {'q' * L}[1];\nh {'q' * L}[0];\n"
        desc = f"identifier of {L} characters"
        expect = "any"
    elif k == "opaque":
        body = H + "opaque og a;\nqreg q[1];\nog q[0];\n"
        desc = "opaque gate"
        expect = "error"
    elif k == "if":
        body = H + "qreg q[1];\ncreg c[1];\nif(c==1) x q[0];\n"
        desc = "if"
        expect = "error"
    elif k == "reset":
        body = H + "qreg q[1];\nh q[0];\nreset q[0];\n"
        desc = "reset after gates"
        expect = "error"
    elif k == "empty":
        body = ""
        desc = "empty QASM file"
        expect = "error"
    elif k == "header-only":
        body = H
        desc = "no qreg"
        expect = "error"
    elif k == "bad-version":
        body = rng.choice(["OPENQASM 3.0;\nqubit q;\n", "OPENQASM 99999999999999999999.0;\n", "OPENQASM;\n",
                           "openqasm 2.0;\n"]) + 'include "qelib1.inc";\nqreg q[1];\nh q[0];\n'
        desc = "bad version line"
        expect = "any"
    elif k == "gate-arity":
        body = H + "qreg q[2];\ncx q[0];\n"
        desc = "wrong number of qubit arguments"
        expect = "error"
    elif k == "gate-undefined":
        body = H + "qreg q[1];\nfoo q[0];\n"
        desc = "undefined gate"
        expect = "error"
    elif k == "param-count":
        body = H + "qreg q[1];\nrz(1,2) q[0];\n"
        desc = "wrong parameter count"
        expect = "error"
    elif k == "crlf":
        body = (H + "qreg q[2];\nh q[0];\ncx q[0],q[1];\n").replace("\n", "\r\n")
        desc = "CRLF line ends"
        expect = "any"
    elif k == "huge-number":
        body = H + "qreg q[1];\nrz(" + "9" * rng.choice([400, 100000]) + ") q[0];\n"
        desc = "huge numeric literal"
        expect = "any"
    elif k == "many-params":
        body = H + "gate g(" + ",".join(f"p{j}" for j in range(5000)) + ") a { rz(p0) a; }\nqreg q[1];\ng(" + \
            ",".join(["1"] * 5000) + ") q[0];\n"
        desc = "5000 gate parameters"
        expect = "any"
    elif k == "big-state":
        n = rng.choice([27, 28, 29, 30])
        body = H + f"qreg q[{n}];\nh q[0];\ncx q[0],q[{n - 1}];\n"
        desc = f"{n} qubits (state larger than the 4 GiB address-space limit)"
        expect = "any"
    elif k == "dup-include":
        body = H + 'include "qelib1.inc";\nqreg q[1];\nh q[0];\n'
        desc = "qelib1.inc included twice"
    elif k == "gate-dup-arg":
        body = H + rng.choice(["gate g a, a { h a; }\n", "gate g(p, p) a { rz(p) a; }\n", "gate h a { x a; }\n"]) + \
            "qreg q[2];\n"
        desc = "gate definition with a duplicate name"
    elif k == "after-measure":
        body = H + "qreg q[1];\ncreg c[1];\nmeasure q[0] -> c[0];\nh q[0];\n"
        desc = "gate after measure"
        expect = "error"
    elif k == "flat-gates":
        cnt = rng.choice([100000, 300000])
        body = H + "qreg q[2];\n" + "h q[0];\ncx q[0],q[1];\n" * (cnt // 2)
        desc = f"{cnt} gates in a flat file"
    elif k == "bom":
        body = "\ufeff" + H + "qreg q[1];\nh q[0];\n"
        desc = "UTF-8 byte-order mark"
    elif k == "builtin-bad":
        body = H + "qreg q[2];\n" + rng.choice(["U(1,2) q[0];\n", "CX q[0];\n", "U(1,2,3) q;\nCX q[0],q[0];\n",
                                                "U(1,2,3,4) q[0];\n"])
        desc = "bad use of built-in U/CX"
        expect = "error"
    elif k == "measure-twice":
        body = H + "qreg q[2];\ncreg c[2];\nh q[0];\nmeasure q[0] -> c[0];\nmeasure q[0] -> c[1];\n"
        desc = "the same qubit measured twice"
    elif k == "big-file":
        body = H + "qreg q[1];\n// " + "x" * (rng.choice([5, 40]) << 20) + "\nh q[0];\n"
        desc = "5-40 MB comment line"
    else:  # barrier-only
        body = H + "qreg q[2];\nbarrier q;\n"
        desc = "barrier only"
        expect = "any"
    return body.encode("utf-8", "surrogatepass"), expect, desc, extra


def gen_qasm(ctx):
    rng = ctx.rng
    body, expect, desc, extra = qasm_adversarial(rng)
    name = "c.qasm"
    if rng.random() < 0.08:  # a file name with a newline and an escape: error messages must escape it
        name = rng.choice(["bad\nname.qasm", "x\x1b[31m.qasm", "a\rb.qasm"])
        desc += f"; file name {name!r}"
    with open(ctx.p(name), "wb") as f:
        f.write(body)
    inputs = [name]
    for fn, content in extra.items():
        if content == "fifo":
            os.mkfifo(ctx.p(fn))
        elif content == "dir":
            os.mkdir(ctx.p(fn))
        else:
            with open(ctx.p(fn), "wb") as f:
                f.write(content)
            inputs.append(fn)
    argv = ["--qasm", name, "--scheme", "fp32", "--device", "host", "--quiet"]
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    if rng.random() < 0.15:
        argv += ["--shots", rng.choice(["10", "0", "2147483647", "9223372036854775807", "1000000000000"])]
        if argv[-1] in ("9223372036854775807", "1000000000000", "2147483647") and expect == "ok":
            expect = "any"
    return dict(app="qsim", argv=argv, inputs=inputs, outputs=outs, expect=expect, desc=desc)


# ------------------------------------------------------------------------------ qsim circuit files

def gen_circuit_h5(ctx):
    rng = ctx.rng
    n = rng.randint(2, 6)
    c = F.circuit_datasets(rng, n)
    a = c["attrs"]
    kw = {}
    kinds = ["nq0", "nq-neg", "nq31", "nq-huge", "nclbits-huge", "nclbits-neg", "ngates-mismatch", "ngates-huge",
             "arity-neg", "arity-big", "controls-big", "qubit-range", "qubit-repeat", "ctl+tgt>n", "mat-nan",
             "mat-shape", "non-unitary", "meas-range", "meas-shape", "arity-float", "attr-string", "no-format",
             "name-ctrl", "circuit-dataset", "huge-chunked", "compressed", "missing-qubits", "missing-matrices",
             "empty-circuit", "meas-dup", "nq-float"]
    k = rng.choice(kinds)
    expect = "error"
    special = None
    if k == "nq0":
        a["num_qubits"] = np.int64(0)
        a["name"] = rng.choice(["X", "line1\nline2", "\x1b[31mred", "tab\there"])
    elif k == "nq-neg":
        a["num_qubits"] = np.int64(rng.choice([-1, -2**31, -2**63]))
    elif k == "nq31":
        a["num_qubits"] = np.int64(31)
    elif k == "nq-huge":
        a["num_qubits"] = np.int64(rng.choice([2**31 + 2, 2**32 + 3, 2**62]))
    elif k == "nclbits-huge":
        a["num_clbits"] = np.int64(rng.choice([2**31 + 5, 2**32 + 1, 2**62, 2000000000]))
    elif k == "nclbits-neg":
        a["num_clbits"] = np.int64(-1)
    elif k == "ngates-mismatch":
        old_ng = int(a["num_gates"])
        a["num_gates"] = np.int64(old_ng + rng.choice([-1, 1, 5]))
        if int(a["num_gates"]) < 0:
            a["num_gates"] = np.int64(-1)
        k += f" (num_gates {old_ng} -> {int(a['num_gates'])}, /circuit/gate_arity keeps {old_ng} rows)"
    elif k == "ngates-huge":
        a["num_gates"] = np.int64(rng.choice([2**31, 2**62 + 1, 2**63 - 1]))
    elif k == "arity-neg":
        c["gate_arity"][rng.randrange(len(c["gate_arity"])), rng.randrange(2)] = -1
    elif k == "arity-big":
        c["gate_arity"][0, 0] = rng.choice([10, 31, 2**30, 2**31 - 1])
    elif k == "controls-big":
        c["gate_arity"][0, 1] = rng.choice([31, 2**31 - 1])
    elif k == "qubit-range":
        c["qubits"][rng.randrange(len(c["qubits"]))] = rng.choice([n, 31, -1, 2**31 - 1])
    elif k == "qubit-repeat":
        i = next((j for j in range(len(c["gate_arity"])) if c["gate_arity"][j].sum() >= 2), None)
        if i is None:
            c["gate_arity"][0, 1] = 0
            k = "no-op"
            expect = "any"
        else:
            off = int(c["gate_arity"][:i].sum())
            c["qubits"][off + 1] = c["qubits"][off]
    elif k == "ctl+tgt>n":
        # a gate with 1 target and n controls: n + 1 distinct qubits do not exist
        c = F.circuit_datasets(rng, n)
        c["gate_arity"] = np.vstack([c["gate_arity"], [[1, n]]]).astype(np.int32)
        c["qubits"] = np.concatenate([c["qubits"], np.arange(n + 1, dtype=np.int32) % n]).astype(np.int32)
        c["matrices"] = np.vstack([c["matrices"], [[0, 0], [1, 0], [1, 0], [0, 0]]])
        c["attrs"]["num_gates"] = np.int64(len(c["gate_arity"]))
        a = c["attrs"]
    elif k == "mat-nan":
        c["matrices"][rng.randrange(len(c["matrices"])), rng.randrange(2)] = rng.choice([np.nan, np.inf])
    elif k == "mat-shape":
        c["matrices"] = c["matrices"][:-1]
    elif k == "non-unitary":
        c["matrices"] = c["matrices"] * 2.0
    elif k == "meas-range":
        c["measurements"] = np.array([[0, 0], [rng.choice([n, 31, -1]), 1]], dtype=np.int32)
    elif k == "meas-shape":
        c["measurements"] = np.arange(6, dtype=np.int32).reshape(2, 3) % n
    elif k == "meas-dup":
        c["measurements"] = np.array([[0, 0], [0, 0]], dtype=np.int32)
        expect = "any"
    elif k == "arity-float":
        c["gate_arity"] = c["gate_arity"].astype(np.float64) + 0.5
        expect = "any"
    elif k == "attr-string":
        a["num_qubits"] = str(n)
    elif k == "nq-float":
        a["num_qubits"] = float(n) + 0.5
    elif k == "no-format":
        a["format"] = None
        expect = "any"
    elif k == "name-ctrl":
        a["name"] = rng.choice(["line1\nqsim: error: forged", "\x1b[2J", np.bytes_(b"a\x00b"), "\r\r", "x" * 100000])
        expect = "ok"
    elif k == "circuit-dataset":
        special = "dataset"
    elif k == "huge-chunked":
        special = "huge"
    elif k == "compressed":
        kw = dict(compression="gzip", shuffle=rng.random() < 0.5)
        expect = "ok"
    elif k == "missing-qubits":
        c["qubits"] = None
    elif k == "missing-matrices":
        c["matrices"] = None
    elif k == "empty-circuit":
        a["num_gates"] = np.int64(0)
        c["gate_arity"] = c["gate_arity"][:0]
        c["qubits"] = c["qubits"][:0]
        c["matrices"] = c["matrices"][:0]
        expect = "any"
    p = ctx.p("c.h5")
    if special == "dataset":
        with h5py.File(p, "w") as f:
            f["circuit"] = np.zeros(3)
    elif special == "huge":
        F.write_circuit(p, c)
        with h5py.File(p, "a") as f:
            ds = rng.choice(["gate_arity", "qubits", "matrices", "measurements"])
            if ds in f["circuit"]:
                del f["circuit"][ds]
            shape = {"gate_arity": (2**62 + 1, 2), "qubits": (2**63 - 1,), "matrices": (2**62 + 1, 2),
                     "measurements": (2**62 + 1, 2)}[ds]
            f["circuit"].create_dataset(ds, shape=shape, dtype="i4" if ds != "matrices" else "f8",
                                        chunks=tuple([1] * (len(shape) - 1) + [min(2, shape[-1])]))
            if ds == "gate_arity":
                f["circuit"].attrs["num_gates"] = np.int64(2**62 + 1)
        k += f" ({ds})"
    else:
        F.write_circuit(p, c, **kw)
    argv = ["--input", "c.h5", "--scheme", "fp32", "--device", "host", "--quiet"]
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    if rng.random() < 0.3:
        argv += ["--shots", "5"]
    return dict(app="qsim", argv=argv, inputs=["c.h5"], outputs=outs, expect=expect, desc=f"circuit file: {k}")


# --------------------------------------------------------------------------- app-specific params

def gen_hplai(ctx):
    rng = ctx.rng
    k = rng.choice(["n", "nb", "input-mismatch", "singular", "nan", "nonsquare", "b-rank", "dtype", "n1", "n2",
                    "seed", "solver", "restart", "maxiter"])
    argv = ["--scheme", rng.choice(["fp32", "fp32", "fp16x2,bf16x3", "int8-ozaki"]), "--device", "host", "--quiet"]
    expect = "any"
    inputs = []
    if k == "n":
        v = rng.choice(["0", "-1", "-0", "2147483647", "2147483648", "46341", "65537", "9223372036854775807",
                        "100000000", "3037000500"])
        argv += ["--n", v]
        expect = "error" if v in ("0", "-1", "-0", "2147483648", "9223372036854775807") else "any"
        desc = f"--n {v}"
    elif k == "n1":
        argv += ["--n", "1", "--nb", rng.choice(["1", "8", "256"])]
        expect = "ok"
        desc = "--n 1 (valid)"
    elif k == "n2":
        argv += ["--n", "2", "--seed", str(rng.choice([1, 2, 3, 7]))]
        expect = "ok"
        desc = "--n 2 (valid)"
    elif k == "nb":
        v = rng.choice(["0", "-1", "1", "2", "63", "64", "65", "2147483647", "9223372036854775807", "nan"])
        argv += ["--n", str(rng.choice([1, 7, 32, 64])), "--nb", v]
        expect = "error" if v in ("0", "-1", "nan") else "any"  # nb > n: clamped to n
        desc = f"--nb {v}"
    elif k == "seed":
        v = rng.choice(["0", "4294967295", "4294967296", "18446744073709551615", "-1", "nan", "1e3"])
        argv += ["--n", "16", "--nb", "8", "--seed", v]
        expect = "error" if v in ("nan",) else "any"
        desc = f"--seed {v}"
    elif k == "solver":
        v = rng.choice(["gmres", "ir", "GMRES", "", "cg"])
        argv += ["--n", "16", "--nb", "8", "--solver", v]
        expect = "any" if v in ("gmres", "ir") else "error"
        desc = f"--solver {v!r}"
    elif k == "restart":
        v = rng.choice(["0", "1", "-1", "2147483647", "9223372036854775807"])
        argv += ["--n", "16", "--nb", "8", "--restart", v]
        expect = "error" if v in ("-1", "9223372036854775807") else "any"
        desc = f"--restart {v}"
    elif k == "maxiter":
        v = rng.choice(["0", "1", "-1", "2147483647"])
        argv += ["--n", "16", "--nb", "8", "--max-iter", v]
        expect = "error" if v == "-1" else "any"
        desc = f"--max-iter {v}"
    else:
        n = rng.randint(2, 24)
        a, b = F.hplai_arrays(rng, n)
        if k == "input-mismatch":
            b = np.resize(b, n + rng.choice([-1, 1, 5]))
            desc = "/b length != n"
            expect = "error"
        elif k == "singular":
            a[:, rng.randrange(n)] = 0.0 if rng.random() < 0.5 else a[:, 0]
            if rng.random() < 0.5:
                a[:] = 0.0
            desc = "singular /A"
        elif k == "nan":
            (a if rng.random() < 0.6 else b).flat[0] = rng.choice([np.nan, np.inf, -np.inf])
            desc = "NaN/Inf in /A or /b"
            expect = "error"
        elif k == "nonsquare":
            a = a[:, :-1]
            desc = "non-square /A"
            expect = "error"
        elif k == "b-rank":
            b = b.reshape(-1, 1)
            desc = "/b as n x 1"
        else:
            a = a.astype(rng.choice(["f4", "i4", "f2"]))
            desc = f"/A as {a.dtype}"
            expect = "ok" if a.dtype == np.float32 else "any"
        with h5py.File(ctx.p("in.h5"), "w") as f:
            f["A"] = a
            f["b"] = b
        inputs = ["in.h5"]
        argv += ["--input", "in.h5", "--nb", str(rng.choice([1, 4, 8, 64]))]
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    return dict(app="hplai", argv=argv, inputs=inputs, outputs=outs, expect=expect, desc=desc)


def gen_kmeans(ctx):
    rng = ctx.rng
    n = 100
    k = rng.choice(["k0", "kneg", "k>n", "k=n", "init-missing", "init-shape", "init-nan", "init-dup", "replicate",
                    "noise", "tol", "margin", "init-bad", "seed", "k-huge"])
    kinit = None
    if k.startswith("init") and k not in ("init-missing", "init-bad"):
        kinit = 3
    F.write_kmeans(ctx.p("in.h5"), rng, n=n, k_init=kinit)
    argv = ["--input", "in.h5", "--scheme", rng.choice(["fp32", "fp32", "fp16x2,bf16x3"]), "--device", "host",
            "--quiet", "--max-iter", "20"]
    expect = "error"
    if k == "k0":
        argv += ["--k", "0"]
    elif k == "kneg":
        argv += ["--k", "-3"]
    elif k == "k>n":
        argv += ["--k", str(n + rng.randint(1, 50))]
    elif k == "k-huge":
        argv += ["--k", rng.choice(["2147483647", "2147483648", "9223372036854775807"])]
    elif k == "k=n":
        argv += ["--k", str(n)]
        expect = "ok"
    elif k == "init-missing":
        argv += ["--k", "3", "--init", "file"]
    elif k == "init-bad":
        argv += ["--k", "3", "--init", rng.choice(["", "kmeans+", "FILE", "file,random", "\n"])]
    elif k in ("init-shape", "init-nan", "init-dup"):
        with h5py.File(ctx.p("in.h5"), "a") as f:
            c = f["init_centroids"][()]
            del f["init_centroids"]
            if k == "init-shape":
                c = rng.choice([c[:, :-1], c[:2], np.vstack([c, c]), c.reshape(-1)])
            elif k == "init-nan":
                c[0, 0] = rng.choice([np.nan, np.inf])
            else:
                c[1] = c[0]
                expect = "any"
            f["init_centroids"] = c
        argv += ["--k", "3", "--init", "file"]
        if k == "init-shape" and c.ndim == 2 and c.shape[0] > 3 and c.shape[1] == 4:
            expect = "any"  # more rows than k: using the first k is defensible
    elif k == "replicate":
        v = rng.choice(["0", "-1", "1", "2", "9223372036854775807", "4611686018427387905", "2147483647", "nan"])
        argv += ["--k", "3", "--replicate", v]
        expect = "error" if v in ("0", "-1", "nan", "9223372036854775807", "4611686018427387905", "2147483647") else "any"
    elif k == "noise":
        v = rng.choice(["nan", "-1", "inf", "0", "1e308", "0.1"])
        argv += ["--k", "3", "--replicate", "2", "--noise", v]
        expect = "error" if v in ("nan", "-1") else "any"
    elif k == "tol":
        v = rng.choice(["nan", "-1", "inf", "0", "1e-300", "-nan", "NAN"])
        argv += ["--k", "3", "--tol", v]
        expect = "error" if v in ("nan", "-1", "-nan", "NAN") else "any"
    elif k == "margin":
        v = rng.choice(["nan", "-1", "inf", "0", "1", "1e308"])
        argv += ["--k", "3", "--recheck-margin", v]
        expect = "error" if v in ("nan", "-1") else "any"
    else:  # seed
        v = rng.choice(["0", "4294967296", "18446744073709551615", "18446744073709551616", "-1", "abc"])
        argv += ["--k", "3", "--seed", v]
        expect = "error" if v in ("abc", "18446744073709551616") else "any"
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    return dict(app="kmeans", argv=argv, inputs=["in.h5"], outputs=outs, expect=expect, desc=k)


def gen_knn(ctx):
    rng = ctx.rng
    n, d, q = 50, 8, 10
    k = rng.choice(["k>n", "k=n", "k0", "queries0", "queries>q", "queries=q", "d-mismatch", "neighbors-range",
                    "neighbors-shape", "neighbors-rows", "batch", "repeat", "test-empty", "train-nan", "distance"])
    expect = "error"
    F.write_knn(ctx.p("in.h5"), rng, n=n, d=d, q=q)
    argv = ["--input", "in.h5", "--scheme", rng.choice(["fp32", "fp32", "fp16x2,bf16x3", "int8-ozaki"]), "--device",
            "host", "--json"]
    kk = "3"
    if k == "k>n":
        kk = str(n + rng.randint(1, 100))
    elif k == "k=n":
        kk = str(n)
        expect = "ok"
    elif k == "k0":
        kk = rng.choice(["0", "-1"])
    elif k == "queries0":
        argv += ["--queries", rng.choice(["0", "-1"])]
    elif k == "queries>q":
        argv += ["--queries", str(q + rng.randint(1, 10 ** 6))]
    elif k == "queries=q":
        argv += ["--queries", str(q)]
        expect = "ok"
    elif k == "batch":
        v = rng.choice(["1", "3", "2147483647", "9223372036854775807", "0", "-5"])
        argv += ["--batch", v]
        expect = "ok" if v in ("1", "3", "2147483647") else ("error" if v in ("0", "-5") else "any")
    elif k == "repeat":
        v = rng.choice(["1", "3", "0", "-1"])
        argv += ["--repeat", v]
        expect = "ok" if v in ("1", "3") else "error"
    else:
        with h5py.File(ctx.p("in.h5"), "a") as f:
            if k == "d-mismatch":
                t = f["test"][()]
                del f["test"]
                f["test"] = np.hstack([t, t[:, :1]]) if rng.random() < 0.5 else t[:, :-1]
            elif k == "neighbors-range":
                nb = f["neighbors"][()]
                nb[rng.randrange(q), rng.randrange(nb.shape[1])] = rng.choice([-1, n, 2**31 - 1])
                f["neighbors"][...] = nb
            elif k == "neighbors-shape":
                nb = f["neighbors"][()]
                del f["neighbors"]
                f["neighbors"] = rng.choice([nb[:, :2], nb.reshape(-1), nb.astype(np.float32)])
                expect = "any"
            elif k == "neighbors-rows":
                nb = f["neighbors"][()]
                del f["neighbors"]
                f["neighbors"] = nb[:q - 3]
            elif k == "test-empty":
                del f["test"]
                f.create_dataset("test", shape=(0, d), dtype="f4")
            elif k == "train-nan":
                t = f["train"][()]
                t[rng.randrange(n), rng.randrange(d)] = rng.choice([np.nan, np.inf, -np.inf])
                f["train"][...] = t
            else:
                f.attrs["distance"] = rng.choice(["angular", "hamming", "euclidean\n", ""])
                expect = "any"
    argv += ["--k", kk]
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    return dict(app="knn", argv=argv, inputs=["in.h5"], outputs=outs, expect=expect, desc=k)


def gen_qsim_params(ctx):
    rng = ctx.rng
    n = rng.randint(2, 6)
    with open(ctx.p("c.qasm"), "w") as f:
        f.write(F.qasm_text(rng, n=n, measure=rng.random() < 0.5))
    argv = ["--qasm", "c.qasm", "--scheme", rng.choice(["fp32", "fp32", "fp16x2,bf16x3"]), "--device", "host",
            "--quiet"]
    k = rng.choice(["amplitudes", "amplitudes-bad", "shots", "fuse", "kernels", "range-policy", "both-sources",
                    "no-source", "seed"])
    expect = "any"
    if k == "amplitudes":
        bits = ",".join("".join(rng.choice("01") for _ in range(n)) for _ in range(rng.randint(1, 4)))
        argv += ["--amplitudes", bits]
        expect = "ok"
    elif k == "amplitudes-bad":
        v = rng.choice(["".join(rng.choice("01") for _ in range(n + 1)), "0" * (n - 1) if n > 1 else "",
                        "2" * n, "x" * n, "0" * 65, "0" * 1000, ",".join(["0" * n, "1" * (n + 3)]), "0b" + "0" * n,
                        "0" * n + "\n"])
        argv += ["--amplitudes", v]
        expect = "error"
    elif k == "shots":
        v = rng.choice(["0", "1", "1000", "1000000000000", "9223372036854775807", "-1", "1e3", "nan"])
        argv += ["--shots", v]
        expect = {"0": "ok", "1": "ok", "1000": "ok", "-1": "error", "nan": "error",
                  "1000000000000": "error", "9223372036854775807": "error"}.get(v, "any")
    elif k == "fuse":
        v = rng.choice(["0", "1", "5", "9", "10", "-1", "64", "2147483648"])
        argv += ["--fuse", v]
        expect = "ok" if v in ("1", "5", "9") else "error"
    elif k == "kernels":
        argv += ["--kernels", rng.choice(["auto", "multipass", "fused", "FUSED", ""])]
        expect = "ok" if argv[-1] in ("auto", "multipass") else ("error" if argv[-1] in ("FUSED", "") else "any")
    elif k == "range-policy":
        argv += ["--range-policy", rng.choice(["fallback", "ignore", "error", "none", ""])]
        expect = "error" if argv[-1] in ("none", "") else "any"
    elif k == "both-sources":
        argv += [rng.choice(["--generate", "-g"]), "ghz:n=3"]
        expect = "error"
    elif k == "no-source":
        argv = argv[2:]
        expect = "error"
    else:
        argv += ["--seed", rng.choice(["0", "4294967295", "18446744073709551615", "18446744073709551616", "-1"])]
        expect = "error" if argv[-1] == "18446744073709551616" else "any"
    outs = []
    if rng.random() < 0.3:
        argv += ["--output", "out.h5"]
        outs = ["out.h5"]
    return dict(app="qsim", argv=argv, inputs=["c.qasm"], outputs=outs, expect=expect, desc=f"{k}: {argv[-1]!r}"[:80]
                if not outs else f"{k}: {argv[-3]!r}"[:80])


# -------------------------------------------------------------------------------- signals, disk full

def gen_signal(ctx, app):
    rng = ctx.rng
    sig = rng.choice([signal.SIGTERM, signal.SIGINT])
    delay = rng.uniform(0.1, 2.0)
    if app == "knn":
        F.write_knn(ctx.p("in.h5"), rng, n=6000, d=64, q=400, neighbors=False)
        argv = ["--input", "in.h5", "--k", "10", "--scheme", "all", "--device", "host", "--json", "--output", "out.h5",
                "--repeat", "2"]
        inputs = ["in.h5"]
    elif app == "qsim":
        argv = ["--generate", f"brickwork:n=16,depth=14,seed={rng.randint(1, 9)}", "--scheme", "all", "--device",
                "host", "--quiet", "--output", "out.h5", "--shots", "100"]
        inputs = []
        if rng.random() < 0.3:
            argv[argv.index("--output")] = "--save-circuit"
            argv[0:2] = ["--generate", f"random:n=10,gates=300000,seed={rng.randint(1, 9)}"]
            delay = rng.uniform(0.1, 1.5)
    elif app == "kmeans":
        F.write_kmeans(ctx.p("in.h5"), rng, n=20000, d=32)
        argv = ["--input", "in.h5", "--k", "64", "--scheme", "fp32,fp16x2,bf16x3", "--device", "host", "--quiet",
                "--max-iter", "30", "--output", "out.h5"]
        inputs = ["in.h5"]
    else:
        argv = ["--n", "2500", "--nb", "256", "--scheme", "fp32,fp16x2,bf16x3", "--device", "host", "--quiet",
                "--output", "out.h5"]
        inputs = []
    outs = [argv[argv.index("--output") + 1]] if "--output" in argv else [argv[argv.index("--save-circuit") + 1]]
    spec = dict(app=app, argv=argv, inputs=inputs, outputs=outs, expect="any", signal=(int(sig), delay),
                desc=f"{signal.Signals(sig).name} after {delay:.2f} s")
    if rng.random() < 0.2:
        spec["signal2"] = (int(rng.choice([signal.SIGTERM, signal.SIGINT])), rng.choice([0.0, 0.005, 0.05]))
        spec["desc"] += f", then {signal.Signals(spec['signal2'][0]).name} {spec['signal2'][1]:.3f} s later"
    return spec


def gen_disk_full(ctx, app):
    rng = ctx.rng
    argv, inputs, _, _ = base(ctx, app, with_output=False)
    blocks = rng.choice([0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128])
    opt = "--output"
    if app == "qsim":
        if rng.random() < 0.3:
            opt = "--save-circuit"
        elif "--shots" not in argv:
            argv += ["--shots", "20"]
        if app == "qsim" and rng.random() < 0.5 and "--generate" in argv:
            argv[argv.index("--generate") + 1] = "brickwork:n=10,depth=6,seed=5"  # a bigger state in the output
    argv += [opt, "out.h5"]
    desc = f"{opt} with RLIMIT_FSIZE {blocks * 512} bytes"
    if rng.random() < 0.3:
        with open(ctx.p("out.h5"), "wb") as f:
            f.write(b"previous output\n")
        desc += ", out.h5 exists (must stay unchanged on error)"
    return dict(app=app, argv=argv, inputs=inputs, outputs=["out.h5"], expect="any", fsize=blocks, desc=desc)


def gen_rlimit(ctx, app):
    """Small RLIMIT_AS (a problem larger than the limit: must end in one 'out of memory' line) or small
    RLIMIT_NOFILE (opening the files fails: one error line, or a normal run)."""
    rng = ctx.rng
    # knn has no memory variant: its arrays are small next to OpenBLAS's 128 MiB GEMM buffer, and OpenBLAS
    # retries a failed buffer malloc forever (a hang inside the library, noted in docs/reliability.md)
    if rng.random() < 0.5 and app != "knn":
        limit = rng.choice([150, 250, 400]) * 1024
        if app == "qsim":
            argv = ["--generate", rng.choice(["ghz:n=26", "ghz:n=27", "brickwork:n=26,depth=1,seed=1", "qft:n=26"]),
                    "--scheme", "fp32", "--device", "host", "--quiet"]
            inputs = []
        elif app == "hplai":
            argv = ["--n", str(rng.choice([9000, 12000, 20000])), "--scheme", "fp32", "--device", "host", "--quiet"]
            inputs = []
        elif app == "kmeans":
            F.write_kmeans(ctx.p("in.h5"), rng)
            argv = ["--input", "in.h5", "--k", "3", "--replicate", str(rng.choice([1000000, 3000000])),
                    "--scheme", "fp32", "--device", "host", "--quiet", "--max-iter", "2"]
            inputs = ["in.h5"]
        else:
            F.write_knn(ctx.p("in.h5"), rng, n=300000, d=4, q=10, neighbors=False)
            argv = ["--input", "in.h5", "--k", "3", "--scheme", "fp32", "--device", "host", "--json"]
            inputs = ["in.h5"]
            limit = rng.choice([80, 100, 120]) * 1024
        outs = []
        if rng.random() < 0.3:
            argv += ["--output", "out.h5"]
            outs = ["out.h5"]
        return dict(app=app, argv=argv, inputs=inputs, outputs=outs, expect="any", vlimit=limit,
                    desc=f"RLIMIT_AS {limit // 1024} MiB")
    argv, inputs, _, _ = base(ctx, app, with_output=False)
    argv += ["--output", "out.h5"]
    n = rng.choice([4, 5, 6, 8])
    return dict(app=app, argv=argv, inputs=inputs, outputs=["out.h5"], expect="any", nofile=n,
                desc=f"RLIMIT_NOFILE {n}")


# ------------------------------------------------------------------------------- valid, mutation

def gen_valid(ctx, app):
    """A valid run (must exit 0 and write a valid output): catches valid input rejected."""
    rng = ctx.rng
    argv, inputs, outs, info = base(ctx, app, with_output=rng.random() < 0.6)
    desc = "valid run"
    if app == "qsim" and rng.random() < 0.2:
        with open(ctx.p("c.qasm"), "w") as f:
            f.write('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\n'
                    f"u3({rng.choice(['1', '0.5', '-2'])},{rng.choice(['-1e308', '1e308', '-1e300', '1e15'])},3.14) q[0];\n"
                    "cx q[0],q[1];\nmeasure q -> c;\n")
        argv = ["--qasm", "c.qasm", "--scheme", "fp32", "--device", "host", "--quiet"] + \
            (["--output", "out.h5"] if outs else [])
        inputs = ["c.qasm"]
        desc = "u3 with an extreme finite angle (valid)"
    if app == "qsim" and rng.random() < 0.2 and "--output" not in argv:
        argv += ["--save-circuit", "saved.h5"]
        outs = ["saved.h5"]
        desc = "--save-circuit"
    # valid extra options, as --help documents them
    extra = {
        "knn": [["--queries", str(rng.randint(1, 10))], ["--batch", str(rng.randint(1, 20))], ["--repeat", "2"],
                ["--target", "fp64"], ["--explain"], ["--scheme", "auto"], ["--scheme", "int8-ozaki:4,int8-mixpert:3"]],
        "kmeans": [["--tol", "0"], ["--seed", str(rng.randint(0, 2**32 - 1))], ["--recheck-margin", "0"],
                   ["--replicate", "2", "--noise", "0.1"], ["--json"], ["--target", "fp64"], ["--init", "kmeans++"]],
        "qsim": [["--fuse", str(rng.randint(1, 9))], ["--range-policy", rng.choice(["fallback", "ignore"])],
                 ["--target", "fp64"], ["--shots", str(rng.randint(0, 100))], ["--seed", str(rng.randint(0, 99))],
                 ["--json"]],
        "hplai": [["--solver", "ir"], ["--restart", str(rng.randint(2, 50))], ["--target", "fp64"], ["--repeat", "2"],
                  ["--json"], ["--max-iter", str(rng.randint(20, 100))]],
    }[app]
    for opt in rng.sample(extra, rng.randint(0, 2)):
        if opt[0] in argv and opt[0] in ("--scheme", "--shots", "--init"):
            argv[argv.index(opt[0]) + 1] = opt[1]
        elif opt[0] not in argv:
            argv += opt
        desc += " " + " ".join(opt)
    return dict(app=app, argv=argv, inputs=inputs, outputs=outs, expect="ok", desc=desc)


def qasm_mutation(rng, text):
    s = list(text)
    m = rng.randrange(6)
    if m == 0:  # replace a number token with an extreme one
        import re
        nums = [mm.span() for mm in re.finditer(r"\d+(\.\d+)?", text)]
        if nums:
            a, b = rng.choice(nums)
            rep = rng.choice(["0", "-1", "99999999999999999999", "1e308", "2147483648", "31", "nan", "", "1e-400"])
            return text[:a] + rep + text[b:], f"number at {a} -> {rep!r}"
    if m == 1 and s:
        i = rng.randrange(len(s))
        del s[i:i + rng.randint(1, 10)]
        return "".join(s), f"deleted chars at {i}"
    if m == 2:
        i = rng.randrange(len(s) + 1)
        ins = rng.choice([";", "(", ")", "[", "]", "{", "}", "->", ",", "\x00", "\u00e9", '"', "//", "/*", "-", "pi",
                          "\n", "q", "measure", "gate", "include"])
        s[i:i] = list(ins)
        return "".join(s), f"inserted {ins!r} at {i}"
    if m == 3:
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        lines.insert(i, lines[rng.randrange(len(lines))])
        return "\n".join(lines), f"duplicated a line at {i}"
    if m == 4:
        lines = text.split("\n")
        rng.shuffle(lines)
        return "\n".join(lines), "shuffled lines"
    if s:
        i = rng.randrange(len(s))
        s[i] = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 32), 0x7f, 0xe9]))
        return "".join(s), f"char at {i} replaced"
    return text, "unchanged"


def gen_mutation(ctx, app):
    """Seeded random mutations of a valid input (byte-level on HDF5, text-level on QASM)."""
    rng = ctx.rng
    if app == "qsim" and rng.random() < 0.6:
        text = F.qasm_text(rng)
        descs = []
        for _ in range(rng.randint(1, 4)):
            text, dsc = qasm_mutation(rng, text)
            descs.append(dsc)
        with open(ctx.p("c.qasm"), "wb") as f:
            f.write(text.encode("utf-8", "surrogatepass"))
        argv = ["--qasm", "c.qasm", "--scheme", "fp32", "--device", "host", "--quiet"]
        outs = []
        if rng.random() < 0.3:
            argv += ["--output", "out.h5"]
            outs = ["out.h5"]
        return dict(app=app, argv=argv, inputs=["c.qasm"], outputs=outs, expect="any", desc="; ".join(descs))
    p = ctx.p("base.h5")
    write_valid(ctx, app, p)
    data = open(p, "rb").read()
    os.remove(p)
    descs = []
    for _ in range(rng.randint(1, 3)):
        data, dsc = byte_mutation(rng, data)
        descs.append(dsc)
    with open(ctx.p("in.h5"), "wb") as f:
        f.write(data)
    argv, outs = app_command(ctx, app, "in.h5")
    return dict(app=app, argv=argv, inputs=["in.h5"], outputs=outs, expect="any", desc="; ".join(descs))


# ------------------------------------------------------------------------------------- the schedule

def per_app(fn, apps=APPS):
    return [(lambda ctx, a=a: fn(ctx, a), a) for a in apps]


# class name -> list of (generator, app), and its share of the cases
CLASSES = {
    "options": (per_app(gen_options), 16),
    "hdf5-corrupt": (per_app(gen_h5_corrupt, ("knn", "kmeans", "hplai")) + [(gen_circuit_h5, "qsim")], 14),
    "bytes-corrupt": (per_app(gen_bytes_corrupt), 6),
    "file-kinds": (per_app(gen_file_kind), 6),
    "output-paths": (per_app(gen_output_path), 9),
    "qasm": ([(gen_qasm, "qsim")], 9),
    "qsim-generate": ([(gen_generate, "qsim")], 4),
    "app-params": ([(gen_hplai, "hplai"), (gen_kmeans, "kmeans"), (gen_knn, "knn"), (gen_qsim_params, "qsim")], 12),
    "signals": (per_app(gen_signal, ("knn", "qsim", "knn", "qsim", "kmeans", "hplai")), 6),
    "disk-full": (per_app(gen_disk_full), 6),
    "rlimits": (per_app(gen_rlimit), 4),
    "valid": (per_app(gen_valid), 6),
    "mutation": (per_app(gen_mutation), 11),
}


def schedule():
    """A fixed list of (class, generator, app) slots; case i uses slot i % len."""
    slots = []
    for name, (gens, weight) in CLASSES.items():
        for j in range(weight):
            g, app = gens[j % len(gens)]
            slots.append((name, g, app))
    # interleave classes so that a short run still covers all of them
    order = sorted(range(len(slots)), key=lambda i: (sum(1 for s in slots[:i] if s[0] == slots[i][0]), i))
    return [slots[i] for i in order]
