"""Hidden types and objects, played as an attacker who guesses oids (there
are few to guess): a parameter type given in Parse, and a cast to a reg*
type, must answer for the hidden table's row type, its array type and its
index exactly as for an oid that does not exist (and for a hidden schema,
and the objects in it, as for names that do not exist). The real oids
come from the backend, asked directly as the superuser; every answer is
compared with the oid's digits (and names) replaced, and none may name
what is hidden."""

import os
import re
import struct

import pytest

import itest
import pgwire

pytestmark = pytest.mark.usefixtures("snapshot_guard")

HOST, PORT = "127.0.0.1", int(os.environ.get("AIRLOCK_LISTEN_PORT", "6432"))
LEAKS = ("staff", "salar", "probe")


@pytest.fixture(scope="module")
def oids():
    """The hidden table's row type, its array type and its primary key's index; a visible table's row
    type; and an oid that names nothing in the database."""
    row = itest.super_query(
        "SELECT t.oid, t.typarray, 'staff_salaries_pkey'::regclass::oid, 'orders'::regtype::oid,"
        " (SELECT g FROM generate_series(90001, 99999) g WHERE NOT EXISTS (SELECT 1 FROM pg_type"
        " WHERE oid = g) AND NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = g) AND NOT EXISTS"
        " (SELECT 1 FROM pg_namespace WHERE oid = g) AND NOT EXISTS (SELECT 1 FROM pg_proc"
        " WHERE oid = g) ORDER BY g LIMIT 1)"
        " FROM pg_type t WHERE t.oid = 'staff_salaries'::regtype")
    hidden_row, hidden_array, hidden_index, orders_row, missing = (int(x) for x in row.split("|"))
    return {"row": hidden_row, "array": hidden_array, "index": hidden_index, "orders": orders_row,
            "missing": missing}


def agent_conn():
    c = pgwire.Conn(HOST, PORT)
    assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
    return c


def parse(sql, types):
    return b"P", pgwire.cstr("") + pgwire.cstr(sql) + struct.pack("!h", len(types)) + \
        b"".join(struct.pack("!I", t) for t in types)


def bind(params=(), param_formats=()):
    body = pgwire.cstr("") + pgwire.cstr("") + struct.pack("!h", len(param_formats)) + \
        b"".join(struct.pack("!h", f) for f in param_formats) + struct.pack("!h", len(params))
    for p in params:
        body += struct.pack("!i", -1) if p is None else struct.pack("!i", len(p)) + p
    return b"B", body + struct.pack("!h", 0)


DESCRIBE_S = (b"D", b"S\0")
DESCRIBE_P = (b"D", b"P\0")
SYNC = (b"S", b"")


def execute(max_rows=0):
    return b"E", b"\0" + struct.pack("!i", max_rows)


def exchange(*msgs):
    """Everything the agent reads for msgs (up to the last Sync's ReadyForQuery), errors as
    (SQLSTATE, message, detail, hint), notices and parameter status left out."""
    c = agent_conn()
    try:
        for t, body in msgs:
            c.send_msg(t, body)
        got = []
        for _ in range(sum(1 for t, _ in msgs if t == b"S")):
            got += c.recv_until_ready()
    finally:
        c.close()
    out = []
    for t, body in got:
        if t in (b"N", b"S"):
            continue
        if t == b"E":
            f = pgwire.error_fields(body)
            out.append((t, tuple(f.get(k) for k in "CMDH")))
        elif t == b"T":
            # The column's type oid is the parameter's: compared with the digits replaced.
            out.append((t, body))
        else:
            out.append((t, body))
    return out


def blind(value, oid):
    """repr(value) with the oid's digits, as text and as a big-endian u32, replaced."""
    text = repr(value).replace(repr(struct.pack("!I", oid))[2:-1], "<OID>")
    return re.sub(r"(?<![0-9])%d(?![0-9])" % oid, "<OID>", text)


