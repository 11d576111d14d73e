#!/usr/bin/env python3
"""check_codes: every error code airlock raises comes from base/errors.h.

  check_codes.py          (check_tree.py runs it too)

The SQLSTATEs and MySQL errnos airlock sends are rows of the error table
(AIRLOCK_ERRORS for airlock's codes, AIRLOCK_NATIVE for the database's
own conditions); a raise names a row and never types a code. In the C
sources of the program and library folders, outside base/errors.[ch],
this reports:

1. A string literal shaped like a SQLSTATE (five of [0-9A-Z], a digit
   among them, its first two characters a class Postgres or MariaDB uses)
   where a value goes: an argument of a call, an assignment, a return, a
   macro's body, or a row of a table that also names an AIRLOCK_ code or
   a field called *state*. Rows of plain data tables (a variable's
   default "28800") are not codes.
2. An integer literal from 1000 to 65535 among the arguments of a MySQL
   error or warning writer (MY_WRITERS), and a #define of one under a
   MySQL error name (ER_*, CR_*, *_ERRNO, *_CODE).

EXCEPTIONS lists the files still allowed their literals, each with why;
remove a file from it when its literals are gone. MUST_REPORT and
MUST_PASS are checked first, so a rule that stops seeing codes fails.

Exits 1 with one line per literal, 0 with a summary otherwise.
"""

import os
import re
import sys

FOLDERS = ("base", "protocol", "proxy", "conf", "launch", "validator", "runner")
TABLE = ("base/errors.c", "base/errors.h")

# Files that may keep their hand-written codes for now, and why. Short on purpose.
EXCEPTIONS = {
    # The codec writes "HY000" when its caller's SQLSTATE is not five characters: a field's fallback, not a raise.
    "protocol/my_codec.c": "the ERR writer's fallback for a malformed SQLSTATE field",
}

# SQLSTATE classes of Postgres (Appendix A) and of MariaDB's error list.
CLASSES = set(
    "00 01 02 03 07 08 09 0A 0B 0F 0K 0L 0P 0Z 20 21 22 23 24 25 26 27 28 2B 2D 2F 34 35 37 38 39 3B 3C 3D 3F "
    "40 42 44 53 54 55 57 58 70 72 F0 HV HY P0 XA XX".split())

# Calls that write a MySQL error or warning, or hand one on to be written.
MY_WRITERS = {
    "my_write_err", "myr_put_err", "myr_put_db_err", "myr_refuse", "myr_add_warning", "myr_warn",
    "vmy_refuse", "vmy_result_refuse", "runner_ctl_error_my", "fatal",
}

KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else", "case", "_Alignof", "typeof"}

TOKEN = re.compile(r"""
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])*')
  | (?P<pp>^[ \t]*\#[ \t]*(?:include|pragma|if|ifdef|ifndef|elif|else|endif|undef|error)\b[^\n]*)
  | (?P<define>^[ \t]*\#[ \t]*define\b)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\d[\w.]*)
  | (?P<newline>\\?\n)
  | (?P<punct>[(){}\[\],;=?:])
  | (?P<other>\S)
""", re.S | re.M | re.X)

SQLSTATE = re.compile(r'"([0-9A-Z]{5})"')
MY_ERRNO_NAME = re.compile(r"^(?:\w*_)?(?:ER|CR)_\w+$|_ERRNO$|_CODE$")


def tokens(text):
    """(kind, text, line) for each token; comments dropped, a #define's end of line kept as ';'."""
    line, in_define = 1, False
    for m in TOKEN.finditer(text):
        kind, val = m.lastgroup, m.group()
        if kind == "newline":
            if in_define and not val.startswith("\\"):
                yield ("punct", ";", line)
                in_define = False
        elif kind == "define":
            in_define = True
            yield ("define", "#define", line)
        elif kind not in ("comment", "pp"):
            yield (kind, val, line)
        line += val.count("\n")


def is_sqlstate(tok):
    m = SQLSTATE.fullmatch(tok)
    return bool(m) and any(c.isdigit() for c in m.group(1)) and m.group(1)[:2] in CLASSES


