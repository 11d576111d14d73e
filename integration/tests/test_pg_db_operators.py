"""What the backend resolves by name that the statement does not show:
operators the database defines (written, or implied by IN, CASE x WHEN,
USING), functions reached by column notation (o.f is f(o) when o has no
column f), and casts the database created. Each runs a function whose body
airlock never read, with the backend role's grants. The runner's guard,
sent before the statement in its transaction and under its search_path,
refuses the statement when one of them is not built in, not written in C
and not listed in the user's `functions`.

The attacker is `agent` (orders, customers and products; staff_salaries
is outside its world). The objects of op_probe and op_eq, on the
search_path the agent chooses, would each read the salaries. `planned`
lists op_probe.total_of and op_probe.hidden_total. The objects are made
and dropped around this module; the casts, which apply in every schema,
only inside their test."""

from urllib.parse import urlparse

import pytest

import itest
import pgwire

PLANNED_URL = itest.AGENT_URL.replace("agent:agent-secret", "planned:agent-secret")
HOST, PORT = urlparse(itest.AGENT_URL).hostname, urlparse(itest.AGENT_URL).port
outcome = itest.pg_outcome
PATH = "SET search_path = public, op_probe"
EQ_PATH = "SET search_path = public, op_eq, op_probe"


@pytest.fixture(scope="module", autouse=True)
def probes():
    itest.super_query("""
        DROP SCHEMA IF EXISTS op_probe CASCADE;
        CREATE SCHEMA op_probe;
        GRANT USAGE ON SCHEMA op_probe TO airlock_ro;
        CREATE FUNCTION op_probe.total_of(a integer, c integer) RETURNS numeric LANGUAGE plpgsql STABLE AS
            $$BEGIN RETURN (SELECT sum(salary) FROM public.staff_salaries WHERE id <= c); END$$;
        CREATE OPERATOR op_probe.=== (leftarg = integer, rightarg = integer, function = op_probe.total_of);
        CREATE FUNCTION op_probe.text_int_eq(a text, c integer) RETURNS boolean LANGUAGE plpgsql STABLE AS
            $$BEGIN RAISE EXCEPTION 'total %', (SELECT sum(salary) FROM public.staff_salaries); END$$;
        DROP SCHEMA IF EXISTS op_eq CASCADE;
        CREATE SCHEMA op_eq;
        GRANT USAGE ON SCHEMA op_eq TO airlock_ro;
        CREATE OPERATOR op_eq.= (leftarg = text, rightarg = integer, function = op_probe.text_int_eq);
        CREATE FUNCTION op_probe.hidden_total(r anyelement) RETURNS numeric LANGUAGE sql STABLE AS
            $$SELECT sum(salary) FROM public.staff_salaries$$;
        CREATE FUNCTION op_probe.same(integer, integer) RETURNS boolean LANGUAGE internal IMMUTABLE AS 'int4eq';
        CREATE OPERATOR op_probe.=~= (leftarg = integer, rightarg = integer, function = op_probe.same);
        CREATE OPERATOR op_probe.<=> (leftarg = integer, rightarg = integer, function = pg_catalog.int4eq);
    """)
    yield
    itest.super_query("DROP SCHEMA op_eq CASCADE; DROP SCHEMA op_probe CASCADE")


def hidden_total():
    return itest.super_query("SELECT sum(salary) FROM public.staff_salaries")


@pytest.fixture
def agent():
    yield from itest.connected(itest.AGENT_URL)


@pytest.fixture
def planned():
    yield from itest.connected(PLANNED_URL)


def assert_guarded(got, what):
    assert got[0] == "error" and got[1] == "42501", got
    assert "FORBIDDEN_FUNCTION" in got[2] and what in got[2], got
    assert hidden_total() not in repr(got), got