# Each is the agent's exchange for a parameter type oid: Parse with it, then Describe, Bind and
# Execute as drivers send them.
EXCHANGES = {
    "describe": lambda oid: [parse("SELECT $1", [oid]), DESCRIBE_S, SYNC],
    "bind_execute": lambda oid: [parse("SELECT $1", [oid]), bind([b"(1,x,2)"]), DESCRIBE_P, execute(), SYNC],
    "row_to_json": lambda oid: [parse("SELECT row_to_json($1)", [oid]), bind([b"(1,x,2)"]), execute(), SYNC],
    "cast": lambda oid: [parse("SELECT $1::int", [oid]), DESCRIBE_S, SYNC],
    "operator": lambda oid: [parse("SELECT $1 = 1", [oid]), bind([None]), execute(), SYNC],
    "unused": lambda oid: [parse("SELECT 1", [oid]), bind([None]), execute(), SYNC],
    "binary": lambda oid: [parse("SELECT $1", [23, oid]), bind([b"\0\0\0\1", b"\0\0\0\0"], [1]), execute(), SYNC],
    "portal_rows": lambda oid: [parse("SELECT id FROM orders WHERE id < 3 AND $1 IS NULL", [oid]),
                                bind([None]), execute(1), execute(1), SYNC],
    "second_param": lambda oid: [parse("SELECT $1::int, $2", [23, oid]), DESCRIBE_S, bind([b"1", b"(1,x,2)"]),
                                 execute(), SYNC],
}


@pytest.mark.parametrize("kind", ["row", "array", "index"])
@pytest.mark.parametrize("name", sorted(EXCHANGES))
def test_parameter_type_of_hidden_reads_as_missing(oids, kind, name):
    hidden = exchange(*EXCHANGES[name](oids[kind]))
    missing = exchange(*EXCHANGES[name](oids["missing"]))
    assert blind(hidden, oids[kind]) == blind(missing, oids["missing"]), (hidden, missing)
    for word in LEAKS:
        assert word not in repr(hidden)
    # What Postgres answers for a type that does not exist.
    errors = [body for t, body in hidden if t == b"E"]
    assert errors and errors[0][:2] == ("XX000", "cache lookup failed for type %d" % oids[kind]), hidden
    assert hidden[-1][0] == b"Z"


# The reg* types as parameter types: the value bound is an oid or a name, read by the type's input
# function and printed by its output function, as a cast would.
REG_TYPE_OIDS = {"regclass": 2205, "regtype": 2206, "regnamespace": 4089, "regproc": 24, "regprocedure": 2202,
                 "regoper": 2203, "regoperator": 2204, "regconfig": 3734, "regdictionary": 3769,
                 "regcollation": 4191, "regrole": 4096}


def answers(got):
    """The rows' text values and the errors of an exchange, as text."""
    out = []
    for t, body in got:
        if t == b"D":
            n, at, values = struct.unpack("!h", body[:2])[0], 2, []
            for _ in range(n):
                size = struct.unpack("!i", body[at:at + 4])[0]
                at += 4
                values.append(None if size < 0 else body[at:at + size].decode())
                at += max(size, 0)
            out.append(("row", values))
        elif t == b"E":
            out.append(("error",) + body)
    return repr(out)


@pytest.mark.parametrize("regtype", sorted(REG_TYPE_OIDS))
@pytest.mark.parametrize("kind", ["row", "index"])
def test_reg_parameter_of_hidden_reads_as_missing(oids, regtype, kind):
    for value in (str(oids[kind]), "staff_salaries", "public.staff_salaries"):
        missing_value = value.replace(str(oids[kind]), str(oids["missing"])).replace("staff_salaries", "gone_tablex")
        hidden = answers(exchange(parse("SELECT $1::text", [REG_TYPE_OIDS[regtype]]), bind([value.encode()]),
                                  execute(), SYNC))
        missing = answers(exchange(parse("SELECT $1::text", [REG_TYPE_OIDS[regtype]]),
                                   bind([missing_value.encode()]), execute(), SYNC))
        got = hidden.replace(value, "V").replace(str(oids[kind]), "<OID>")
        want = missing.replace(missing_value, "V").replace(str(oids["missing"]), "<OID>")
        assert got == want, (value, hidden, missing)
        for word in LEAKS:
            assert word not in got, (value, hidden)


def test_reg_parameter_names_no_role():
    """A role's oid bound as a regrole prints no role name (the backend's bootstrap role is oid 10)."""
    got = exchange(parse("SELECT $1::text", [4096]), bind([b"10"]), execute(), SYNC)
    assert b"postgres" not in repr(got).encode() and b"airlock_ro" not in repr(got).encode(), got


