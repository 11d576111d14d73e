"""Scoped catalogs over Postgres, played as an attacker and as an ORM would:
what the agent can read about the database describes only the tables its
policy allows. staff_salaries exists (and has statistics) but is not
allowed; every probe must answer for it exactly as for a table that does
not exist, and nothing the catalogs return may mention it."""

import io
import os
import re
import threading
import time

import pytest

import itest

pytestmark = pytest.mark.usefixtures("snapshot_guard")

HIDDEN = "staff_salaries"
MISSING = "no_such_table_q7"

# Probes with {t}: run once with the hidden table and once with a missing
# one; the outcomes (rows, or SQLSTATE and message) must be the same with
# the names swapped.
PROBES = [
    "SELECT relname, reltuples FROM pg_class WHERE relname = '{t}'",
    "SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
    " ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relname = '{t}'",
    "SELECT attname FROM pg_attribute WHERE attrelid IN"
    " (SELECT oid FROM pg_class WHERE relname = '{t}')",
    "SELECT * FROM pg_stats WHERE tablename = '{t}'",
    "SELECT * FROM pg_stats_ext WHERE tablename = '{t}'",
    "SELECT * FROM pg_tables WHERE tablename = '{t}'",
    "SELECT * FROM pg_indexes WHERE tablename = '{t}'",
    "SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE relname = '{t}'",
    "SELECT relname FROM pg_statio_all_tables WHERE relname = '{t}'",
    "SELECT indexrelname FROM pg_stat_all_indexes WHERE relname = '{t}'",
    "SELECT conname FROM pg_constraint WHERE conname LIKE '{t}%'",
    "SELECT typname FROM pg_type WHERE typname IN ('{t}', '_{t}')",
    "SELECT count(*) FROM pg_depend d JOIN pg_class c ON c.oid = d.refobjid"
    " WHERE c.relname = '{t}'",
    "SELECT * FROM information_schema.tables WHERE table_name = '{t}'",
    "SELECT column_name FROM information_schema.columns WHERE table_name = '{t}'",
    "SELECT constraint_name FROM information_schema.table_constraints"
    " WHERE table_name = '{t}'",
    "SELECT column_name FROM information_schema.key_column_usage WHERE table_name = '{t}'",
    "SELECT constraint_name FROM information_schema.constraint_column_usage"
    " WHERE table_name = '{t}'",
    "SELECT privilege_type FROM information_schema.table_privileges WHERE table_name = '{t}'",
    "SELECT '{t}'::regclass",
    "SELECT 'public.{t}'::regclass::oid",
    "SELECT '{t}'::text::regclass",
    "SELECT to_regclass('{t}'), to_regclass('public.{t}')",
    "SELECT pg_relation_size('{t}')",
    "SELECT pg_total_relation_size('public.{t}'), pg_table_size('{t}')",
    "SELECT pg_relation_size('{t}_pkey')",
    "SELECT has_table_privilege('{t}', 'select')",
    "SELECT has_table_privilege(current_user, '{t}', 'select')",
    "SELECT has_column_privilege('{t}', 'salary', 'select')",
    "SELECT obj_description('{t}'::regclass, 'pg_class')",
    "SELECT col_description('{t}'::regclass, 1)",
    "SELECT pg_get_serial_sequence('{t}', 'id')",
    "SELECT '{t}'::regtype",
    "SELECT to_regtype('{t}'), to_regtype('_{t}')",
    "SELECT count(*) FROM pg_attribute WHERE attrelid = '{t}'::regclass",
    "SELECT pg_get_indexdef('{t}_pkey'::regclass)",
    "SELECT pg_stat_get_live_tuples('{t}'::regclass)",
    "SELECT pg_get_viewdef('{t}')",
    "SELECT '{t}_pkey'::regclass",
    "SELECT NULL::{t}",
    "SELECT '(1,a,2)'::public.{t}",
    "SELECT NULL::{t}[]",
    "SELECT CAST(NULL AS public._{t})",
    "SELECT * FROM json_populate_record(NULL::{t}, '{{}}')",
    "SELECT * FROM pg_catalog.generate_series(1, 1) AS g(x {t})",
    "SELECT has_type_privilege('{t}', 'usage'), has_type_privilege('_{t}', 'usage')",
    "SELECT pg_catalog.format_type('{t}'::regtype, NULL)",
]

