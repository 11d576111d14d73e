#!/usr/bin/env python3
"""check_tree: the layout rules the code keeps, checked on a build.

  check_tree.py BUILD_DIR

1. No source file in protocol/, proxy/, runner/ or conf/ is over 800 lines.
2. No circle of calls between files: from the object files of the
   libraries and of airlock-runner (nm's defined and undefined symbols),
   file A depends on file B when A uses a symbol B defines; every strongly
   connected group of two or more files is reported. A grammar's own
   recursion stays inside one file.

Exits 1 with one line per violation, 0 with a summary otherwise.
"""

import collections
import os
import subprocess
import sys

MAX_LINES = 800
FOLDERS = ("protocol", "proxy", "runner", "conf", "validator")


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
        if not (target.startswith("airlock_") or target in ("airlock-runner.dir", "airlock-validator.dir")):
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


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_tree.py BUILD_DIR")
    root = repo_root()
    problems = long_files(root)
    graph, nodes = call_graph(objects(sys.argv[1], root))
    for group in circles(graph, nodes):
        members = set(group)
        links = ["%s -> %s" % (a, b) for a in group for b in sorted(graph[a]) if b in members]
        problems.append("call circle: " + "; ".join(links))
    for p in problems:
        print("check_tree: " + p)
    if problems:
        sys.exit(1)
    print("check_tree: %d files, %d links between them, none over %d lines, no call circle"
          % (len(nodes), sum(len(v) for v in graph.values()), MAX_LINES))


if __name__ == "__main__":
    main()