def test_parameter_type_in_the_world_passes(oids):
    """A visible table's row type works as a parameter type, as it does directly."""
    got = exchange(parse("SELECT row_to_json($1)", [oids["orders"]]),
                   bind([b"(7,8,1.50,x,2024-01-01 00:00:00+00)"]), execute(), SYNC)
    rows = [body for t, body in got if t == b"D"]
    assert len(rows) == 1 and b'"customer_id":8' in rows[0], got


def test_builtin_parameter_types_pass():
    got = exchange(parse("SELECT $1::int + $2, $3::text", [23, 20, 25]), bind([b"1", b"2", b"x"]), execute(),
                   SYNC)
    assert [body for t, body in got if t == b"D"] == [struct.pack("!hi", 2, 1) + b"3" + struct.pack("!i", 1) + b"x"]


# ---------------------------------------------------------------- casts to the reg* types

HIDDEN_NS, MISSING_NS = "hush_ns", "gone_ns"


@pytest.fixture(scope="module")
def hidden_objects():
    """A schema the agent's world does not hold (no allowed relation is in it), with an object of each
    kind a reg* type names, and a public function over the hidden table's row type; their oids."""
    s = HIDDEN_NS
    itest.super_query(
        "DROP SCHEMA IF EXISTS {s} CASCADE; DROP FUNCTION IF EXISTS public.hush_over(staff_salaries);"
        " CREATE SCHEMA {s};"
        " CREATE FUNCTION {s}.hush_fn(int4, int4) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT true';"
        " CREATE OPERATOR {s}.=== (LEFTARG = int4, RIGHTARG = int4, FUNCTION = {s}.hush_fn);"
        " CREATE COLLATION {s}.hush_coll FROM \"C\";"
        " CREATE TEXT SEARCH DICTIONARY {s}.hush_dict (TEMPLATE = simple);"
        " CREATE TEXT SEARCH CONFIGURATION {s}.hush_cfg (COPY = simple);"
        " CREATE FUNCTION public.hush_over(staff_salaries) RETURNS int LANGUAGE sql AS 'SELECT 1';"
        " GRANT USAGE ON SCHEMA {s} TO airlock_ro".format(s=s))
    row = itest.super_query(
        "SELECT '{s}'::regnamespace::oid, '{s}.hush_fn'::regproc::oid, '{s}.===(int4,int4)'::regoperator::oid,"
        " '{s}.hush_coll'::regcollation::oid, '{s}.hush_dict'::regdictionary::oid,"
        " '{s}.hush_cfg'::regconfig::oid, 'public.hush_over'::regproc::oid".format(s=s))
    keys = ("schema", "function", "operator", "collation", "dictionary", "config", "over_hidden")
    yield dict(zip(keys, (int(x) for x in row.split("|"))))
    itest.super_query("DROP SCHEMA {s} CASCADE; DROP FUNCTION public.hush_over(staff_salaries)".format(s=s))


outcome = itest.pg_outcome


CAST_TYPES = ["regclass", "regtype", "regnamespace", "regproc", "regprocedure", "regoper", "regoperator",
              "regcollation", "regconfig", "regdictionary"]

# Casts of an oid: {o} is the hidden object's oid, or one that names nothing.
OID_CASTS = ["SELECT {o}::{t}", "SELECT {o}::{t}::text", "SELECT {o}::oid::{t}::text", "SELECT '{o}'::{t}",
             "SELECT CAST({o} AS pg_catalog.{t})::oid", "SELECT x::{t}::text FROM (VALUES ({o}::oid)) v(x)",
             "SELECT {t} '{o}'"]


@pytest.mark.parametrize("kind", ["row", "array", "index", "schema", "function", "operator", "collation",
                                  "dictionary", "config", "over_hidden"])
@pytest.mark.parametrize("regtype", CAST_TYPES)
def test_cast_of_hidden_oid_reads_as_missing(agent, oids, hidden_objects, kind, regtype):
    oid = oids[kind] if kind in oids else hidden_objects[kind]
    for probe in OID_CASTS:
        hidden = outcome(agent, probe.format(o=oid, t=regtype))
        missing = outcome(agent, probe.format(o=oids["missing"], t=regtype))
        assert blind(hidden, oid) == blind(missing, oids["missing"]), (probe, hidden, missing)
        for word in LEAKS + ("hush",):
            assert word not in repr(hidden), (probe, hidden)


