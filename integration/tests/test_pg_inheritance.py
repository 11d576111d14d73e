"""A table read without ONLY reads its inheritance children and partitions,
and Postgres checks the grant and the row security of the table named,
never a child's. An agent allowed a parent must not read, through it, the
rows of a child it is not allowed, or a child's rows past the child's own
row filter. The runner's guard refuses such a read (TABLE_NOT_ALLOWED);
FROM ONLY reads the parent's own rows, and a parent whose descendants are
all allowed, unruled, reads as Postgres reads it.

The attacker is this module's agent: inh_probe.parent and its child
open_child, the partitioned measure with its partition m_2025, and
ruled_child with a filter of its own; secret_child (under open_child, so
two levels down) and m_secret (a partition) are outside its world."""

import pytest

import itest
from private_airlockd import PrivateAirlockd

SECRET = "salary-4242"


@pytest.fixture(scope="module", autouse=True)
def probes():
    itest.super_query("""
        DROP SCHEMA IF EXISTS inh_probe CASCADE;
        CREATE SCHEMA inh_probe;
        GRANT USAGE ON SCHEMA inh_probe TO airlock_ro;
        CREATE TABLE inh_probe.parent (id int, note text);
        CREATE TABLE inh_probe.open_child () INHERITS (inh_probe.parent);
        CREATE TABLE inh_probe.secret_child (extra text) INHERITS (inh_probe.open_child);
        CREATE TABLE inh_probe.lone (id int, note text);
        CREATE TABLE inh_probe.lone_child () INHERITS (inh_probe.lone);
        CREATE TABLE inh_probe.filtered (id int, note text);
        CREATE TABLE inh_probe.ruled_child () INHERITS (inh_probe.filtered);
        CREATE TABLE inh_probe.measure (id int, note text) PARTITION BY RANGE (id);
        CREATE TABLE inh_probe.m_2025 PARTITION OF inh_probe.measure FOR VALUES FROM (0) TO (100);
        CREATE TABLE inh_probe.m_secret PARTITION OF inh_probe.measure FOR VALUES FROM (100) TO (200);
        CREATE TABLE inh_probe.whole (id int, note text) PARTITION BY RANGE (id);
        CREATE TABLE inh_probe.w_low PARTITION OF inh_probe.whole FOR VALUES FROM (0) TO (100);
        CREATE TABLE inh_probe.w_high PARTITION OF inh_probe.whole FOR VALUES FROM (100) TO (200);
        INSERT INTO inh_probe.parent VALUES (1, 'parent row');
        INSERT INTO inh_probe.open_child VALUES (2, 'open row');
        INSERT INTO inh_probe.secret_child VALUES (3, '%(s)s', 'x');
        INSERT INTO inh_probe.lone VALUES (1, 'lone row');
        INSERT INTO inh_probe.lone_child VALUES (2, 'lone child row');
        INSERT INTO inh_probe.filtered VALUES (1, 'filtered row');
        INSERT INTO inh_probe.ruled_child VALUES (2, '%(s)s'), (3, 'shown');
        INSERT INTO inh_probe.measure VALUES (5, 'low'), (150, '%(s)s');
        INSERT INTO inh_probe.whole VALUES (5, 'low'), (150, 'high');
        GRANT SELECT ON ALL TABLES IN SCHEMA inh_probe TO airlock_ro;
    """ % {"s": SECRET})
    yield
    itest.super_query("DROP SCHEMA inh_probe CASCADE")


@pytest.fixture(scope="module")
def private():
    tables = ",\n    ".join("inh_probe." + t for t in (
        "parent", "open_child", "lone", "lone_child", "filtered", "ruled_child", "measure", "m_2025", "whole",
        "w_low", "w_high"))
    d = PrivateAirlockd("inherit", {"pool_min": 0}, uid_base=1002500000, sections={"user agent": {
        "tables": "public.orders, %s, pg_catalog.*, information_schema.*" % tables,
        "filter inh_probe.ruled_child": "note <> '%s'" % SECRET}})
    d.start()
    yield d
    assert d.stop() in (0, -15)


