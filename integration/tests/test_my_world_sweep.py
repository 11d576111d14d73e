"""The agent's MySQL world, swept: a table that exists but is not allowed
(shop.staff_salaries: airlock_ro may read it, the agent's policy does
not list it) answers every probe exactly as a table that does not exist.

What is probed comes from the backend, not from a list kept by hand: the
tables of information_schema and their columns are read from MariaDB
directly (as airlock_ro), and so are the hidden table's own column and
index names. Through airlock, as agent:

  - each information_schema table, filtered on each column that names a
    table (TABLE_NAME, REFERENCED_TABLE_NAME, EVENT_OBJECT_TABLE, ...) or
    a column, by equality, by LIKE, and by a condition that fails only on
    a matching row (EXP(1000)): the hidden name and a missing one give the
    same rows, or the same error with the name substituted;
  - each information_schema table read whole: no value names the hidden
    table, its columns or its indexes, and as many rows mention the hidden
    name as mention the missing one (counted by the server, so a cap on
    rows hides nothing). A table airlock refuses is refused the same way
    whatever is asked of it, and the test says which;
  - every SHOW / DESCRIBE / table-maintenance form MariaDB has that takes a
    table or object name, with the name plain, qualified (shop.x), quoted
    (`x`) and both; each form is first checked to parse on MariaDB itself,
    so the list cannot rot into syntax errors;
  - reads that reach the table by other routes: subqueries, joins, set
    operations, CTEs, qualified column references, sequence functions,
    HANDLER, LOAD INDEX, ANALYZE, under ANSI_QUOTES, ...;
  - the same statements over the binary protocol (COM_STMT_PREPARE and
    COM_STMT_EXECUTE), and COM_FIELD_LIST.

Errors compare by errno, SQLSTATE where the protocol gives it, and
message, with the two names replaced by one placeholder."""

import re
import struct
import time

import pymysql
import pytest

import itest
import mywire
from test_my_protocol import logged_in, prepare

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

HIDDEN = "staff_salaries"
MISSING = "no_such_table_q7"
MISSING_COLUMN = "no_such_colq7"
DB = "shop"

# Columns of information_schema that hold a table's name, and those that hold a column's.
TABLE_COLUMN = re.compile(r"(TABLE_NAME|^EVENT_OBJECT_TABLE|^LOCK_TABLE|^FOR_NAME|^REF_NAME|^NAME"
                          r"|TABLESPACE_NAME)$", re.I)
COLUMN_COLUMN = re.compile(r"(COLUMN_NAME|^(FOR|REF)_COL_NAME|GEOMETRY_COLUMN)$", re.I)

COM_STMT_EXECUTE, COM_STMT_CLOSE = 0x17, 0x19


# ---------------------------------------------------------------- the backend, directly

def backend():
    """What MariaDB itself says: {tables: {name: [columns]}, hidden_columns, hidden_indexes}."""
    conn = itest.my_direct(autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS"
                        " WHERE TABLE_SCHEMA = 'information_schema' ORDER BY TABLE_NAME, ORDINAL_POSITION")
            tables = {}
            for t, c in cur.fetchall():
                tables.setdefault(t, []).append(c)
            cur.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s"
                        " AND TABLE_NAME = %s", (DB, HIDDEN))
            hidden_cols = {r[0] for r in cur.fetchall()}
            cur.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s"
                        " AND TABLE_NAME <> %s", (DB, HIDDEN))
            shown_cols = {r[0] for r in cur.fetchall()}
            cur.execute("SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS"
                        " WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s", (DB, HIDDEN))
            hidden_idx = {r[0] for r in cur.fetchall()} - {"PRIMARY"}
    finally:
        conn.close()
    assert "TABLES" in tables and "COLUMNS" in tables, sorted(tables)
    assert hidden_cols, "%s.%s is not on the backend" % (DB, HIDDEN)
    return {"tables": tables, "hidden_columns": sorted(hidden_cols - shown_cols),
            "hidden_indexes": sorted(hidden_idx)}


@pytest.fixture(scope="module")
def world():
    return backend()


def leak_words(world):
    """What no answer may name: the hidden table, and its columns and indexes no allowed table shares."""
    return [HIDDEN] + world["hidden_columns"] + world["hidden_indexes"]


# ---------------------------------------------------------------- comparing