def scan(path, text):
    """The hand-written codes of one file: (line, what)."""
    toks = list(tokens(text))
    out = []
    # For each token, its innermost bracket: (open index, kind, name of the call or None, initializer?).
    stack, ctx = [], []
    spans = {}
    for i, (kind, val, line) in enumerate(toks):
        if val in "([{" and kind == "punct":
            prev = toks[i - 1] if i else ("punct", ";", 0)
            name = prev[1] if val == "(" and prev[0] == "ident" and prev[1] not in KEYWORDS else None
            parent_init = bool(stack) and stack[-1][3]
            init = val == "{" and (prev[1] == "=" or (prev[1] in (",", "{") and parent_init))
            stack.append((i, val, name, init))
        ctx.append(stack[-1] if stack else None)
        if val in ")]}" and kind == "punct" and stack:
            spans[stack[-1][0]] = i
            stack.pop()

    def row_is_code_table(open_i):
        close_i = spans.get(open_i, len(toks))
        for kind, val, _ in toks[open_i:close_i]:
            if kind == "ident" and (val.startswith("AIRLOCK_") or "state" in val.lower()):
                return True
        return False

    def calls_of(i):
        """Names of the calls whose arguments token i is among, innermost first."""
        names = []
        for j in range(len(stack_at[i]) - 1, -1, -1):
            names.append(stack_at[i][j][2])
        return names

    # The whole stack at each token, for the writers' rule (arguments at any depth).
    stack_at, cur = [], []
    for i, (kind, val, line) in enumerate(toks):
        if val in "([{" and kind == "punct":
            cur = cur + [ctx[i]]
        stack_at.append(cur)
        if val in ")]}" and kind == "punct" and cur:
            cur = cur[:-1]

    for i, (kind, val, line) in enumerate(toks):
        if kind == "string" and is_sqlstate(val):
            c = ctx[i]
            if c and c[1] == "{" and c[3] and not row_is_code_table(c[0]):
                continue  # a row of a plain data table
            out.append((line, "SQLSTATE %s typed by hand" % val))
        elif kind == "number" and re.fullmatch(r"\d+[uUlL]*", val):
            n = int(re.match(r"\d+", val).group())
            if not 1000 <= n <= 65535:
                continue
            writers = [name for name in calls_of(i) if name in MY_WRITERS]
            if writers:
                out.append((line, "MySQL errno %d typed by hand (in %s)" % (n, writers[0])))
            elif i >= 2 and toks[i - 2][0] == "define" and MY_ERRNO_NAME.search(toks[i - 1][1]):
                out.append((line, "MySQL errno %d typed by hand (#define %s)" % (n, toks[i - 1][1])))
    return out


# What the rules must and must not report, checked on every run so the scanner cannot quietly go blind.
MUST_REPORT = (
    'pgr_error(s, "25P01", AIRLOCK_E_NONE, "there is no transaction in progress", NULL, 0);',
    'fatal(s, 1045, "28000", msg);',
    'myr_add_warning(s, "Warning", 1292, w);',
    'static const char *f(void)\n{\n\treturn "HY001";\n}',
    'struct pg_error_fields e = {.severity = "FATAL", .sqlstate = "53300"};',
    'static const struct rule r[] = {{"CallStmt", "CALL", "0A000", AIRLOCK_E_UNSUPPORTED}};',
    '#define MY_ER_QUERY_TIMEOUT 3024',
    'snprintf(st, sizeof(st), "%s", bad ? "0A000" : r->sqlstate);',
)
MUST_PASS = (
    'pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION, "SAVEPOINT needs a block", NULL, 0);',
    '/* 25P01 as "25P01" in a comment */ x = 1;',
    'static const struct kept k[] = {{"wait_timeout", KEPT_UINT, 1, 31536000, "28800", false}};',
    'KEY(SERVER, "shutdown_grace_ms", CT_U32, CFG(shutdown_grace_ms), 0, "10000", .min = 0, .max = 600000),',
    'if (strcmp(word, "TABLE") == 0) n = 1024;',
    'tv.tv_sec = ms / 1000;',
)


def self_test():
    """Lines for each rule that does not do what MUST_REPORT and MUST_PASS say."""
    out = ["self-test: not reported: " + t for t in MUST_REPORT if not scan("t.c", t)]
    return out + ["self-test: reported: " + t for t in MUST_PASS if scan("t.c", t)]


def sources(root):
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def problems(root):
    """One line per hand-written code outside the table and the exceptions; the files and literals seen;
    and the exceptions no longer needed."""
    found, excused, files, spent = self_test(), 0, 0, set(EXCEPTIONS)
    for rel in sources(root):
        if rel in TABLE:
            continue
        files += 1
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            hits = scan(rel, f.read())
        if rel in EXCEPTIONS:
            excused += len(hits)
            if hits:
                spent.discard(rel)
            continue
        found += ["%s:%d: %s; name a row of base/errors.h" % (rel, line, what) for line, what in hits]
    return found, files, excused, sorted(spent)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found, files, excused, spent = problems(root)
    for p in found:
        print("check_codes: " + p)
    if found:
        sys.exit(1)
    for rel in spent:
        print("check_codes: note: %s has no hand-written code left; take it off EXCEPTIONS" % rel)
    print("check_codes: %d files, no code typed outside base/errors.[ch] (%d still allowed in %d excepted files)"
          % (files, excused, len(EXCEPTIONS) - len(spent)))


if __name__ == "__main__":
    main()