# Casts of a name: {s} is the hidden schema, or one that does not exist.
NAME_CASTS = [
    "SELECT '{s}'::regnamespace",
    "SELECT '{s}'::regnamespace::oid",
    "SELECT '\"{s}\"'::regnamespace::text",
    "SELECT n::regnamespace FROM (VALUES ('{s}')) v(n)",
    "SELECT '{s}.hush_fn'::regproc",
    "SELECT '{s}.hush_fn(int4, int4)'::regprocedure::oid",
    "SELECT '{s}.===(int4,int4)'::regoperator",
    "SELECT '{s}.==='::regoper",
    "SELECT '{s}.hush_coll'::regcollation",
    "SELECT 'public.staff_salaries'::regclass::oid",
    "SELECT 'staff_salaries'::regtype::oid::regtype::text",
]


# Functions that resolve a name in a schema: {s} as above.
NAME_FUNCS = [
    "SELECT has_schema_privilege('{s}', 'usage')",
    "SELECT has_schema_privilege(current_user, '{s}', 'create')",
    "SELECT to_regnamespace('{s}')",
    "SELECT to_regnamespace('{s}')::oid",
    "SELECT to_regproc('{s}.hush_fn')",
    "SELECT to_regoper('{s}.===')",
    "SELECT to_regcollation('{s}.hush_coll')",
]


@pytest.mark.parametrize("probe", NAME_FUNCS)
def test_function_of_hidden_schema_reads_as_missing(agent, hidden_objects, probe):
    hidden = outcome(agent, probe.format(s=HIDDEN_NS))
    missing = outcome(agent, probe.format(s=MISSING_NS))
    assert repr(hidden).replace(HIDDEN_NS, "S") == repr(missing).replace(MISSING_NS, "S"), (hidden, missing)
    for word in LEAKS + ("hush",):
        assert word not in repr(hidden).replace(HIDDEN_NS, "S"), hidden


def test_functions_of_the_world_still_resolve(agent):
    got = outcome(agent, "SELECT has_schema_privilege('public', 'usage'), to_regnamespace('public')::text,"
                         " to_regproc('pg_catalog.now')::text, to_regoper('pg_catalog.||/')::text,"
                         " to_regcollation('\"C\"')::text")
    assert got == ("rows", [(True, "public", "now", "||/", '"C"')]), got


# A schema the backend role may not even use (no USAGE): looking a name up in it raises
# "permission denied for schema", where a schema that does not exist reads as NULL or "does not exist".
LOCKED_NS = "hush_locked"
LOCKED_PROBES = [
    "SELECT to_regclass('{s}.t')",
    "SELECT to_regclass('\"{s}\".t')::oid",
    "SELECT to_regclass('shop.{s}.t')",
    "SELECT to_regtype('{s}.ty')",
    "SELECT to_regproc('{s}.f')",
    "SELECT to_regoper('{s}.===')",
    "SELECT to_regcollation('{s}.c')",
    "SELECT to_regnamespace('{s}')",
    "SELECT '{s}.t'::regclass",
    "SELECT '{s}.ty'::regtype",
    "SELECT '{s}.f'::regproc",
    "SELECT '{s}.c'::regcollation",
    "SELECT n::regclass FROM (VALUES ('{s}.t')) v(n)",
    "SELECT has_table_privilege('{s}.t', 'select')",
    "SELECT has_schema_privilege('{s}', 'usage')",
    "SELECT pg_relation_size('{s}.t')",
    "SELECT * FROM {s}.t",
    "SELECT NULL::{s}.ty",
    "SELECT {s}.f()",
]


@pytest.fixture(scope="module")
def locked_schema():
    s = LOCKED_NS
    itest.super_query(
        "DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}; REVOKE ALL ON SCHEMA {s} FROM PUBLIC;"
        " CREATE DOMAIN {s}.ty AS int; CREATE FUNCTION {s}.f() RETURNS int LANGUAGE sql AS 'SELECT 1';"
        " CREATE COLLATION {s}.c FROM \"C\"".format(s=s))
    # No relation: the suite's snapshot lists relations. The lookups check USAGE before they look.
    yield s
    itest.super_query("DROP SCHEMA {s} CASCADE".format(s=s))


@pytest.mark.parametrize("probe", LOCKED_PROBES)
def test_name_in_schema_without_usage_reads_as_missing(agent, locked_schema, probe):
    hidden = outcome(agent, probe.format(s=LOCKED_NS))
    missing = outcome(agent, probe.format(s=MISSING_NS))
    assert repr(hidden).replace(LOCKED_NS, "S") == repr(missing).replace(MISSING_NS, "S"), (hidden, missing)
    assert "permission" not in repr(hidden), hidden