# Each reaches op_probe's function under the search_path public, op_eq, op_probe.
REACHED = [
    ("SELECT 1 === 1000", "operator ==="),
    ("SELECT id FROM public.orders WHERE customer_id === 1000 IS NOT NULL LIMIT 1", "operator ==="),
    ("SELECT 'x' = 1000", "operator ="),
    ("SELECT 'x'::text = 1000", "operator ="),
    ("SELECT CASE 'x' WHEN 1000 THEN 1 END", "operator ="),
    ("SELECT 1 WHERE 'x' IN (1000, 1001)", "operator ="),
    ("SELECT NULLIF('x', 1000)", "operator ="),
    ("SELECT 'x' IS DISTINCT FROM 1000", "operator ="),
    ("SELECT 1 WHERE 'x' = ANY (ARRAY[1000])", "operator ="),
    ("SELECT o.hidden_total FROM public.orders o LIMIT 1", "column notation .hidden_total"),
    ("SELECT orders.hidden_total FROM public.orders LIMIT 1", "column notation .hidden_total"),
    ("SELECT (o).hidden_total FROM public.orders o LIMIT 1", "column notation .hidden_total"),
    ("SELECT (ROW(1, 'a')).hidden_total", "column notation .hidden_total"),
    ("EXPLAIN SELECT 1 === 1000", "operator ==="),
    ("SELECT count(*) FROM (SELECT 1 === 1000) s", "operator ==="),
]


@pytest.mark.parametrize("sql,what", REACHED)
def test_reached_function_is_refused(agent, sql, what):
    with agent.cursor() as cur:
        cur.execute(EQ_PATH)
    assert_guarded(outcome(agent, sql), what)


def test_an_overloaded_name_is_refused_whatever_the_types(agent):
    """The guard goes by name: while op_eq's text = integer is on the path, so is every "=",
    the row filter's and the mask's included (the user's rules keep their meaning)."""
    with agent.cursor() as cur:
        cur.execute(EQ_PATH)
    assert_guarded(outcome(agent, "SELECT id FROM public.orders WHERE id = 1"), "operator =")
    assert outcome(agent, "SELECT 1 + 1") == ("rows", [(2,)])


def test_qualified_operator_outside_the_world(agent):
    """OPERATOR(op_probe.===) names a schema agent cannot see: as one that does not exist."""
    got = outcome(agent, "SELECT 1 OPERATOR(op_probe.===) 1000")
    assert got[0] == "error" and got[1] == "3F000" and 'schema "op_probe" does not exist' in got[2], got


def test_not_on_the_path_is_not_reached(agent):
    """With the default search_path op_probe is not searched: Postgres' own answer, no guard."""
    assert outcome(agent, "SELECT 1 === 1000")[1] == "42883"
    assert outcome(agent, "SELECT CASE 'x' WHEN 'x' THEN 1 END") == ("rows", [(1,)])


def test_copy_cursor_and_extended_protocol_are_guarded(agent):
    with agent.cursor() as cur:
        cur.execute(PATH)
    assert_guarded(outcome(agent, "COPY (SELECT 1 === 1000) TO STDOUT"), "operator ===")
    agent.autocommit = False
    try:
        with agent.cursor() as cur:
            cur.execute("DECLARE c CURSOR FOR SELECT 1 === 1000")
        assert_guarded(outcome(agent, "FETCH ALL FROM c"), "operator ===")
    finally:
        agent.rollback()
        agent.autocommit = True
    c = pgwire.Conn(HOST, PORT)
    try:
        assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
        c.query(PATH)
        got = c.extended("SELECT $1 === 1000", b"1")
    finally:
        c.close()
    errors = [pgwire.error_fields(body) for t, body in got if t == b"E"]
    assert errors and errors[0].get("C") == "42501", got
    assert not [body for t, body in got if t == b"D"], got


def test_builtin_and_c_operators_still_run(agent):
    """An operator whose function is built in or written in C is the server's code: it runs."""
    with agent.cursor() as cur:
        cur.execute(PATH)
    assert outcome(agent, "SELECT 2 <=> 2, 3 =~= 4") == ("rows", [(True, False)])
    got = outcome(agent, "SELECT count(*) FROM public.orders WHERE id IN (1, 2, 3) AND id BETWEEN 1 AND 2")
    assert got == ("rows", [(2,)]), got
    got = outcome(agent, "SELECT o.id FROM public.orders o JOIN public.customers c ON c.id = o.customer_id"
                         " ORDER BY o.id LIMIT 1")
    assert got[0] == "rows" and len(got[1]) == 1, got


def test_listed_functions_run(planned):
    """planned lists op_probe.total_of and op_probe.hidden_total: the operator and the column notation run."""
    with planned.cursor() as cur:
        cur.execute(PATH)
    want = hidden_total()
    got = outcome(planned, "SELECT (1 === 1000)::text, (SELECT o.hidden_total FROM public.orders o LIMIT 1)::text")
    assert got == ("rows", [(want, want)]), got
    # text = integer is not listed.
    with planned.cursor() as cur:
        cur.execute(EQ_PATH)
    assert_guarded(outcome(planned, "SELECT 'x' = 1000"), "operator =")


