#!/usr/bin/env python3
"""Adversarial campaign against knn, kmeans, qsim and hplai (issue 18).

  python3 scripts/adversarial/campaign.py --build-dir build --cases 2000 --seed 1 --jobs 2 --out report.json

Each case gets a scratch directory with its own inputs, runs one app there (its own process group,
a time limit, stdin from /dev/null) and is judged on:
  crash      death by a signal, or exit status >= 128 (except 130/143 after a SIGINT/SIGTERM the
             harness sent itself)
  hang       still running at --timeout (the process group is killed)
  bad_exit   an exit status other than 0 and 2 (hplai's documented 1 = residual FAIL included, marked)
  stray      anything left in the scratch directory besides the inputs and, after exit 0, the outputs
             (e.g. "<out>.tmp.<pid>"), and anything left next to an output outside it (/dev/null.tmp.*)
  modified   an input file (or anything else that existed before the run, other than the output path)
             whose type or bytes changed
  contract   exit 2: stderr is not exactly one line "<app>: error: ..." (the cases pass --json or
             --quiet, so no progress lines are expected), has control characters, or the output
             file was created or changed; exit 0: an output asked for is missing or not a valid HDF5 file; valid input
             (expect ok) rejected; clearly invalid input (expect error) accepted with exit 0
Cases are deterministic for a given --seed: case i draws everything from Random("<seed>:<i>").
Exit status: 0 when no case violated anything, 1 otherwise.
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import random
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import h5py  # noqa: E402

import cases as C  # noqa: E402

KINDS = ("crash", "hang", "bad_exit", "stray", "modified", "contract")
MEM_LIMIT_KIB = 4 * 1024 * 1024  # RLIMIT_AS of every case: a runaway allocation fails fast instead of swapping
DEV_LOCK = threading.Lock()  # cases that might touch /dev run one at a time


class Ctx:
    def __init__(self, seed, index, work):
        self.rng = random.Random(f"{seed}:{index}")
        self.work = work

    def p(self, name):
        return os.path.join(self.work, name)


def snapshot(root):
    """{relative path: (kind, sha256 or link target)} of everything under root (no symlink following)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                try:
                    with open(full, "rb") as f:
                        for block in iter(lambda: f.read(1 << 20), b""):
                            h.update(block)
                    out[rel] = ("file", h.hexdigest(), st.st_ino)
                except OSError as e:
                    out[rel] = ("file", f"unreadable: {e}", st.st_ino)
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(full), st.st_ino)
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", "", st.st_ino)
            elif stat.S_ISFIFO(st.st_mode):
                out[rel] = ("fifo", "", st.st_ino)
            elif stat.S_ISSOCK(st.st_mode):
                out[rel] = ("socket", "", st.st_ino)
            else:
                out[rel] = ("other", "", st.st_ino)
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
    return out


