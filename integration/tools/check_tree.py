#!/usr/bin/env python3
"""check_tree: the layout rules the code keeps, checked on a build.

  check_tree.py BUILD_DIR

1. No source file in the program and library folders is over 800 lines.
2. No circle of calls between files: from the object files of the
   libraries and of airlock-runner (nm's defined and undefined symbols),
   file A depends on file B when A uses a symbol B defines; every strongly
   connected group of two or more files is reported. A grammar's own
   recursion stays inside one file.
3. One folder per library: every .c file of a source folder is built into
   exactly one target, the library of its nearest library folder (a folder
   CMakeLists.txt lists), or, for a folder's main.c, that folder's program;
   no library takes a file from outside its folder; and CMakeLists.txt picks
   no library by a target's name.
4. No SQLSTATE or MySQL errno typed by hand outside base/errors.[ch]
   (check_codes.py says what counts and which files are still excepted).

Exits 1 with one line per violation, 0 with a summary otherwise.
"""

import collections
import json
import re
import os
import subprocess
import sys

import check_codes

MAX_LINES = 800
FOLDERS = ("base", "protocol", "launch", "conf", "validator", "proxy", "runner", "approval", "ctl")
PROGRAMS = ("airlockd", "airlock-validator", "airlock-runner", "airlockctl")


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def long_files(root):
    out = []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    n = sum(1 for _ in f)
                if n > MAX_LINES:
                    out.append("%s: %d lines (at most %d)" % (os.path.relpath(path, root), n, MAX_LINES))
    return out


def objects(build, root):
    """(source path, object path) of every object of airlockd's libraries and of airlock-runner
    whose source still exists (a build directory keeps objects of removed files)."""
    out = []
    top = os.path.join(build, "CMakeFiles")
    for target in sorted(os.listdir(top)):
        if not (target.startswith("airlock_") or target[: -len(".dir")] in PROGRAMS):
            continue
        for dirpath, _, names in os.walk(os.path.join(top, target)):
            for name in names:
                if name.endswith(".c.o"):
                    obj = os.path.join(dirpath, name)
                    src = os.path.relpath(obj, os.path.join(top, target))[: -len(".o")]
                    if os.path.exists(os.path.join(root, src)):
                        out.append((src, obj))
    return out


def call_graph(objs):
    defined = {}
    used = collections.defaultdict(set)
    for src, obj in objs:
        nm = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = src
            elif len(parts) == 2 and parts[0] == "U":
                used[src].add(parts[1])
    graph = collections.defaultdict(set)
    for src, syms in used.items():
        for sym in syms:
            dst = defined.get(sym)
            if dst and dst != src:
                graph[src].add(dst)
    return graph, {src for src, _ in objs}


def circles(graph, nodes):
    """Strongly connected groups of two or more files (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def library_folders(root):
    """{folder: library} as CMakeLists.txt lists them (airlock_library(NAME FOLDER ...))."""
    out = {}
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r"^airlock_library\((\S+) ([^\s)]+)", text, re.M):
        out[m.group(2)] = m.group(1)
    return out, text


def owner(folders, path):
    """The library a source file belongs to: its nearest listed folder's."""
    d = os.path.dirname(path)
    while d:
        if d in folders:
            return d, folders[d]
        d = os.path.dirname(d)
    return None, None


def layout(build, root):
    out = []
    folders, text = library_folders(root)
    for m in re.finditer(r"if\(\s*name\s+(MATCHES|STREQUAL)", text):
        out.append("CMakeLists.txt picks by a target's name at offset %d" % m.start())
    # What the build compiles now, and into which target: the compile
    # database (a build directory keeps objects of earlier layouts).
    built = collections.defaultdict(set)
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        for entry in json.load(f):
            m = re.search(r"-o CMakeFiles/([^/ ]+)\.dir/(\S+)\.o(\s|$)", entry["command"])
            if m:
                built[os.path.relpath(entry["file"], root)].add(m.group(1))
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(".c"):
                    continue
                src = os.path.relpath(os.path.join(dirpath, name), root)
                lib_folder, lib = owner(folders, src)
                if lib is None:
                    out.append("%s: in no library folder" % src)
                    continue
                want = {lib}
                if name == "main.c":
                    want = {t for t in built.get(src, ()) if t in PROGRAMS} or {"a program"}
                    if os.path.dirname(src) != lib_folder:
                        out.append("%s: a program's main.c outside a library folder" % src)
                got = built.get(src, set())
                if got != want:
                    out.append("%s: built into %s, its folder's target is %s"
                               % (src, ", ".join(sorted(got)) or "nothing", ", ".join(sorted(want))))
    for src, targets in built.items():
        for t in targets:
            if t in folders.values():
                lib_folder, lib = owner(folders, src)
                if lib != t:
                    out.append("%s: library %s takes a file from outside its folder" % (src, t))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_tree.py BUILD_DIR")
    root = repo_root()
    problems = long_files(root) + layout(sys.argv[1], root)
    problems += check_codes.problems(root)[0]
    graph, nodes = call_graph(objects(sys.argv[1], root))
    for group in circles(graph, nodes):
        members = set(group)
        links = ["%s -> %s" % (a, b) for a in group for b in sorted(graph[a]) if b in members]
        problems.append("call circle: " + "; ".join(links))
    for p in problems:
        print("check_tree: " + p)
    if problems:
        sys.exit(1)
    print("check_tree: %d files, %d links between them, none over %d lines, no call circle,"
          " one library per folder, no code typed outside the error table" % (len(nodes), sum(len(v) for v in graph.values()), MAX_LINES))


if __name__ == "__main__":
    main()