def outcome(conn, sql):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", cur.fetchall() if cur.description else None)
    except pymysql.err.OperationalError as e:
        if e.args and e.args[0] in (2006, 2013, 2014):
            raise
        return ("error",) + tuple(e.args)
    except pymysql.MySQLError as e:
        return ("error",) + tuple(e.args)


def normal(value, names):
    text = repr(value)
    for n in sorted(names, key=len, reverse=True):
        text = text.replace(n, "<N>")
    return text


class Sweep:
    """Runs (hidden sql, missing sql) pairs on one agent connection and keeps the mismatches."""

    def __init__(self, names):
        self.names = names
        self.conn = itest.my_connect(autocommit=True)
        self.count = 0
        self.mismatches = []
        self.refused = {}

    def pair(self, hidden_sql, missing_sql, label=None):
        self.count += 1
        try:
            hidden = outcome(self.conn, hidden_sql)
            missing = outcome(self.conn, missing_sql)
        except pymysql.MySQLError as e:
            self.conn.close()
            self.conn = itest.my_connect(autocommit=True)
            self.mismatches.append("%s: the connection broke: %s" % (hidden_sql, e))
            return None
        if normal(hidden, self.names) != normal(missing, self.names):
            self.mismatches.append("%s\n    hidden:  %s\n    missing: %s" % (hidden_sql, hidden, missing))
        elif hidden[0] == "error" and label:
            self.refused.setdefault(hidden[1], set()).add(label)
        return hidden

    def close(self):
        self.conn.close()


def q(name):
    """The ways a table can be named: plain, qualified, quoted, both."""
    return [name, "%s.%s" % (DB, name), "`%s`" % name, "`%s`.`%s`" % (DB, name)]


# ---------------------------------------------------------------- information_schema

def name_probes(world):
    """{table: (rows sql, failing sql)} for each information_schema table with a column that names a
    table or a column: every such column compared (=, LIKE) with {n} (a table name) or {c} (a column
    name) in one statement whose rows are compared, and in one whose condition fails (EXP(1000)) only
    on a matching row."""
    out = {}
    for table, cols in sorted(world["tables"].items()):
        conds, fails = [], []
        for col in cols:
            v = "{n}" if TABLE_COLUMN.search(col) else "{c}" if COLUMN_COLUMN.search(col) else None
            if v:
                conds += ["`%s` = '%s'" % (col, v), "`%s` LIKE '%%%s%%'" % (col, v)]
                fails.append("IF(`%s` = '%s', EXP(1000), 0)" % (col, v))
        if conds:
            base = "SELECT * FROM information_schema.`%s` WHERE " % table
            out[table] = (base + " OR ".join(conds), base + " OR ".join(fails))
    return out


def fill(sql, world, hidden):
    """sql with {n} and {c} the hidden table and column, or the missing ones."""
    col = (world["hidden_columns"] or ["id"])[0]
    if hidden:
        return sql.replace("{n}", HIDDEN).replace("{c}", col)
    return sql.replace("{n}", MISSING).replace("{c}", MISSING_COLUMN)


def test_information_schema_filtered_by_name(world):
    """Every information_schema column that names a table (or a column) asked for the hidden one."""
    probes = name_probes(world)
    assert len(probes) >= 15, sorted(probes)
    sweep = Sweep([HIDDEN, MISSING, MISSING_COLUMN] + world["hidden_columns"])
    try:
        for table, sqls in probes.items():
            for sql in sqls:
                sweep.pair(fill(sql, world, True), fill(sql, world, False), table)
    finally:
        sweep.close()
    print("information_schema name sweep: %d tables, %d name columns, %d statements; refused alike: %s" % (
        len(probes), sum(p[1].count("EXP(1000)") for p in probes.values()), sweep.count * 2,
        {k: sorted(v) for k, v in sweep.refused.items()}))
    assert not sweep.mismatches, "%d of %d answer differently for the hidden table:\n%s" % (
        len(sweep.mismatches), sweep.count, "\n".join(sweep.mismatches))
    # Only information_schema's own guard refuses, and always as a table the agent may not read.
    assert set(sweep.refused) <= {1142}, sweep.refused