@pytest.mark.parametrize("probe", NAME_CASTS)
def test_cast_of_hidden_name_reads_as_missing(agent, hidden_objects, probe):
    hidden = outcome(agent, probe.format(s=HIDDEN_NS))
    missing = outcome(agent, probe.format(s=MISSING_NS).replace("staff_salaries", "gone_table"))
    assert repr(hidden).replace(HIDDEN_NS, "S") == repr(missing).replace(MISSING_NS, "S"), (hidden, missing)
    for word in LEAKS + ("hush",):
        assert word not in repr(hidden).replace(HIDDEN_NS, "S"), hidden


def test_signature_casts_are_refused_alike(agent):
    """A text signature names types, which Postgres 15 resolves and raises for: refused, hidden or not."""
    for probe in ("SELECT 'abs(staff_salaries)'::regprocedure", "SELECT 'abs(gone_tablex)'::regprocedure",
                  "SELECT '+(staff_salaries,int4)'::regoperator", "SELECT 'now()'::regprocedure"):
        got = outcome(agent, probe)
        assert got[0] == "error" and "0A000" in repr(got) and "signature cast" in repr(got), (probe, got)


def test_casts_in_the_world_still_resolve(agent, oids):
    """What the world holds reads as it does directly: psql's and the ORMs' casts keep working."""
    got = outcome(agent, "SELECT 'public'::regnamespace::text, 'pg_catalog'::regnamespace::oid,"
                         " 'now'::regproc::oid::regprocedure::text, 'pg_catalog.now'::regproc::text,"
                         " 551::regoperator::text, 'english'::regconfig::text,"
                         " 'simple'::regdictionary::text, '\"C\"'::regcollation::text,"
                         " {o}::regtype::text, to_tsvector('english'::regconfig, 'cats')::text".format(o=oids["orders"]))
    assert got == ("rows", [("public", 11, "now()", "now", "+(integer,integer)", "english", "simple", '"C"',
                             "orders", "'cat':1")]), got


# ---------------------------------------------------------------- regrole

def test_regrole_names_no_backend_role(agent):
    """A regrole prints a role's real name: the backend role (the owner of every table) and the others
    stay out of the world, whichever way the value is made."""
    for probe in ("SELECT relowner::regrole::text FROM pg_class WHERE relname = 'orders'",
                  "SELECT 10::regrole::text", "SELECT CAST(10 AS regrole)::text", "SELECT regrole '10'",
                  "SELECT (SELECT nspowner FROM pg_namespace WHERE nspname = 'pg_catalog')::regrole"):
        got = outcome(agent, probe)
        assert "airlock_ro" not in repr(got) and "postgres" not in repr(got), (probe, got)


@pytest.mark.parametrize("probe", ["SELECT '{r}'::regrole", "SELECT to_regrole('{r}')",
                                   "SELECT to_regrole('{r}')::oid"])
def test_role_name_reads_as_missing(agent, probe):
    for role in ("postgres", "airlock_ro", "pg_read_all_data"):
        there = outcome(agent, probe.format(r=role))
        missing = outcome(agent, probe.format(r="gone_role"))
        assert repr(there).replace(role, "R") == repr(missing).replace("gone_role", "R"), (probe, there, missing)


# ---------------------------------------------------------------- arrays of reg types

def test_reg_array_casts_guard_each_element(agent, oids):
    """An array cast to regclass[] or regtype[] (pgcli reads proallargtypes::regtype[] at start) reads the
    world's elements as they are and a hidden one exactly as one that does not exist."""
    got = outcome(agent, "SELECT p.proallargtypes::regtype[]::text FROM pg_proc p WHERE p.proname = 'aclexplode'")
    assert got == ("rows", [("{aclitem[],oid,oid,text,boolean}",)]), got
    for kind in ("row", "array"):
        probe = "SELECT ARRAY[{o}, {t}]::oid[]::regtype[]::text, ARRAY['orders', 'public.{n}']::regclass[]::text"
        there = outcome(agent, probe.format(o=oids["orders"], t=oids[kind], n="staff_salaries"))
        missing = outcome(agent, probe.format(o=oids["orders"], t=oids["missing"], n="no_such_table"))
        assert there == missing == ("rows", [("{orders,NULL}", "{orders,NULL}")]), (there, missing)