# Probes that sweep whole catalogs: their output must not name the hidden
# table, its columns, its constraints or its values.
SWEEPS = [
    "SELECT string_agg(relname, ',') FROM pg_class",
    "SELECT string_agg(c.oid::regclass::text, ',') FROM pg_catalog.pg_class c",
    "SELECT string_agg(g::oid::regclass::text, ',') FROM generate_series(16384, 40000) g",
    "SELECT string_agg(('public.' || n)::regclass::text, ',') FROM"
    " (VALUES ('orders'), ('staff_salaries'), ('customers')) v(n)",
    "SELECT string_agg(attname, ',') FROM pg_attribute",
    "SELECT string_agg(concat(histogram_bounds, most_common_vals, correlation), ',') FROM pg_stats",
    "SELECT string_agg(s::text, ',') FROM pg_stats s",
    "SELECT string_agg(conname || pg_get_constraintdef(oid), ',') FROM pg_constraint",
    "SELECT string_agg(pg_get_constraintdef(g::oid), ',') FROM generate_series(1, 40000) g",
    "SELECT string_agg(pg_get_indexdef(g::oid), ',') FROM generate_series(16384, 40000) g",
    "SELECT string_agg(format_type(g::oid, NULL), ',') FROM generate_series(16384, 40000) g",
    "SELECT string_agg(format_type(oid, NULL), ',') FROM pg_type",
    "SELECT string_agg(typname, ',') FROM pg_type",
    "SELECT string_agg(t::text, ',') FROM information_schema.tables t",
    "SELECT string_agg(c::text, ',') FROM information_schema.columns c",
    "SELECT string_agg(k::text, ',') FROM information_schema.check_constraints k",
    "SELECT string_agg(k::text, ',') FROM information_schema.table_constraints k",
    "SELECT string_agg(s::text, ',') FROM information_schema.sequences s",
    "SELECT string_agg(t::text, ',') FROM pg_tables t",
    "SELECT string_agg(i::text, ',') FROM pg_indexes i",
    "SELECT string_agg(u::text, ',') FROM pg_stat_user_tables u",
    "SELECT string_agg(u::text, ',') FROM pg_statio_user_indexes u",
    "SELECT string_agg(objoid::regclass::text, ',') FROM pg_description WHERE classoid = 1259",
    "SELECT string_agg(pg_relation_size(oid)::text, ',') FROM pg_class",
    "SELECT string_agg(to_regclass(n || '.' || r)::text, ',') FROM"
    " (VALUES ('public', 'staff_salaries'), ('public', 'orders')) v(n, r)",
    "SELECT string_agg(pg_stat_get_live_tuples(g::oid)::text || ':' || g, ',')"
    " FROM generate_series(16384, 40000) g",
    "SELECT string_agg(obj_description(g::oid), ',') FROM generate_series(16384, 40000) g",
    "SELECT string_agg(n.nspname, ',') FROM pg_namespace n",
    "SELECT string_agg(has_type_privilege(oid, 'usage')::text || typname, ',') FROM pg_type",
    "SELECT string_agg(u::text, ',') FROM information_schema.udt_privileges u",
    "SELECT string_agg(u::text, ',') FROM information_schema.role_udt_grants u",
    "SELECT string_agg(u::text, ',') FROM information_schema.user_defined_types u",
    "SELECT string_agg(a::text, ',') FROM information_schema.attributes a",
]

LEAKS = ("staff", "salar")


outcome = itest.pg_outcome


def swap(value, a, b):
    return repr(value).replace(a, b)


@pytest.fixture(scope="module", autouse=True)
def hidden_table_has_statistics():
    """The hidden table has real statistics (histograms of its values) to leak."""
    itest.super_query("ANALYZE staff_salaries; ANALYZE orders; ANALYZE customers; ANALYZE products")
    yield


@pytest.mark.parametrize("probe", PROBES)
def test_hidden_reads_as_missing(agent, probe):
    hidden = outcome(agent, probe.format(t=HIDDEN))
    missing = outcome(agent, probe.format(t=MISSING))
    assert swap(hidden, HIDDEN, "T") == swap(missing, MISSING, "T"), (hidden, missing)
    for word in LEAKS:
        # The name the probe itself wrote may be echoed; nothing else.
        assert word not in swap(hidden, HIDDEN, "T")


@pytest.mark.parametrize("sweep", SWEEPS)
def test_sweep_does_not_name_hidden(agent, sweep):
    got = outcome(agent, sweep)
    assert got[0] == "rows", got
    for word in LEAKS:
        assert word not in repr(got), (sweep, got)


def test_type_privileges_list_only_the_world(agent):
    """The row types of allowed tables keep their privileges; a hidden table's
    row type is not listed, whether read by SELECT or by COPY."""
    with agent.cursor() as cur:
        cur.execute("SELECT udt_name FROM information_schema.udt_privileges WHERE udt_schema = 'public'")
        names = {r[0] for r in cur.fetchall()}
        assert {"orders", "customers", "products"} <= names, names
        assert HIDDEN not in names, names
        buf = io.StringIO()
        cur.copy_expert("COPY (SELECT udt_name FROM information_schema.udt_privileges"
                        " WHERE udt_schema = 'public') TO STDOUT", buf)
        copied = set(buf.getvalue().split())
        assert copied == names, (copied, names)