def fetch_all(conn, table, cap=1000):
    """Every row of an information_schema table, a page of max_rows at a time; or the error."""
    rows, offset = [], 0
    while True:
        got = outcome(conn, "SELECT * FROM information_schema.`%s` LIMIT %d OFFSET %d" % (table, cap, offset))
        if got[0] != "rows":
            return got
        rows += got[1]
        if len(got[1]) < cap:
            return ("rows", rows)
        offset += cap


def test_information_schema_read_whole(world):
    """Each information_schema table read whole names nothing hidden; the server counts the rows that
    mention the hidden name and the missing one, and the counts agree."""
    words = leak_words(world)
    conn = itest.my_connect(autocommit=True)
    leaks, mismatches, refused, read = [], [], [], 0
    try:
        for table, cols in sorted(world["tables"].items()):
            got = fetch_all(conn, table)
            if got[0] == "error":
                assert got[1] == 1142, (table, got)
                refused.append(table)
            else:
                read += 1
                text = repr(got[1]).lower()
                leaks += ["%s: %s" % (table, w) for w in words if w.lower() in text]
            # Rows that mention each hidden name, then each missing one, counted by the server.
            row = "CONCAT_WS('|', %s)" % ", ".join("r.`%s`" % c for c in cols)
            pairs = [(HIDDEN, MISSING)] + [(c, MISSING_COLUMN) for c in world["hidden_columns"]]
            counted = outcome(conn, "SELECT %s FROM information_schema.`%s` r" % (", ".join(
                "SUM(%s LIKE '%%%s%%')" % (row, n) for p in zip(*pairs) for n in p), table))
            if got[0] == "error":
                # Refused whole, refused whatever is asked of it.
                assert counted[0] == "error" and counted[1:] == got[1:], (table, got, counted)
                continue
            assert counted[0] == "rows", (table, counted)
            values = [int(v or 0) for v in counted[1][0]]
            if values[:len(pairs)] != values[len(pairs):]:
                mismatches.append("%s: rows naming %s: %s; naming %s: %s" % (
                    table, [p[0] for p in pairs], values[:len(pairs)], [p[1] for p in pairs],
                    values[len(pairs):]))
    finally:
        conn.close()
    print("information_schema whole reads: %d tables read, %d refused by airlock: %s" % (
        read, len(refused), ", ".join(refused)))
    assert not leaks, leaks
    assert not mismatches, "\n".join(mismatches)
    assert read >= 20, read


# ---------------------------------------------------------------- SHOW and friends