def test_domain_checks_the_database_defines(planned):
    """A domain's CHECK runs with a cast to it. planned may name op_probe's types (its tables hold
    op_probe.*): a domain whose check calls an unlisted function is refused with the cast, directly
    or through a domain over it; one whose check is built in casts as on Postgres."""
    itest.super_query("""
        CREATE FUNCTION op_probe.leaky_check(v integer) RETURNS boolean LANGUAGE plpgsql STABLE AS
            $$BEGIN RAISE EXCEPTION 'total %', (SELECT sum(salary) FROM public.staff_salaries); END$$;
        CREATE DOMAIN op_probe.leaky_dom AS integer CHECK (op_probe.leaky_check(VALUE));
        CREATE DOMAIN op_probe.over_dom AS op_probe.leaky_dom;
        CREATE DOMAIN op_probe.plain_dom AS integer CHECK (VALUE > 0);
    """)
    try:
        for sql in ("SELECT 1::op_probe.leaky_dom", "SELECT CAST(2 AS op_probe.over_dom)",
                    "SELECT id::op_probe.leaky_dom FROM public.orders LIMIT 1"):
            assert_guarded(outcome(planned, sql), "FORBIDDEN_FUNCTION")
        assert outcome(planned, "SELECT 5::op_probe.plain_dom") == ("rows", [(5,)])
        assert outcome(planned, "SELECT (-5)::op_probe.plain_dom")[1] == "23514"
    finally:
        itest.super_query("DROP DOMAIN IF EXISTS op_probe.over_dom, op_probe.leaky_dom, op_probe.plain_dom;"
                          " DROP FUNCTION IF EXISTS op_probe.leaky_check(integer)")


@pytest.fixture
def leaky_types():
    """A domain whose check reads the salaries, and types made of it: an array, a composite, a
    table's row type and a range. Each runs the check when a value is converted to it."""
    itest.super_query("""
        CREATE FUNCTION op_probe.leaky_check(v integer) RETURNS boolean LANGUAGE plpgsql STABLE AS
            $$BEGIN RAISE EXCEPTION 'total %', (SELECT sum(salary) FROM public.staff_salaries); END$$;
        CREATE DOMAIN op_probe.leaky_dom AS integer CHECK (op_probe.leaky_check(VALUE));
        CREATE TYPE op_probe.wrap AS (v op_probe.leaky_dom);
        CREATE TABLE op_probe.holder (v op_probe.leaky_dom);
        GRANT SELECT ON op_probe.holder TO airlock_ro;
        CREATE TYPE op_probe.leaky_range AS RANGE (subtype = op_probe.leaky_dom);
        CREATE DOMAIN op_probe.plain_dom AS integer CHECK (VALUE > 0);
        CREATE TYPE op_probe.plain_wrap AS (v op_probe.plain_dom);
    """)
    yield {name: int(itest.super_query("SELECT '%s'::regtype::oid" % name))
           for name in ("op_probe.leaky_dom", "op_probe.leaky_dom[]", "op_probe.wrap", "op_probe.holder",
                        "op_probe.leaky_range", "op_probe.plain_dom", "op_probe.plain_wrap")}
    itest.super_query("DROP TABLE IF EXISTS op_probe.holder; DROP TYPE IF EXISTS op_probe.wrap,"
                      " op_probe.leaky_range, op_probe.plain_wrap; DROP DOMAIN IF EXISTS op_probe.leaky_dom,"
                      " op_probe.plain_dom; DROP FUNCTION IF EXISTS op_probe.leaky_check(integer)")


MADE_OF_DOMAIN = [
    "SELECT '{1}'::op_probe.leaky_dom[]",
    "SELECT ARRAY[1]::op_probe.leaky_dom[]",
    "SELECT '(1)'::op_probe.wrap",
    "SELECT ROW(1)::op_probe.wrap",
    "SELECT '(1)'::op_probe.holder",
    "SELECT json_populate_record(NULL::op_probe.holder, '{\"v\": 1}')",
    "SELECT '[1,3)'::op_probe.leaky_range",
    "SELECT '{[1,3)}'::op_probe.leaky_multirange",
]