def test_allowed_tables_stay_described(agent):
    """The scoping hides; it does not break what is allowed."""
    with agent.cursor() as cur:
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        assert [r[0] for r in cur.fetchall()] == ["customers", "orders", "products"]
        cur.execute("SELECT table_name FROM information_schema.tables"
                    " WHERE table_schema = 'public' ORDER BY 1")
        assert [r[0] for r in cur.fetchall()] == ["customers", "orders", "products"]
        cur.execute("SELECT column_name FROM information_schema.columns"
                    " WHERE table_name = 'orders' ORDER BY ordinal_position")
        assert [r[0] for r in cur.fetchall()] == ["id", "customer_id", "amount", "note",
                                                   "created_at"]
        cur.execute("SELECT count(*) > 0 FROM pg_stats WHERE tablename = 'orders'")
        assert cur.fetchone()[0] is True
        cur.execute("SELECT 'orders'::regclass::text, pg_relation_size('orders') > 0,"
                    " pg_relation_size('orders_pkey') > 0, to_regclass('orders')::text,"
                    " has_table_privilege('orders', 'select')")
        assert cur.fetchone() == ("orders", True, True, "orders", True)
        cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'orders' ORDER BY 1")
        assert [r[0] for r in cur.fetchall()] == ["orders_customer_id", "orders_pkey"]
        cur.execute("SELECT pg_get_indexdef(indexrelid) FROM pg_index"
                    " WHERE indrelid = 'orders'::regclass ORDER BY 1")
        assert len(cur.fetchall()) == 2
    agent.rollback()


def test_other_sessions_are_invisible(agent):
    """pg_stat_activity and pg_locks show the agent its own session only,
    however the other session connects."""
    secret = "literal-%d" % time.monotonic_ns()
    direct = itest.connect(itest.direct_url(), autocommit=True)
    other = itest.connect(itest.AGENT_URL, autocommit=True)
    done = []

    def busy(conn):
        with conn.cursor() as cur:
            cur.execute("SELECT pg_sleep(3), %s", (secret,))
        done.append(True)

    threads = [threading.Thread(target=busy, args=(c,)) for c in (direct, other)]
    for t in threads:
        t.start()
    try:
        time.sleep(1)
        for sql in ["SELECT string_agg(query, ' | ') FROM pg_stat_activity",
                    "SELECT count(*) FROM pg_stat_activity",
                    "SELECT string_agg(a::text, ' | ') FROM pg_catalog.pg_stat_activity a",
                    "SELECT count(DISTINCT pid) FROM pg_locks"]:
            got = outcome(agent, sql)
            assert got[0] == "rows", got
            assert secret not in repr(got)
            if "count" in sql:
                assert got[1][0][0] == 1, (sql, got)
        for sql in ["SELECT pg_stat_get_backend_activity(s) FROM pg_stat_get_backend_idset() s",
                    "SELECT * FROM pg_stat_get_activity(NULL)",
                    "SELECT * FROM pg_stat_statements"]:
            got = outcome(agent, sql)
            assert got[0] == "error" and got[1] == "42501", (sql, got)
    finally:
        for t in threads:
            t.join()
        direct.close()
        other.close()
    assert len(done) == 2


def test_secrets_refused(agent):
    for sql in ["SELECT rolpassword FROM pg_authid", "SELECT * FROM pg_shadow",
                "SELECT * FROM pg_catalog.pg_user_mappings", "SELECT * FROM pg_largeobject"]:
        got = outcome(agent, sql)
        assert got[0] == "error" and got[1] == "42501", (sql, got)


def test_scoping_names_are_not_the_agents(agent):
    """A read's filtered catalogs are CTEs named airlock_visible and
    airlock_c<n> of its outermost query. A CTE of the agent's by such a name,
    nearer to a reference, would be read in place of the filter: refused.
    Read twice in one statement, a catalog still shows only the world."""
    for sql in [f"SELECT x FROM (WITH airlock_visible(oid) AS (SELECT pg_catalog.generate_series(1, 100000)::oid)"
                f" SELECT '{HIDDEN}'::regclass::text AS x) s",
                "WITH airlock_visible(oid) AS (SELECT 1::oid) SELECT relname FROM pg_class"
                f" WHERE relname = '{HIDDEN}'",
                "SELECT (WITH airlock_c1 AS (SELECT 'x'::name AS relname) SELECT count(*) FROM airlock_c1)"
                " FROM pg_class"]:
        got = outcome(agent, sql)
        assert got[0] == "error" and got[1] == "0A000", (sql, got)
    got = outcome(agent, "SELECT a.relname FROM pg_class a JOIN pg_class b ON b.oid = a.oid"
                         f" WHERE a.relname IN ('orders', '{HIDDEN}') AND EXISTS (SELECT FROM pg_class c"
                         " WHERE c.relname = a.relname)")
    assert got == ("rows", [("orders",)]), got