# {t}: a table name in each spelling; {p}: the bare name in a string (LIKE / WHERE); {c}: a column.
SHOW_FORMS = [
    "SHOW COLUMNS FROM {t}", "SHOW COLUMNS IN {t}", "SHOW FULL COLUMNS FROM {t}", "SHOW FIELDS FROM {t}",
    "SHOW FULL FIELDS IN {t}",
    "SHOW COLUMNS FROM {t} LIKE '%'", "SHOW COLUMNS FROM {t} WHERE Field = '{c}'",
    "SHOW INDEX FROM {t}", "SHOW INDEXES FROM {t}", "SHOW KEYS FROM {t}", "SHOW INDEX IN {t}",
    "SHOW KEYS IN {t} WHERE Key_name = 'PRIMARY'",
    "SHOW CREATE TABLE {t}", "SHOW CREATE VIEW {t}", "SHOW CREATE SEQUENCE {t}", "SHOW CREATE TRIGGER {t}",
    "SHOW CREATE PROCEDURE {t}", "SHOW CREATE FUNCTION {t}", "SHOW CREATE EVENT {t}",
    "SHOW CREATE PACKAGE {t}", "SHOW CREATE PACKAGE BODY {t}", "SHOW PROCEDURE CODE {t}",
    "SHOW FUNCTION CODE {t}", "SHOW TABLE_STATISTICS", "SHOW INDEX_STATISTICS",
    "DESCRIBE {t}", "DESC {t}", "EXPLAIN {t}", "DESCRIBE {t} {c}", "DESCRIBE {t} '%'",
    "CHECKSUM TABLE {t}", "CHECKSUM TABLE {t} QUICK", "CHECKSUM TABLE {t} EXTENDED", "CHECK TABLE {t}",
    "ANALYZE TABLE {t}", "OPTIMIZE TABLE {t}", "REPAIR TABLE {t}", "FLUSH TABLES {t}",
    "LOCK TABLES {t} READ", "HANDLER {t} OPEN", "LOAD INDEX INTO CACHE {t}", "CACHE INDEX {t} IN default",
    "RENAME TABLE {t} TO x_renamed", "TRUNCATE TABLE {t}", "DROP TABLE {t}", "ALTER TABLE {t} COMMENT 'x'",
    "CREATE TABLE x_copy LIKE {t}", "CREATE VIEW x_v AS SELECT * FROM {t}",
]
# Forms whose name is in a string or a condition: the bare name only.
SHOW_PATTERNS = [
    "SHOW TABLES LIKE '{p}'", "SHOW FULL TABLES LIKE '{p}'", "SHOW TABLES FROM shop LIKE '{p}'",
    "SHOW TABLES IN shop WHERE Tables_in_shop = '{p}'", "SHOW FULL TABLES WHERE Tables_in_shop LIKE '{p}%'",
    "SHOW TABLES WHERE IF(Tables_in_shop = '{p}', EXP(1000), 0)",
    "SHOW TABLE STATUS LIKE '{p}'", "SHOW TABLE STATUS FROM shop LIKE '{p}'",
    "SHOW TABLE STATUS WHERE Name = '{p}'", "SHOW TABLE STATUS IN shop WHERE Name LIKE '{p}%'",
    "SHOW TABLE STATUS WHERE IF(Name = '{p}', EXP(1000), 0)",
    "SHOW TRIGGERS LIKE '{p}'", "SHOW TRIGGERS FROM shop WHERE `Table` = '{p}'",
    "SHOW OPEN TABLES LIKE '{p}'", "SHOW OPEN TABLES FROM shop WHERE `Table` = '{p}'",
    "SHOW FUNCTION STATUS LIKE '{p}'", "SHOW PROCEDURE STATUS LIKE '{p}'", "SHOW EVENTS LIKE '{p}'",
    "SHOW DATABASES LIKE '{p}'", "SHOW COLUMNS FROM orders WHERE Field = '{c}'",
    "SHOW COLUMNS FROM orders WHERE IF(Field = '{c}', EXP(1000), 0)",
]


def show_statements(world):
    """[(hidden sql, missing sql)]."""
    hc = (world["hidden_columns"] or ["id"])[0]
    out = []
    for form in SHOW_FORMS:
        spellings = zip(q(HIDDEN), q(MISSING)) if "{t}" in form else [(HIDDEN, MISSING)]
        for h, m in spellings:
            out.append((form.format(t=h, c=hc, p=HIDDEN), form.format(t=m, c=MISSING_COLUMN, p=MISSING)))
    for form in SHOW_PATTERNS:
        out.append((form.format(p=HIDDEN, c=hc), form.format(p=MISSING, c=MISSING_COLUMN)))
    return out


