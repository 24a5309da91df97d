#!/usr/bin/env python3
"""Checks the documentation's raw data and links (CTest: Docs.DataReferencesAndLinks, label docs).

Fails (exit 1) on any of:
  1. a raw data file under docs/data/ or docs/history/data/ that no text file of the repository names;
  2. a relative markdown link in README.md or docs/**/*.md whose target does not exist;
  3. a path written as docs/data/... or docs/history/data/... (in README, docs, scripts, sources) that
     does not exist (a stale reference left behind by a move).

What counts as naming a data file (rule 1): its repository path, its path relative to the citing
file, its path below docs/data/ or docs/history/data/, or its file name alone; a glob with `*`
(e.g. `bench8192_tiles192_run*.txt`) names the files it matches. A folder counts for the files in
it only when a markdown line names it as the data source explicitly, in the form
    Data source: `docs/history/data/h200_apps/session5/`
(case-insensitive "data source:", then the folder in backticks, ending in "/").

Citing files: every text file the repository holds (git ls-files, tracked and untracked but not
ignored; without git, a walk of the tree that skips build*/, .deps/ and .git/), except the data
files themselves. Needs only python3's standard library; no network, no build.

Usage: check_data_refs.py [--root DIR] [--list-unreferenced | --citers]
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

DATA_DIRS = ("docs/data", "docs/history/data")
TEXT_EXT = {".md", ".txt", ".py", ".sh", ".cmake", ".cpp", ".hpp", ".h", ".cu", ".cuh", ".c",
            ".json", ".yml", ".yaml", ".cfg", ".toml", ".in", ""}
SKIP_DIRS = {".git", ".deps"}


def repo_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
        files = [f for f in out.decode().split("\0") if f]
        return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            rel = os.path.relpath(d, root)
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not (rel == "." and x.startswith("build"))]
            for n in names:
                files.append(os.path.normpath(os.path.join(rel, n)))
        return sorted(files)


def data_files(root):
    found = []
    for base in DATA_DIRS:
        top = os.path.join(root, base)
        for d, _, names in os.walk(top):
            for n in names:
                found.append(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    return sorted(found)


def is_text(root, path):
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1].lower()
    if name == "CMakeLists.txt" or ext in TEXT_EXT:
        try:
            with open(os.path.join(root, path), "rb") as f:
                return b"\0" not in f.read(4096)
        except OSError:
            return False
    return False


def under_data(path):
    return any(path == d or path.startswith(d + "/") for d in DATA_DIRS)


TOKEN = re.compile(r"[A-Za-z0-9_./*+-]+")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FOLDER_SOURCE = re.compile(r"data source:\s*`([^`]+/)`", re.IGNORECASE)
MD_LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
DATA_PATH = re.compile(r"(?<![A-Za-z0-9_/.-])(docs/(?:history/)?data/[A-Za-z0-9_./*+-]*[A-Za-z0-9_*+-])")
FENCE = re.compile(r"^\s*```")
# A glob names files only when it has a file name part and an extension: `ncu_d*.txt`, `q30_*.txt`.
GLOB_OK = re.compile(r"^(?=(?:[^*]*[A-Za-z0-9_]){3})[A-Za-z0-9_.+-]*\*[A-Za-z0-9_.*+-]*\.[A-Za-z0-9]+$")


BRACE = re.compile(r"[A-Za-z0-9_./*+-]*\{[A-Za-z0-9_.,*+-]+\}[A-Za-z0-9_./*+{},-]*")


def expand_braces(tok):
    """`q30_d{5,6}_x.txt` and `q30_d{5..8}_x.txt` as the shell expands them."""
    m = re.search(r"\{([^{}]+)\}", tok)
    if not m:
        return [tok]
    body = m.group(1)
    r = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body)
    if r:
        a, b = int(r.group(1)), int(r.group(2))
        parts = [str(i) for i in range(min(a, b), max(a, b) + 1)]
    elif "," in body:
        parts = body.split(",")
    else:
        parts = ["{" + body + "}"]
    out = []
    for part in parts:
        out += expand_braces(tok[:m.start()] + part + tok[m.end():]) if part != "{" + body + "}" else [tok]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..")))
    ap.add_argument("--list-unreferenced", action="store_true", help="print the unreferenced files only")
    ap.add_argument("--citers", action="store_true", help="print every data file with the files that name it")
    args = ap.parse_args()
    root = os.path.abspath(args.root)

    data = data_files(root)
    me = os.path.relpath(os.path.abspath(__file__), root).replace(os.sep, "/")
    texts = [f for f in repo_files(root) if not under_data(f) and f != me and is_text(root, f)]
    data_set = set(data)
    by_name = {}
    for p in data:
        by_name.setdefault(os.path.basename(p), []).append(p)

    referenced = {}  # data file -> the text files that name it
    errors = []
    for t in texts:
        try:
            with open(os.path.join(root, t), encoding="utf-8", errors="replace") as f:
                content = f.read()
        except OSError:
            continue
        tdir = os.path.dirname(t)
        # Rule 1: names of data files, relative paths, globs.
        tokens = set(TOKEN.findall(content))
        for b in BRACE.findall(content):
            tokens.update(expand_braces(b))
        for tok in tokens:
            tok = tok.strip(".")
            if not tok:
                continue
            if "*" in tok:
                # A glob counts from a markdown page (`sustained_*.txt` beside the folder it names),
                # or with its folder written out (docs/data/h200_apps/session5/q30_d*.txt); a bare
                # `bench_*.csv` in a script is about the script's own output folder.
                if not GLOB_OK.match(os.path.basename(tok)) or tok.startswith("/"):
                    continue
                if "/" not in tok and not t.endswith(".md"):
                    continue
                for p in data:
                    if "/" in tok:
                        hit = fnmatch.fnmatch(p, tok) or fnmatch.fnmatch(p, "*/" + tok.lstrip("./")) or \
                            fnmatch.fnmatch(p, os.path.normpath(os.path.join(tdir, tok)).replace(os.sep, "/"))
                    else:
                        hit = fnmatch.fnmatch(os.path.basename(p), tok)
                    if hit:
                        referenced.setdefault(p, set()).add(t)
                continue
            for p in by_name.get(os.path.basename(tok), []):
                if "/" not in tok or p.endswith(tok.lstrip("./")) or \
                        os.path.normpath(os.path.join(tdir, tok)).replace(os.sep, "/") == p:
                    referenced.setdefault(p, set()).add(t)
        if t.endswith(".md"):  # `handshake_*`, `*_v1.*`: globs in code spans of a page, any extension
            for span in CODE_SPAN.findall(content):
                for g in span.split():
                    g = g.strip(",;:()")
                    if "*" in g and "/" not in g and len(re.findall(r"[A-Za-z0-9_]", g)) >= 3:
                        for p in data:
                            if fnmatch.fnmatch(os.path.basename(p), g):
                                referenced.setdefault(p, set()).add(t)
        for folder in FOLDER_SOURCE.findall(content):
            cands = {os.path.normpath(folder), os.path.normpath(os.path.join(tdir, folder))}
            for c in cands:
                c = c.replace(os.sep, "/")
                for p in data:
                    if os.path.dirname(p) == c:
                        referenced.setdefault(p, set()).add(t)
        # Rule 3: paths into the data folders must exist.
        data_paths = set()
        for m in DATA_PATH.finditer(content):
            nxt = content[m.end():m.end() + 1]
            if nxt in ("{", "%"):  # a brace pattern (expanded below) or a format string
                continue
            data_paths.add(m.group(1))
        for b in BRACE.findall(content):
            data_paths.update(x for x in expand_braces(b) if DATA_PATH.fullmatch(x))
        for m in sorted(data_paths):
            if "*" in m:
                if not any(fnmatch.fnmatch(p, m) for p in data):
                    errors.append(f"{t}: names {m}, which matches no file")
                continue
            if not os.path.exists(os.path.join(root, m)):
                errors.append(f"{t}: names {m}, which does not exist")
        # Rule 2: relative markdown links (README.md and docs/).
        if t.endswith(".md") and (t == "README.md" or t.startswith("docs/")):
            in_fence = False
            for n, line in enumerate(content.splitlines(), 1):
                if FENCE.match(line):
                    in_fence = not in_fence
                    continue
                if in_fence:
                    continue
                for a, b in MD_LINK.findall(line):
                    target = a or b
                    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                        continue
                    path = target.split("#", 1)[0].split("?", 1)[0]
                    if not path:
                        continue
                    full = os.path.normpath(os.path.join(root, tdir, path))
                    if not os.path.exists(full):
                        errors.append(f"{t}:{n}: link to {target}, which does not exist")

    unreferenced = [p for p in data if p not in referenced]
    if args.citers:
        for p in data:
            print(p, " ".join(sorted(referenced.get(p, ()))))
        return 0
    if args.list_unreferenced:
        for p in unreferenced:
            print(p)
        return 0
    for p in unreferenced:
        errors.append(f"{p}: raw data that no text file of the repository names")
    print(f"check_data_refs: {len(data)} data files, {len(data) - len(unreferenced)} referenced, "
          f"{len(texts)} text files read")
    for e in errors:
        print("ERROR", e)
    if errors:
        print(f"check_data_refs: {len(errors)} problem(s)")
        return 1
    print("check_data_refs: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