def test_current_user_is_the_agent(agent):
    with agent.cursor() as cur:
        cur.execute('SELECT current_user, session_user, current_role, user, "current_user"(),'
                    " pg_catalog.session_user()")
        assert cur.fetchone() == ("agent",) * 6
        assert [d.name for d in cur.description][:4] == ["current_user", "session_user",
                                                          "current_role", "user"]
        cur.execute("SELECT upper(current_user) AS u")
        assert cur.fetchone() == ("AGENT",)
    agent.rollback()


def test_psql_lists_only_allowed(agent):
    r = itest.psql(itest.AGENT_URL, r"\dt")
    assert r.returncode == 0, r.stderr
    assert "orders" in r.stdout and "customers" in r.stdout and "products" in r.stdout
    assert "staff" not in r.stdout
    for name in (HIDDEN, MISSING):
        r = itest.psql(itest.AGENT_URL, r"\d " + name)
        assert "Did not find any relation named" in r.stderr.replace(name, "T"), r
    hidden = itest.psql(itest.AGENT_URL, r"\d " + HIDDEN)
    missing = itest.psql(itest.AGENT_URL, r"\d " + MISSING)
    assert hidden.stderr.replace(HIDDEN, "T") == missing.stderr.replace(MISSING, "T")
    r = itest.psql(itest.AGENT_URL, r"\d orders", r"\di", r"\ds", r"\dv", r"\dn", r"\d+ customers")
    assert r.returncode == 0, r.stderr
    assert "orders_pkey" in r.stdout and "customers_pkey" in r.stdout
    assert "staff" not in r.stdout


def test_sqlalchemy_reflects_only_allowed():
    sqlalchemy = pytest.importorskip("sqlalchemy")
    engine = sqlalchemy.create_engine(itest.AGENT_URL.replace("postgresql://",
                                                              "postgresql+psycopg2://"))
    try:
        insp = sqlalchemy.inspect(engine)
        assert sorted(insp.get_table_names()) == ["customers", "orders", "products"]
        assert not insp.has_table(HIDDEN)
        cols = [c["name"] for c in insp.get_columns("orders")]
        assert cols == ["id", "customer_id", "amount", "note", "created_at"]
        assert insp.get_pk_constraint("orders")["constrained_columns"] == ["id"]
        assert {i["name"] for i in insp.get_indexes("orders")} == {"orders_customer_id"}
        meta = sqlalchemy.MetaData()
        meta.reflect(bind=engine)
        assert sorted(meta.tables) == ["customers", "orders", "products"]
    finally:
        engine.dispose()


def push_keys():
    """validate_pg_scope_push.c's table of key columns: [(relation, column, numeric)]."""
    with open(os.path.join(itest.REPO, "validator", "pg", "validate_pg_scope_push.c")) as f:
        table = f.read().split("} keys[] = {", 1)[1].split("};", 1)[0]
    out = []
    for rel, nums, names in re.findall(r'\{"(\w+)", \{([^}]*)\}, \{([^}]*)\}\}', table):
        out += [(rel, col, True) for col in re.findall(r'"(\w+)"', nums)]
        out += [(rel, col, False) for col in re.findall(r'"(\w+)"', names)]
    return out


def test_key_lookups_a_copy_takes_are_leakproof():
    """A statement's key lookup enters a catalog's fenced copy, where it runs on hidden rows too
    (validate_pg_scope_push.c), only for columns whose equality the backend marks leakproof:
    pg_catalog's "=" between the column's type and itself, and for a numeric column and an
    integer. A column whose equality could raise or tell what it saw must leave the table."""
    keys = push_keys()
    assert len(keys) >= 40, keys
    for rel, col, numeric in keys:
        typ = itest.super_query("SELECT atttypid::regtype FROM pg_attribute WHERE attrelid = 'pg_catalog.%s'::regclass "
                                "AND attname = '%s' AND NOT attisdropped" % (rel, col))
        assert typ, "pg_catalog.%s has no column %s" % (rel, col)
        for right in [typ] + (["integer"] if numeric else []):
            leakproof = itest.super_query(
                "SELECT p.proleakproof FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode "
                "WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprname = '=' "
                "AND o.oprleft = '%s'::regtype AND o.oprright = '%s'::regtype" % (typ.replace("'", "''"), right))
            # No operator for (column, integer): the integer is cast to the column's type, whose own counts.
            assert leakproof == "t" or (right != typ and leakproof == ""), (rel, col, typ, right, leakproof)