# Reads that reach the table by some other route; {t} in each spelling.
READS = [
    "SELECT * FROM {t}", "SELECT id FROM {t} WHERE id = 1", "SELECT COUNT(*) FROM {t}",
    "SELECT * FROM {t} AS orders", "SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM {t})",
    "SELECT * FROM orders WHERE id IN (SELECT id FROM {t})", "SELECT (SELECT MAX(id) FROM {t})",
    "SELECT * FROM orders o JOIN {t} s ON s.id = o.id", "SELECT * FROM orders o LEFT JOIN {t} s USING (id)",
    "SELECT * FROM orders NATURAL JOIN {t}", "SELECT * FROM orders, {t}",
    "SELECT * FROM orders o STRAIGHT_JOIN {t} s", "SELECT id FROM orders UNION SELECT id FROM {t}",
    "(SELECT 1) UNION ALL (SELECT 1 FROM {t})", "SELECT id FROM orders INTERSECT SELECT id FROM {t}",
    "SELECT id FROM orders EXCEPT SELECT id FROM {t}", "WITH w AS (SELECT * FROM {t}) SELECT * FROM w",
    "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r, {t} WHERE n < 2) SELECT * FROM r",
    "SELECT * FROM (SELECT * FROM {t}) AS d",
    "SELECT * FROM {t} PARTITION (p0)", "SELECT * FROM {t} FOR SYSTEM_TIME ALL",
    "SELECT * FROM {t} USE INDEX (PRIMARY)", "SELECT * FROM {t} LOCK IN SHARE MODE",
    "SELECT * FROM {t} FOR UPDATE", "SELECT * FROM {t} INTO @x", "SELECT {t}.* FROM orders",
    "SELECT {t}.id FROM orders",
    "SELECT DEFAULT({t}.id) FROM orders", "SELECT NEXTVAL({t})", "SELECT LASTVAL({t})",
    "SELECT SETVAL({t}, 5)", "SELECT NEXT VALUE FOR {t}", "SELECT PREVIOUS VALUE FOR {t}",
    "EXPLAIN SELECT * FROM {t}", "EXPLAIN EXTENDED SELECT * FROM {t}",
    "EXPLAIN FORMAT=JSON SELECT * FROM {t}", "DESCRIBE SELECT * FROM {t}", "ANALYZE SELECT * FROM {t}",
    "DO (SELECT 1 FROM {t})", "SET @x = (SELECT COUNT(*) FROM {t})", "VALUES ((SELECT 1 FROM {t}))",
    "PREPARE s FROM 'SELECT * FROM {t}'", "SELECT * FROM orders /*!, {t} */",
    "SELECT * FROM orders /*M!100000 , {t} */", "SELECT 1 FROM orders -- x\n, {t}",
    "INSERT INTO orders SELECT * FROM {t}", "SELECT * FROM {t} INTO OUTFILE '/tmp/x'",
]
# Reads under ANSI_QUOTES, where "x" names a table.
ANSI_READS = [
    'SELECT * FROM "{b}"', 'SELECT * FROM "shop"."{b}"', 'SELECT "{b}".* FROM orders',
    'SELECT COUNT(*) FROM orders WHERE id IN (SELECT id FROM "{b}")', 'SHOW COLUMNS FROM "{b}"',
    'DESCRIBE "shop"."{b}"',
]


def read_statements():
    out = []
    for form in READS:
        spellings = zip(q(HIDDEN), q(MISSING)) if form.count("{t}") else []
        for h, m in spellings:
            out.append((form.format(t=h), form.format(t=m)))
    return out


def test_show_forms_parse_on_mariadb(world):
    """Every form in the sweep is one MariaDB parses (asked of it directly, with the missing name, so
    nothing on the backend can change): the sweep probes statements, not syntax errors."""
    conn = itest.my_direct(autocommit=True)
    unparsed = []
    try:
        for _, missing in show_statements(world) + read_statements():
            got = outcome(conn, missing)
            if got[0] == "error" and got[1] == 1064:
                unparsed.append("%s: %s" % (missing, got))
    finally:
        conn.close()
    assert not unparsed, "\n".join(unparsed)


def test_show_and_describe_forms(world):
    stmts = show_statements(world)
    sweep = Sweep([HIDDEN, MISSING, MISSING_COLUMN] + world["hidden_columns"])
    try:
        for hidden, missing in stmts:
            sweep.pair(hidden, missing, hidden)
    finally:
        sweep.close()
    print("SHOW / DESCRIBE sweep: %d forms, %d statements; refused alike, by errno: %s" % (
        len(SHOW_FORMS) + len(SHOW_PATTERNS), sweep.count, {k: len(v) for k, v in sweep.refused.items()}))
    assert not sweep.mismatches, "%d of %d answer differently for the hidden table:\n%s" % (
        len(sweep.mismatches), sweep.count, "\n".join(sweep.mismatches))


def test_reads_by_every_route(world):
    stmts = read_statements()
    sweep = Sweep([HIDDEN, MISSING, MISSING_COLUMN] + world["hidden_columns"])
    try:
        for hidden, missing in stmts:
            sweep.pair(hidden, missing)
        outcome(sweep.conn, "SET sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')")
        for form in ANSI_READS:
            sweep.pair(form.format(b=HIDDEN), form.format(b=MISSING))
    finally:
        sweep.close()
    print("read sweep: %d forms, %d statements" % (len(READS) + len(ANSI_READS), sweep.count))
    assert not sweep.mismatches, "%d of %d answer differently for the hidden table:\n%s" % (
        len(sweep.mismatches), sweep.count, "\n".join(sweep.mismatches))


# ---------------------------------------------------------------- the binary protocol