@pytest.fixture
def agent(private):
    conn = private.connect()
    yield conn
    conn.close()


def refused(got, table):
    assert got[0] == "error" and got[1] == "42501", got
    assert "TABLE_NOT_ALLOWED" in got[2] and table in got[2], got
    assert SECRET not in repr(got) and "secret_child" not in repr(got) and "m_secret" not in repr(got), got


READS = [
    ("SELECT id, note FROM inh_probe.parent", "parent"),
    ("SELECT count(*) FROM inh_probe.parent", "parent"),
    ("SELECT note FROM inh_probe.open_child", "open_child"),
    ("SELECT p.note FROM inh_probe.parent p JOIN public.orders o ON o.id = p.id", "parent"),
    ("SELECT * FROM (SELECT note FROM inh_probe.parent) s", "parent"),
    ("SELECT note FROM public.orders o, LATERAL (SELECT note FROM inh_probe.parent) x LIMIT 1", "parent"),
    ("SELECT 1 WHERE EXISTS (SELECT FROM inh_probe.parent WHERE note = 'x')", "parent"),
    ("WITH c AS (SELECT note FROM inh_probe.parent) SELECT * FROM c", "parent"),
    ("SELECT note FROM inh_probe.measure", "measure"),
    ("SELECT note FROM inh_probe.measure WHERE id >= 100", "measure"),
    ("SELECT note FROM inh_probe.filtered", "filtered"),
    ("SELECT x.note FROM (WITH parent AS (SELECT 'cte' AS note) SELECT note FROM parent) x, inh_probe.parent y",
     "parent"),
    ("TABLE inh_probe.parent", "parent"),
]


@pytest.mark.parametrize("sql,table", READS)
def test_a_read_through_a_parent_is_refused(agent, sql, table):
    refused(itest.pg_outcome(agent, sql), table)


def test_unqualified_name_under_a_search_path(agent):
    with agent.cursor() as cur:
        cur.execute("SET search_path = inh_probe, public")
    refused(itest.pg_outcome(agent, "SELECT note FROM parent"), "parent")


def test_copy(private):
    """COPY (SELECT ...) reads as the SELECT does; COPY table TO, as Postgres copies it, the table's own rows."""
    got = itest.psql(private.url(), r"\copy (SELECT note FROM inh_probe.parent) TO STDOUT")
    assert got.returncode != 0 and SECRET not in got.stdout and "TABLE_NOT_ALLOWED" in got.stderr, got
    got = itest.psql(private.url(), r"\copy inh_probe.parent TO STDOUT")
    assert got.returncode == 0 and got.stdout == "1\tparent row\n", got


def test_only_reads_the_parents_own_rows(agent):
    assert itest.pg_outcome(agent, "SELECT id, note FROM ONLY inh_probe.parent") == ("rows", [(1, "parent row")])
    assert itest.pg_outcome(agent, "SELECT note FROM ONLY inh_probe.filtered ORDER BY id") == (
        "rows", [("filtered row",)])


def test_allowed_descendants_read_as_postgres_reads_them(agent):
    assert itest.pg_outcome(agent, "SELECT id, note FROM inh_probe.lone ORDER BY id") == (
        "rows", [(1, "lone row"), (2, "lone child row")])
    assert itest.pg_outcome(agent, "SELECT id, note FROM inh_probe.whole ORDER BY id") == (
        "rows", [(5, "low"), (150, "high")])
    assert itest.pg_outcome(agent, "SELECT note FROM inh_probe.ruled_child ORDER BY id") == ("rows", [("shown",)])
    assert itest.pg_outcome(agent, "SELECT note FROM inh_probe.m_2025") == ("rows", [("low",)])


def test_a_hidden_child_is_not_readable_by_name(agent):
    got = itest.pg_outcome(agent, "SELECT * FROM inh_probe.secret_child")
    missing = itest.pg_outcome(agent, "SELECT * FROM inh_probe.no_such_child")
    assert got[0] == "error" and got[:2] == missing[:2], got
    assert got[2].replace("secret_child", "X") == missing[2].replace("no_such_child", "X")
