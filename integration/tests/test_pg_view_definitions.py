"""A view's definition is text that names what the view reads. An allowed
view over a hidden table, a column a rule hides or a function outside the
world would name it through pg_get_viewdef, pg_views, pg_matviews,
information_schema.views or pg_rewrite's trees: its definition reads as
NULL there, as a view the backend role does not own shows it. A view that
reads only the world keeps its definition. `planned` allows
viewdef_test.*; the schema is made and dropped around this module."""

import pytest

import itest

PLANNED_URL = itest.AGENT_URL.replace("agent:agent-secret", "planned:agent-secret")
SCHEMA = "viewdef_test"

outcome = itest.pg_outcome


@pytest.fixture(scope="module", autouse=True)
def views():
    itest.super_query("""
        DROP SCHEMA IF EXISTS viewdef_test CASCADE;
        CREATE SCHEMA viewdef_test;
        CREATE FUNCTION viewdef_test.helper_fn(int) RETURNS int LANGUAGE sql AS 'SELECT 1';
        CREATE VIEW viewdef_test.reads_hidden AS SELECT id, name FROM public.staff_salaries;
        CREATE VIEW viewdef_test.reads_world AS SELECT id, amount FROM public.orders WHERE amount > 900;
        CREATE VIEW viewdef_test.reads_helper AS SELECT viewdef_test.helper_fn(1) AS x;
        CREATE MATERIALIZED VIEW viewdef_test.mat_hidden AS SELECT count(*) AS n FROM public.staff_salaries;
        GRANT USAGE ON SCHEMA viewdef_test TO airlock_ro;
        GRANT SELECT ON ALL TABLES IN SCHEMA viewdef_test TO airlock_ro;
    """)
    yield
    itest.super_query("DROP SCHEMA viewdef_test CASCADE")


@pytest.fixture
def planned():
    conn = itest.connect(PLANNED_URL, autocommit=True)
    yield conn
    conn.close()


HIDING = ["reads_hidden", "reads_helper"]


@pytest.mark.parametrize("view", HIDING)
def test_definition_that_names_outside_the_world_reads_null(planned, view):
    rel = "'{}.{}'".format(SCHEMA, view)
    for sql in ["SELECT pg_get_viewdef({r}), pg_get_viewdef({r}::regclass, true)",
                "SELECT pg_get_viewdef({r}::regclass::oid)",
                "SELECT definition FROM pg_views WHERE schemaname = '{s}' AND viewname = '{v}'",
                "SELECT view_definition FROM information_schema.views WHERE table_name = '{v}'"]:
        got = outcome(planned, sql.format(r=rel, s=SCHEMA, v=view))
        assert got[0] == "rows" and got[1] and all(x is None for x in got[1][0]), (sql, got)
    got = outcome(planned, "SELECT ev_action IS NULL, ev_qual IS NULL FROM pg_rewrite"
                           " WHERE ev_class = {}::regclass".format(rel))
    assert got == ("rows", [(True, True)]), got


def test_materialized_view_definition_reads_null(planned):
    got = outcome(planned, "SELECT definition FROM pg_matviews WHERE matviewname = 'mat_hidden'")
    assert got == ("rows", [(None,)]), got


def test_no_catalog_text_names_the_hidden_table(planned):
    for sql in ["SELECT count(*) FROM pg_views WHERE definition LIKE '%staff%'",
                "SELECT count(*) FROM pg_rewrite WHERE ev_action::text LIKE '%salary%'",
                "SELECT count(*) FROM pg_views v WHERE pg_get_viewdef((v.schemaname || '.' || v.viewname)::regclass)"
                " LIKE '%staff%' AND v.schemaname = 'viewdef_test'"]:
        got = outcome(planned, sql)
        assert got == ("rows", [(0,)]), (sql, got)


def test_definition_over_the_world_is_kept(planned):
    got = outcome(planned, "SELECT pg_get_viewdef('viewdef_test.reads_world'),"
                           " (SELECT definition FROM pg_views WHERE viewname = 'reads_world')")
    assert got[0] == "rows", got
    direct, listed = got[1][0]
    assert direct and "orders" in direct and direct == listed, got
    got = outcome(planned, "SELECT count(*) FROM viewdef_test.reads_world")
    assert got[0] == "rows", got