def norm_rel(path, work):
    """A path given on the command line, relative to the scratch directory (None if outside)."""
    if path == "":
        return None
    full = os.path.normpath(os.path.join(work, path))
    if not (full + os.sep).startswith(work.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(full, work)


def valid_hdf5(path):
    try:
        with open(path, "rb") as f:
            head = f.read(8)
        if head != b"\x89HDF\r\n\x1a\n":
            return f"not an HDF5 file (starts {head!r})"
        with h5py.File(path, "r") as f:
            names = []
            f.visit(names.append)
            for n in names:
                obj = f[n]
                if isinstance(obj, h5py.Dataset) and obj.size < 10_000_000:
                    obj[()]
            if not names:
                return "HDF5 file without any object"
    except Exception as e:  # noqa: BLE001
        return f"invalid HDF5: {type(e).__name__}: {str(e)[:120]}"
    return None


def stderr_violation(app, err):
    if not err:
        return "exit 2 with empty stderr"
    if not err.endswith(b"\n"):
        return "stderr does not end with a newline"
    body = err[:-1]
    bad = [c for c in body if (c < 0x20 and c != 0x0A) or c == 0x7F]
    lines = body.split(b"\n")
    prefix = f"{app}: error: ".encode()
    errors = [ln for ln in lines if ln.startswith(prefix)]
    if bad:
        return f"control character(s) {sorted(set(bad))[:5]} in stderr"
    if not lines[-1].startswith(prefix):
        return f"last stderr line does not start with '{app}: error: ' ({len(lines)} line(s))"
    if len(errors) != 1:
        return f"{len(errors)} error lines on stderr"
    others = [ln for ln in lines[:-1] if not ln.startswith(f"{app}: ".encode())]
    if others:
        return f"{len(lines)} stderr lines, {len(others)} not '{app}: ...' (e.g. {others[0][:80]!r})"
    if len(lines) > 1:
        return f"{len(lines)} stderr lines (progress before the error line)"
    return None


def wrapper(spec, binary, work):
    """The argv that runs the app: sh applies resource limits, then execs the app (same pid)."""
    script = [f"ulimit -v {spec.get('vlimit', MEM_LIMIT_KIB)}"]
    if spec.get("nofile") is not None:
        script.append(f"ulimit -n {spec['nofile']}")
    if spec.get("fsize") is not None:
        script += [f"ulimit -f {spec['fsize']}", "trap '' XFSZ"]
    wrap = spec.get("wrap")
    pre = []
    if wrap == "devnull":
        # /dev/null bind-mounted on itself in a private mount namespace: rename/unlink onto it fail
        # with EBUSY, so a buggy app cannot replace the machine's /dev/null
        script.insert(0, "mount --bind /dev/null /dev/null || exit 99")
        pre = ["unshare", "-m"]
    elif wrap and wrap.startswith("rodir:"):
        d = shlex.quote(os.path.join(work, wrap[6:]))
        script.insert(0, f"mount --bind {d} {d} && mount -o remount,ro,bind {d} {d} || exit 99")
        pre = ["unshare", "-m"]
    script.append('exec "$0" "$@"')
    return pre + ["sh", "-c", "; ".join(script), binary] + spec["argv"]


def dev_strays():
    try:
        return {n for n in os.listdir("/dev") if n.startswith("null.tmp") or n.startswith(".tcemu-")}
    except OSError:
        return set()


def show(arg):
    """Shell quoting that also escapes control characters ($'...'), so a reported command is one line."""
    if arg and all(32 <= ord(ch) < 127 or ord(ch) > 159 for ch in arg):
        return shlex.quote(arg)
    if arg == "":
        return "''"
    out = []
    for ch in arg:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == "'":
            out.append("\\'")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 32 or 127 <= o <= 159:
            out.append(f"\\x{o:02x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def run_case(args, index, keep_root):
    cls, gen, app = SCHED[index % len(SCHED)]
    case_dir = tempfile.mkdtemp(prefix=f"case{index:05d}-", dir=args.work_dir)
    work = os.path.join(case_dir, "work")
    home = os.path.join(case_dir, "home")
    os.mkdir(work)
    os.mkdir(home)
    ctx = Ctx(args.seed, index, work)
    res = dict(index=index, cls=cls, app=app, violations=[])
    try:
        spec = gen(ctx)
    except Exception as e:  # noqa: BLE001  (a harness bug: report it, do not hide it)
        res.update(harness_error=f"{type(e).__name__}: {e}", desc="generator failed", cmd="", rc=None)
        shutil.rmtree(case_dir, ignore_errors=True)
        return res
    binary = os.path.join(args.bin_dir, app)
    res["desc"] = spec.get("desc", "")
    res["expect"] = spec["expect"]
    res["cmd"] = " ".join(show(a) for a in [app] + spec["argv"])
    extra = []
    if spec.get("fsize") is not None:
        extra.append(f"ulimit -f {spec['fsize']}; trap '' XFSZ")
    if spec.get("vlimit") is not None:
        extra.append(f"ulimit -v {spec['vlimit']}")
    if spec.get("nofile") is not None:
        extra.append(f"ulimit -n {spec['nofile']}")
    if spec.get("signal"):
        extra.append(f"send {signal.Signals(spec['signal'][0]).name} after {spec['signal'][1]:.2f} s")
        if spec.get("signal2"):
            extra.append(f"then {signal.Signals(spec['signal2'][0]).name} {spec['signal2'][1]:.3f} s later")
    if spec.get("wrap"):
        extra.append(spec["wrap"])
    res["setup"] = "; ".join(extra)
    res["reproduce"] = (f"/usr/bin/python3 scripts/adversarial/campaign.py --build-dir {args.build_dir} "
                        f"--seed {args.seed} --only {index} --keep")

    before = snapshot(work)
    outputs = {norm_rel(o, work) for o in spec.get("outputs", [])} - {None}
    out_opts = [spec["argv"][i + 1] for i, a in enumerate(spec["argv"][:-1]) if a in ("--output", "--save-circuit", "-o")]
    out_opts += [a.split("=", 1)[1] for a in spec["argv"] if a.startswith("--output=") or a.startswith("--save-circuit=")]
    out_opts += [a[2:] for a in spec["argv"] if a.startswith("-o") and len(a) > 2]
    out_opts += [a[3:] for a in spec["argv"] if a.startswith("-o=") and len(a) > 3]
    out_rel = {norm_rel(o, work) for o in out_opts} - {None}
    inputs = {norm_rel(i, work) for i in spec.get("inputs", [])} - {None}
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", HOME=home, TMPDIR=home, LC_ALL="C",
               OMP_PROC_BIND="false")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    argv = wrapper(spec, binary, work)
    uses_dev = spec.get("wrap") == "devnull" or "/dev/null" in spec["argv"] or "/dev/zero" in spec["argv"]
    lock = DEV_LOCK if uses_dev else None
    if lock:
        lock.acquire()
    dev_before = dev_strays() if lock else set()
    t0 = time.monotonic()
    sent = None
    sent2 = None
    timed_out = False
    try:
        try:
            proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            res.update(harness_error=f"cannot start: {e}", rc=None)
            shutil.rmtree(case_dir, ignore_errors=True)
            return res
        if spec.get("signal"):
            sig, delay = spec["signal"]
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                try:
                    os.kill(proc.pid, sig)
                    sent = sig
                    if spec.get("signal2"):
                        sig2, delay2 = spec["signal2"]
                        time.sleep(delay2)
                        if proc.poll() is None:
                            os.kill(proc.pid, sig2)
                            sent2 = sig2
                except ProcessLookupError:
                    pass
        try:
            out, err = proc.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        rc = proc.returncode
    finally:
        dev_new = (dev_strays() - dev_before) if lock else set()
        for n in dev_new:
            try:
                os.remove(os.path.join("/dev", n))
            except OSError:
                pass
        if lock:
            lock.release()
    res["wall_s"] = round(time.monotonic() - t0, 3)
    res["rc"] = rc
    res["signal_sent"] = signal.Signals(sent).name if sent else None
    res["stderr"] = err[-600:].decode("utf-8", "backslashreplace")
    v = res["violations"]

    def add(kind, what):
        v.append(dict(kind=kind, what=what))

    # ----- exit status
    if timed_out:
        add("hang", f"still running after {args.timeout} s (process group killed)")
    elif rc == 99 and spec.get("wrap"):
        res["harness_error"] = "could not set up the mount namespace"
    elif rc == 127 and b"error while loading shared libraries" in err:
        res["harness_error"] = "the dynamic loader failed under the case's resource limits (not the app)"
    elif rc < 0:
        if sent and (-rc == sent or -rc == sent2):
            add("bad_exit", f"died by the {signal.Signals(sent).name} the harness sent after "
                f"{spec['signal'][1]:.2f} s (expected exit {128 + sent} from the app's handler, or 0)")
        else:
            add("crash", f"killed by {signal.Signals(-rc).name}" + (f" (harness sent {signal.Signals(sent).name})" if sent else ""))
    elif rc >= 128:
        if not (sent and (rc == 128 + sent or (sent2 and rc == 128 + sent2))):
            add("crash", f"exit status {rc}" + (f" after {signal.Signals(sent).name}" if sent else ""))
    elif rc not in (0, 2):
        documented = app == "hplai" and rc == 1
        add("bad_exit", f"exit status {rc}" + (" (hplai's documented residual-check FAIL)" if documented else ""))
    if timed_out:
        pass
    # ----- files
    after = snapshot(work)
    for rel, (kind, digest, ino) in before.items():
        if rel in out_rel and rel not in inputs:
            continue  # the output path itself may be replaced (alias of an input: the input is checked)
        now = after.get(rel)
        if now is None:
            add("modified", f"{rel} ({kind}) was removed")
        elif now[0] != kind or now[1] != digest:
            add("modified", f"{rel} ({kind}) changed" + (f" into a {now[0]}" if now[0] != kind else ""))
    finished = rc == 0 or (app == "hplai" and rc == 1)  # hplai: 1 = documented residual FAIL, outputs written
    new = sorted(set(after) - set(before))
    if timed_out and new:
        # the harness's SIGKILL gives the app no chance to clean up: not counted as stray
        res["note"] = f"left after the time-out kill: {', '.join(new)[:200]}"
        new = []
    for rel in new:
        if finished and not timed_out and (rel in out_rel or rel in outputs):
            continue
        if finished and any(rel.startswith(o + os.sep) for o in out_rel):
            continue
        if (rel in out_rel or rel in outputs) and rc == 2:
            add("contract", f"exit 2 but the output {rel!r} was created")
        elif rel in out_rel or rel in outputs:
            if sent and rc in (130, 143) and not timed_out:
                # the signal came after the rename: a complete output is fine, a partial one is not
                why = valid_hdf5(os.path.join(work, rel))
                if why:
                    add("stray", f"output {rel!r} left after exit {rc}: {why}")
                else:
                    res["note"] = f"complete output {rel!r} committed before the signal took effect"
            elif rc in (130, 143) or (sent and rc == -sent) or timed_out or rc not in (0, 2):
                add("stray", f"output {rel!r} left after exit {rc}")
            else:
                add("stray", f"{rel!r} left behind")
        else:
            add("stray", f"{rel!r} left behind")
    for n in sorted(dev_new):
        add("stray", f"/dev/{n} left behind (removed by the harness)")
    # ----- error contract
    if rc == 2 and not timed_out:
        why = stderr_violation(app, err)
        if why:
            add("contract", why)
        for rel in out_rel:
            if rel in before and rel not in inputs and before[rel][0] == "file":
                now = after.get(rel)
                if now is None or now[1] != before[rel][1]:
                    add("contract", f"exit 2 but the existing output {rel!r} was changed or removed")
        if spec["expect"] == "ok":
            add("contract", "valid input rejected (exit 2)")
    if finished and not timed_out:
        nonh5 = set(spec.get("nonh5_outputs", []))
        for rel in sorted(outputs):
            if rel in nonh5:
                continue
            full = os.path.join(work, rel)
            if not os.path.lexists(full):
                if not spec.get("outputs_optional"):
                    add("contract", f"exit {rc} but the output {rel!r} is missing")
                continue
            why = valid_hdf5(full)
            if why:
                add("contract", f"exit {rc} but the output {rel!r}: {why}")
        if spec["expect"] == "error" and not sent and rc == 0:
            add("contract", "invalid input accepted (exit 0)")
    if (v or args.only) and keep_root:
        dest = os.path.join(keep_root, f"case{index:05d}")
        shutil.rmtree(dest, ignore_errors=True)
        try:
            shutil.copytree(case_dir, dest, symlinks=True, ignore_dangling_symlinks=True,
                            copy_function=lambda s, d: shutil.copy2(s, d) if os.path.isfile(s) else None)
        except Exception:  # noqa: BLE001  (fifos, sockets: keep what can be kept)
            pass
        res["kept"] = dest
    _make_removable(case_dir)
    shutil.rmtree(case_dir, ignore_errors=True)
    return res


def _make_removable(d):
    for dirpath, dirnames, filenames in os.walk(d):
        for n in dirnames + filenames:
            try:
                p = os.path.join(dirpath, n)
                if not os.path.islink(p):
                    os.chmod(p, 0o700)
            except OSError:
                pass


SCHED = C.schedule()


def summarize(results):
    classes = sorted({r["cls"] for r in results})
    rows = []
    tot = dict(cases=0, **{k: 0 for k in KINDS})
    for c in classes + ["TOTAL"]:
        rs = results if c == "TOTAL" else [r for r in results if r["cls"] == c]
        row = dict(cls=c, cases=len(rs))
        for k in KINDS:
            row[k] = sum(1 for r in rs if any(x["kind"] == k for x in r["violations"]))
        rows.append(row)
    return rows


def print_table(rows, file=sys.stdout):
    hdr = ["class", "cases", "crashes", "hangs", "bad_exit", "stray", "modified", "contract"]
    print(f"{hdr[0]:<15}" + "".join(f"{h:>9}" for h in hdr[1:]), file=file)
    for r in rows:
        print(f"{r['cls']:<15}{r['cases']:>9}" + "".join(f"{r[k]:>9}" for k in KINDS), file=file)


def md_table(rows):
    hdr = ["class", "cases", "crashes", "hangs", "bad exit", "stray files", "modified inputs", "contract"]
    out = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        name = f"**{r['cls']}**" if r["cls"] == "TOTAL" else r["cls"]
        out.append(f"| {name} | {r['cases']} | " + " | ".join(str(r[k]) for k in KINDS) + " |")
    return "\n".join(out)


def write_markdown(args, results, rows, apps_rows, elapsed, stamp):
    cmd = (f"/usr/bin/python3 scripts/adversarial/campaign.py --build-dir {os.path.relpath(args.build_dir)} "
           f"--cases {args.cases} --seed {args.seed} --jobs {args.jobs}")
    lines = [f"Command: `{cmd}` ({len(results)} cases, {elapsed:.0f} s; binaries built {'; '.join(stamp)})", "",
             md_table(rows), "", "Per app:", "", md_table(apps_rows), ""]
    bad = [r for r in results if r["violations"]]
    herr = [r for r in results if r.get("harness_error")]
    if herr:
        lines += [f"{len(herr)} cases not run (harness): " +
                  "; ".join(f"{r['index']} ({r['harness_error']})" for r in herr[:10]), ""]
    if not bad:
        lines.append("No violations.")
    else:
        lines += [f"{len(bad)} cases with violations, by app and class (reproduce one with "
                  f"`--seed {args.seed} --only <case> --keep`):", ""]
    for app in C.APPS:
        rs = [r for r in bad if r["app"] == app]
        if not rs:
            continue
        lines += [f"### {app}", ""]
        for cls in sorted({r["cls"] for r in rs}):
            lines += [f"#### {app} / {cls}", ""]
            for r in [r for r in rs if r["cls"] == cls]:
                what = "; ".join(f"**{x['kind']}**: {x['what']}" for x in r["violations"])
                stderr = r.get("stderr", "").strip().replace("`", "'").replace("\n", "\\n")
                lines.append(f"- case {r['index']} ({r['desc'][:90]}): `{r['cmd'][:400]}`"
                             + (f" [{r['setup']}]" if r.get("setup") else "")
                             + f" -> exit {r['rc']}; {what}"
                             + (f"; stderr: `{stderr[:200]}`" if stderr else ""))
            lines.append("")
    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", required=True, help="CMake build directory with apps/<app>/<app>")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per case before it counts as a hang")
    ap.add_argument("--out", help="write the full report (every violation, with its command) as JSON")
    ap.add_argument("--only", help="run only these case indices (comma-separated, ranges a-b)")
    ap.add_argument("--classes", help="run only cases of these classes (comma-separated)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory of every violating case")
    ap.add_argument("--work-dir", help="where scratch directories go (default: a new temporary directory)")
    ap.add_argument("--markdown", help="write the tables and the violations grouped by app and class as Markdown")
    ap.add_argument("--list-classes", action="store_true")
    args = ap.parse_args()
    if args.list_classes:
        for name, (gens, weight) in C.CLASSES.items():
            print(f"{name:<15} {weight:>3} of every {len(SCHED)} cases; apps: {', '.join(sorted({a for _, a in gens}))}")
        return 0
    args.build_dir = os.path.abspath(args.build_dir)
    for app in C.APPS:
        b = os.path.join(args.build_dir, "apps", app, app)
        if not os.access(b, os.X_OK):
            sys.exit(f"campaign: error: {b}: not built (cmake --build {args.build_dir} --target knn kmeans qsim hplai)")
    own_work = args.work_dir is None
    stamp = []
    args.work_dir = os.path.abspath(args.work_dir or tempfile.mkdtemp(prefix="tcemu-adv-"))
    os.makedirs(args.work_dir, exist_ok=True)
    # private copies of the binaries, so that a rebuild during the campaign cannot change them under it
    args.bin_dir = os.path.join(args.work_dir, "bin")
    os.makedirs(args.bin_dir, exist_ok=True)
    for app in C.APPS:
        src = os.path.join(args.build_dir, "apps", app, app)
        shutil.copy2(src, os.path.join(args.bin_dir, app))
        st = os.stat(src)
        stamp.append(f"{app} {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(st.st_mtime))} UTC")
    keep_root = os.path.join(args.work_dir, "kept") if args.keep else None
    if keep_root:
        os.makedirs(keep_root, exist_ok=True)
    if args.only:
        idx = []
        for part in args.only.split(","):
            a, _, b = part.partition("-")
            idx += list(range(int(a), int(b or a) + 1))
    else:
        idx = list(range(args.cases))
    if args.classes:
        want = set(args.classes.split(","))
        idx = [i for i in idx if SCHED[i % len(SCHED)][0] in want]
    t0 = time.monotonic()
    results = []
    done = 0
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(run_case, args, i, keep_root): i for i in idx}
        for fut in cf.as_completed(futs):
            r = fut.result()
            results.append(r)
            done += 1
            if r["violations"] or r.get("harness_error"):
                kinds = ",".join(sorted({x["kind"] for x in r["violations"]})) or "harness-error"
                print(f"[{done}/{len(idx)}] case {r['index']} {r['cls']}/{r['app']}: {kinds}: {r['cmd'][:160]}",
                      file=sys.stderr, flush=True)
            elif done % 100 == 0:
                print(f"[{done}/{len(idx)}] {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    results.sort(key=lambda r: r["index"])
    rows = summarize(results)
    elapsed = time.monotonic() - t0
    print(f"campaign: {len(results)} cases, seed {args.seed}, {args.jobs} jobs, {elapsed:.0f} s, "
          f"build {args.build_dir}")
    print(f"binaries built: {'; '.join(stamp)}")
    print_table(rows)
    apps_rows = []
    for app in C.APPS:
        rs = [r for r in results if r["app"] == app]
        apps_rows.append(dict(cls=app, cases=len(rs),
                              **{k: sum(1 for r in rs if any(x["kind"] == k for x in r["violations"])) for k in KINDS}))
    print()
    print_table(apps_rows)
    herr = [r for r in results if r.get("harness_error")]
    if herr:
        print(f"\n{len(herr)} harness errors (cases not run):")
        for r in herr[:20]:
            print(f"  case {r['index']} {r['cls']}/{r['app']}: {r['harness_error']}")
    bad = [r for r in results if r["violations"]]
    if bad:
        print(f"\n{len(bad)} cases with violations:")
        for r in bad:
            what = "; ".join(f"{x['kind']}: {x['what']}" for x in r["violations"])
            print(f"  case {r['index']} [{r['cls']}/{r['app']}] {r['desc'][:80]}\n    {r['cmd'][:300]}"
                  + (f"\n    ({r['setup']})" if r.get("setup") else "") + f"\n    -> rc {r['rc']}: {what}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(dict(seed=args.seed, cases=len(results), jobs=args.jobs, timeout=args.timeout,
                           build_dir=args.build_dir, elapsed_s=round(elapsed, 1), summary=rows, per_app=apps_rows,
                           violations=[r for r in results if r["violations"] or r.get("harness_error")],
                           all_cases=[dict(index=r["index"], cls=r["cls"], app=r["app"], rc=r.get("rc"),
                                           expect=r.get("expect"), desc=r.get("desc"), wall_s=r.get("wall_s"))
                                      for r in results]),
                      f, indent=1)
    if args.markdown:
        write_markdown(args, results, rows, apps_rows, elapsed, stamp)
    if own_work and not args.keep:
        shutil.rmtree(args.work_dir, ignore_errors=True)
    elif keep_root:
        print(f"\nkept scratch directories of violating cases under {keep_root}")
    return 1 if bad or herr else 0


if __name__ == "__main__":
    sys.exit(main())
