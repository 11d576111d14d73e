#!/usr/bin/env python3
"""gen_pg_functions: the class of every pg_catalog and information_schema
function, from the backend's own pg_proc, as the table the Postgres
validator looks calls up in (validator/pg/validate_pg_proc.inc).

  gen_pg_functions.py            rewrite the table from the backend
  gen_pg_functions.py --check    exit 1 (and say what differs) when the
                                 checked-in table is not what the backend
                                 gives

Run as root on a machine integration/test.sh has set up (it asks the
postgres superuser over the local socket), or pass --psql with a command
that runs psql. A new Postgres version is a regeneration: run it, read the
diff, and review every name that lands in a class by default.

A name's class, first rule that applies (every overload of the name
counts):

  DENY_LIST   the denylist of validate_pg_funcs.c names it (side effects,
              files, dynamic SQL, ...)
  GUARDED     validate_pg_scope_funcs.c guards the argument that names a
              relation, type, constraint, ...
  DENY_INPUT  an argument is cstring or internal: a type's input, receive
              or support function, which clients do not call and which
              answer for a hidden type's oid as for a visible one
  DENY_NAME   listed below: a text argument names an object airlock hides
              and nothing guards it
  SAFE        listed below with why: an oid or reg* argument that names
              nothing airlock hides (a function, a role, a database, a text
              search configuration) or is only a number
  DENY_OID    any other oid, oidvector or reg* argument
  SAFE        everything else
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "validator", "pg", "validate_pg_proc.inc")
DENYLIST = os.path.join(ROOT, "validator", "pg", "validate_pg_funcs.c")
GUARDS = os.path.join(ROOT, "validator", "pg", "validate_pg_scope_funcs.c")
SCHEMAS = ("pg_catalog", "information_schema")

# oid / reg* arguments that name nothing airlock hides, or are only numbers.
SAFE_OID = {
    # information_schema's helpers: arithmetic on a type oid and a typmod, no catalog read.
    "_pg_char_max_length": "type oid as a number",
    "_pg_char_octet_length": "type oid as a number",
    "_pg_datetime_precision": "type oid as a number",
    "_pg_interval_type": "type oid as a number",
    "_pg_numeric_precision": "type oid as a number",
    "_pg_numeric_precision_radix": "type oid as a number",
    "_pg_numeric_scale": "type oid as a number",
    # Comparison, hashing and output of oids as numbers.
    "btoidcmp": "number", "btoidvectorcmp": "number", "hashoid": "number",
    "hashoidextended": "number", "hashoidvector": "number", "hashoidvectorextended": "number",
    "int8": "number", "max": "number", "min": "number", "nameconcatoid": "number",
    "oideq": "number", "oidge": "number", "oidgt": "number", "oidlarger": "number",
    "oidle": "number", "oidlt": "number", "oidne": "number", "oidout": "number",
    "oidsend": "number", "oidsmaller": "number", "oidvectoreq": "number",
    "oidvectorge": "number", "oidvectorgt": "number", "oidvectorle": "number",
    "oidvectorlt": "number", "oidvectorne": "number", "oidvectorout": "number",
    "oidvectorsend": "number",
    # Roles, databases, tablespaces, schemas: shown as they are (docs/limits.md).
    "acldefault": "role", "makeaclitem": "role", "pg_get_userbyid": "role", "pg_has_role": "role",
    "has_database_privilege": "database", "has_foreign_data_wrapper_privilege": "foreign-data wrapper",
    "has_language_privilege": "language", "has_parameter_privilege": "setting",
    "has_server_privilege": "foreign server",
    "has_tablespace_privilege": "tablespace", "pg_database_size": "database",
    "pg_database_collation_actual_version": "database", "pg_tablespace_databases": "tablespace",
    "pg_tablespace_location": "tablespace", "pg_tablespace_size": "tablespace",
    "pg_is_other_temp_schema": "schema", "shobj_description": "shared object",
    "pg_stat_get_db_active_time": "database", "pg_stat_get_db_blk_read_time": "database",
    "pg_stat_get_db_blk_write_time": "database", "pg_stat_get_db_blocks_fetched": "database",
    "pg_stat_get_db_blocks_hit": "database", "pg_stat_get_db_checksum_failures": "database",
    "pg_stat_get_db_checksum_last_failure": "database", "pg_stat_get_db_conflict_all": "database",
    "pg_stat_get_db_conflict_bufferpin": "database", "pg_stat_get_db_conflict_lock": "database",
    "pg_stat_get_db_conflict_snapshot": "database",
    "pg_stat_get_db_conflict_startup_deadlock": "database",
    "pg_stat_get_db_conflict_tablespace": "database", "pg_stat_get_db_deadlocks": "database",
    "pg_stat_get_db_idle_in_transaction_time": "database", "pg_stat_get_db_numbackends": "database",
    "pg_stat_get_db_session_time": "database", "pg_stat_get_db_sessions": "database",
    "pg_stat_get_db_sessions_abandoned": "database", "pg_stat_get_db_sessions_fatal": "database",
    "pg_stat_get_db_sessions_killed": "database", "pg_stat_get_db_stat_reset_time": "database",
    "pg_stat_get_db_temp_bytes": "database", "pg_stat_get_db_temp_files": "database",
    "pg_stat_get_db_tuples_deleted": "database", "pg_stat_get_db_tuples_fetched": "database",
    "pg_stat_get_db_tuples_inserted": "database", "pg_stat_get_db_tuples_returned": "database",
    "pg_stat_get_db_tuples_updated": "database", "pg_stat_get_db_xact_commit": "database",
    "pg_stat_get_db_xact_rollback": "database",
    # Operators are shown (docs/limits.md); it looks in its own catalog only. (The functions that take
    # a function's oid are guarded: one the database defines is missing unless the user lists it.)
    "pg_operator_is_visible": "operator",
    # Collations, conversions, operator classes and families, access methods.
    "pg_collation_is_visible": "collation", "pg_conversion_is_visible": "conversion",
    "pg_opclass_is_visible": "operator class", "pg_opfamily_is_visible": "operator family",
    "pg_indexam_has_property": "access method", "pg_indexam_progress_phasename": "access method",
    "pg_collation_actual_version": "collation",
    # Text search configurations, dictionaries, parsers and templates.
    "json_to_tsvector": "text search configuration", "jsonb_to_tsvector": "text search configuration",
    "phraseto_tsquery": "text search configuration", "plainto_tsquery": "text search configuration",
    "to_tsquery": "text search configuration", "to_tsvector": "text search configuration",
    "websearch_to_tsquery": "text search configuration", "ts_debug": "text search configuration",
    "ts_headline": "text search configuration", "ts_lexize": "text search dictionary",
    "ts_parse": "text search parser", "ts_token_type": "text search parser",
    "pg_ts_config_is_visible": "text search configuration",
    "pg_ts_dict_is_visible": "text search dictionary", "pg_ts_parser_is_visible": "text search parser",
    "pg_ts_template_is_visible": "text search template",
}

# Text arguments that name something airlock hides, unguarded.
DENY_NAME = {
    # Postgres 15 raises "type ... does not exist" for a missing argument
    # type of a signature and answers for a hidden one (has_function_privilege
    # is guarded: a text signature reads as NULL).
    "to_regoperator": "signature",
    "to_regprocedure": "signature",
    # Lists the relations of a publication by oid, hidden ones included.
    "pg_get_publication_tables": "publication",
}

QUERY = """
SELECT n.nspname, p.proname,
       coalesce((SELECT string_agg(format_type(t, NULL), ',' ORDER BY o)
                 FROM unnest(p.proargtypes) WITH ORDINALITY AS a(t, o)), '')
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname IN ('pg_catalog', 'information_schema')
ORDER BY 2, 1, 3
"""

IO_TYPES = ("cstring", "internal")


def oid_like(t):
    base = t[:-2] if t.endswith("[]") else t
    return base in ("oid", "oidvector") or base.startswith("reg")


def rows(psql):
    out = subprocess.run(psql + ["-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", QUERY],
                         capture_output=True, text=True, check=True, cwd="/",
                         stdin=subprocess.DEVNULL).stdout
    for line in out.splitlines():
        nsp, name, args = line.split("\t")
        yield nsp, name, [a for a in args.split(",") if a]


def c_table_names(path, pattern):
    with open(path, encoding="utf-8") as f:
        return re.findall(pattern, f.read(), re.M)


def denylist():
    """(name, prefix) of each denylist rule."""
    return [(n, p == "true") for n, p in
            c_table_names(DENYLIST, r'^\s*\{"([a-z0-9_]+)", (true|false), R_[A-Z_]+\},$')]


def guarded():
    with open(GUARDS, encoding="utf-8") as f:
        return set(re.findall(r'^\s*\{"([a-z0-9_]+)", [^}]*PGV_G_', f.read(), re.M))


def classify(name, sigs, deny, guards):
    if any(name == n or (p and name.startswith(n)) for n, p in deny):
        return "DENY_LIST"
    if name in guards:
        return "GUARDED"
    if any(a in IO_TYPES for s in sigs for a in s):
        return "DENY_INPUT"
    if name in DENY_NAME:
        return "DENY_NAME"
    if name in SAFE_OID:
        return "SAFE"
    if any(oid_like(a) for s in sigs for a in s):
        return "DENY_OID"
    return "SAFE"


def generate(psql):
    names = {}
    for nsp, name, args in rows(psql):
        e = names.setdefault(name, {"schemas": set(), "sigs": []})
        e["schemas"].add(nsp)
        e["sigs"].append(args)
    deny = [(n, p) for n, p in denylist()]
    guards = guarded()
    problems = []
    for n in sorted(guards - set(names)):
        problems.append("validate_pg_scope_funcs.c guards %s(), which the backend does not have" % n)
    for n in sorted((set(SAFE_OID) | set(DENY_NAME)) - set(names)):
        problems.append("gen_pg_functions.py reviews %s(), which the backend does not have" % n)
    lines = []
    for name in sorted(names):
        e = names[name]
        where = " | ".join("PGV_PROC_" + ("PG" if s == "pg_catalog" else "IS")
                           for s in SCHEMAS if s in e["schemas"])
        lines.append('{"%s", %s, PGV_FN_%s},' % (name, where, classify(name, e["sigs"], deny, guards)))
    head = ("/*\n"
            " * Generated by integration/tools/gen_pg_functions.py from the backend's\n"
            " * pg_proc (%d functions under %d names); do not edit, regenerate.\n"
            " * One line a name: the schemas that hold it and its class.\n"
            " */\n" % (sum(len(e["sigs"]) for e in names.values()), len(names)))
    return head + "\n".join(lines) + "\n", problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the checked-in table")
    ap.add_argument("--psql", default="runuser -u postgres -- psql -d shop",
                    help="the command that runs psql as a superuser")
    args = ap.parse_args()
    text, problems = generate(args.psql.split())
    for p in problems:
        print(p, file=sys.stderr)
    if args.check:
        with open(TABLE, encoding="utf-8") as f:
            have = f.read()
        if have != text:
            old = set(have.splitlines())
            new = set(text.splitlines())
            for line in sorted(new - old):
                print("backend has, table lacks: " + line)
            for line in sorted(old - new):
                print("table has, backend lacks: " + line)
            return 1
        return 1 if problems else 0
    with open(TABLE, "w", encoding="utf-8") as f:
        f.write(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