@pytest.mark.parametrize("sql", MADE_OF_DOMAIN)
def test_types_made_of_a_checked_domain(planned, leaky_types, sql):
    """A cast to an array, composite, row or range type converts to the domain inside it too."""
    assert_guarded(outcome(planned, sql), "domain")


def test_plain_domains_inside_types_still_cast(planned, leaky_types):
    assert outcome(planned, "SELECT ('(5)'::op_probe.plain_wrap).v") == ("rows", [(5,)])
    assert outcome(planned, "SELECT ('(-5)'::op_probe.plain_wrap).v")[1] == "23514"


def bound(user, sql, value, oid):
    """sql run over Parse/Bind/Execute with one text parameter of type oid: (SQLSTATE, message) or the rows."""
    c = pgwire.Conn(HOST, PORT)
    try:
        assert c.login(user, itest.AGENT_PASSWORD, "shop") is None
        msgs = c.extended(sql, value, type_oid=oid)
    finally:
        c.close()
    errors = [pgwire.error_fields(body) for t, body in msgs if t == b"E"]
    if errors:
        return errors[0].get("C"), errors[0].get("M")
    return [body for t, body in msgs if t == b"D"]


@pytest.mark.parametrize("name, value", [("op_probe.leaky_dom", b"1"), ("op_probe.leaky_dom[]", b"{1}"),
                                         ("op_probe.wrap", b"(1)"), ("op_probe.holder", b"(1)"),
                                         ("op_probe.leaky_range", b"[1,3)")])
def test_parameters_of_a_checked_domain(leaky_types, name, value):
    """A value bound to a parameter whose type (given in Parse) is such a domain, or made of one,
    runs the check when the backend reads it: refused before it does."""
    got = bound("planned", "SELECT $1 IS NULL", value, leaky_types[name])
    assert got[0] == "42501" and "FORBIDDEN_FUNCTION" in got[1] and "domain" in got[1], got
    assert hidden_total() not in repr(got), got


def test_parameters_of_a_plain_domain(leaky_types):
    oid = leaky_types["op_probe.plain_dom"]
    assert len(bound("planned", "SELECT $1", b"5", oid)) == 1
    assert bound("planned", "SELECT $1", b"-5", oid)[0] == "23514"


def test_casts_the_database_defines(agent):
    """A cast with an unlisted function: an explicit one where the statement casts to its target,
    an implicit one wherever Postgres could apply it. Both apply in every schema, so they live
    only inside this test."""
    itest.super_query("""
        CREATE FUNCTION op_probe.leak_num(c public.customers) RETURNS numeric LANGUAGE sql STABLE AS
            $$SELECT sum(salary) FROM public.staff_salaries$$;
        CREATE CAST (public.customers AS numeric) WITH FUNCTION op_probe.leak_num(public.customers);
    """)
    try:
        assert_guarded(outcome(agent, "SELECT c::numeric FROM customers c LIMIT 1"), "cast")
        assert_guarded(outcome(agent, "SELECT CAST(c AS decimal(10, 2)) FROM customers c LIMIT 1"), "cast")
        assert_guarded(outcome(agent, "SELECT \"numeric\"(c) FROM customers c LIMIT 1"), "cast")
        # No cast to numeric written: the explicit cast cannot apply.
        assert outcome(agent, "SELECT id::text FROM customers WHERE id = 1") == ("rows", [("1",)])
        itest.super_query("""
            CREATE FUNCTION op_probe.leak_text(c public.customers) RETURNS text LANGUAGE sql STABLE AS
                $$SELECT sum(salary)::text FROM public.staff_salaries$$;
            CREATE CAST (public.customers AS text) WITH FUNCTION op_probe.leak_text(public.customers)
                AS IMPLICIT;
        """)
        assert_guarded(outcome(agent, "SELECT length(c) FROM customers c LIMIT 1"), "cast")
        # Wherever an implicit cast could apply (here the "=") ...
        assert_guarded(outcome(agent, "SELECT email FROM customers WHERE id = 1"), "cast")
        # ... but not where none could.
        assert outcome(agent, "SELECT 'ok'") == ("rows", [("ok",)])
    finally:
        itest.super_query("DROP CAST IF EXISTS (public.customers AS numeric);"
                          " DROP CAST IF EXISTS (public.customers AS text);"
                          " DROP FUNCTION IF EXISTS op_probe.leak_num(public.customers),"
                          " op_probe.leak_text(public.customers)")
    assert outcome(agent, "SELECT id FROM customers WHERE id = 1") == ("rows", [(1,)])