def binary_outcome(c, sql, params=()):
    """COM_STMT_PREPARE then COM_STMT_EXECUTE (params bound as strings), closed after: the Err of
    either, or the column names and the raw binary rows."""
    got = prepare(c, sql)
    if isinstance(got, mywire.Err):
        return ("prepare", got.errno, got.sqlstate, got.message)
    stmt_id, nparams = got
    if nparams != len(params):
        c.command(COM_STMT_CLOSE, struct.pack("<I", stmt_id))
        return ("params", nparams)
    body = struct.pack("<IBI", stmt_id, 0, 1)
    if params:
        body += b"\0" * ((len(params) + 7) // 8) + b"\x01" + b"\xfd\x00" * len(params)
        body += b"".join(mywire.lenenc(v.encode()) for v in params)
    c.command(COM_STMT_EXECUTE, body)
    first = c.recv_payload()
    if first[:1] == b"\xff":
        err = mywire.Err(first)
        out = ("execute", err.errno, err.sqlstate, err.message)
    elif first[:1] == b"\x00":
        out = ("ok",)
    else:
        ncols, _ = mywire.lenenc_int(first, 0)
        names = [mywire.Column(c.recv_payload()).name for _ in range(ncols)]
        c.recv_payload()  # EOF after the columns
        rows = []
        while True:
            p = c.recv_payload()
            if p[:1] == b"\xfe" and len(p) < 9:
                break
            if p[:1] == b"\xff":
                rows.append(mywire.Err(p).message)
                break
            rows.append(p)
        out = ("rows", names, rows)
    c.command(COM_STMT_CLOSE, struct.pack("<I", stmt_id))
    return out


def test_binary_protocol(world):
    """The same statements prepared and executed: refused or answered alike for both names."""
    names = [HIDDEN, MISSING, MISSING_COLUMN] + world["hidden_columns"]
    # information_schema by the condition that fails on a matching row; each SHOW form and read once,
    # with the name as written plainly (the text sweep covers the other spellings).
    pairs = [(fill(ps[1], world, True), fill(ps[1], world, False)) for ps in name_probes(world).values()]
    pairs += [(h, m) for h, m in show_statements(world) + read_statements()
              if "`" not in h and "shop." + HIDDEN not in h]
    pairs = [(h, m, ()) for h, m in pairs]
    # The name as a bound parameter, which airlock does not see before the backend does.
    for table, col in (("TABLES", "TABLE_NAME"), ("COLUMNS", "TABLE_NAME"), ("STATISTICS", "TABLE_NAME"),
                       ("KEY_COLUMN_USAGE", "REFERENCED_TABLE_NAME"), ("TRIGGERS", "EVENT_OBJECT_TABLE")):
        for cond in ("`%s` = ?", "IF(`%s` = ?, EXP(1000), 0)"):
            sql = "SELECT * FROM information_schema.`%s` WHERE %s" % (table, cond % col)
            pairs.append((sql, sql, (HIDDEN,), (MISSING,)))
    mismatches, slow = [], []
    c = logged_in()
    try:
        for hidden_sql, missing_sql, *params in pairs:
            start = time.monotonic()
            hidden = binary_outcome(c, hidden_sql, params[0] if params else ())
            missing = binary_outcome(c, missing_sql, params[-1] if params else ())
            slow.append((time.monotonic() - start, hidden_sql[:60]))
            if normal(hidden, names) != normal(missing, names):
                mismatches.append("%s\n    hidden:  %s\n    missing: %s" % (hidden_sql, hidden, missing))
        assert isinstance(c.ping(), mywire.Ok)
    finally:
        c.close()
    print("binary protocol sweep: %d pairs; slowest: %s" % (len(pairs), sorted(slow, reverse=True)[:8]))
    assert not mismatches, "%d of %d answer differently for the hidden table:\n%s" % (
        len(mismatches), len(pairs), "\n".join(mismatches))


def test_field_list():
    """COM_FIELD_LIST of the hidden table answers as of a missing one."""
    with logged_in() as c:
        for wild in (b"", b"%", b"s%"):
            hidden, missing = c.field_list(HIDDEN, wild), c.field_list(MISSING, wild)
            assert isinstance(hidden, mywire.Err), hidden
            assert (hidden.errno, hidden.sqlstate, hidden.message.replace(HIDDEN, "<N>")) == \
                (missing.errno, missing.sqlstate, missing.message.replace(MISSING, "<N>"))
