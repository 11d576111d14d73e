"""One role in the agent's world, played as an attacker over the real
protocol: the backend role (airlock_ro) and every other role (postgres)
must not be named anywhere the agent can read. The one role there is is
called as the airlock user and keeps the backend role's oid, so joins from
owners to pg_roles still find it; owners are that role; ACLs name no one;
the backend's address and the database's size are not known."""

import pytest

import itest

pytestmark = pytest.mark.usefixtures("snapshot_guard")

BACKEND = "airlock_ro"

# Every place a role name used to show: none may name the backend role.
SWEEPS = [
    "SELECT string_agg(r::text, ',') FROM pg_roles r",
    "SELECT string_agg(u::text, ',') FROM pg_user u",
    "SELECT string_agg(rolname, ',') FROM pg_catalog.pg_roles",
    "SELECT string_agg(pg_get_userbyid(relowner)::text, ',') FROM pg_class",
    "SELECT string_agg(pg_catalog.pg_get_userbyid(g)::text, ',') FROM generate_series(1, 20000) g",
    "SELECT string_agg(relacl::text, ',') FROM pg_class",
    "SELECT string_agg(a.grantee::text || a.grantor::text, ',') FROM pg_class c, aclexplode(c.relacl) a",
    "SELECT string_agg(nspacl::text, ',') FROM pg_namespace",
    "SELECT string_agg(d::text, ',') FROM pg_database d",
    "SELECT string_agg(proacl::text, ',') FROM pg_proc",
    "SELECT string_agg(typacl::text, ',') FROM pg_type",
    "SELECT string_agg(attacl::text, ',') FROM pg_attribute",
    "SELECT string_agg(t::text, ',') FROM pg_tables t",
    "SELECT string_agg(s::text, ',') FROM pg_sequences s",
    "SELECT string_agg(t::text, ',') FROM information_schema.table_privileges t",
    "SELECT string_agg(t::text, ',') FROM information_schema.column_privileges t",
    "SELECT string_agg(t::text, ',') FROM information_schema.role_table_grants t",
    "SELECT string_agg(t::text, ',') FROM information_schema.role_column_grants t",
    "SELECT string_agg(t::text, ',') FROM information_schema.routine_privileges t",
    "SELECT string_agg(t::text, ',') FROM information_schema.usage_privileges t",
    "SELECT string_agg(t::text, ',') FROM information_schema.udt_privileges t",
    "SELECT string_agg(t::text, ',') FROM information_schema.enabled_roles t",
    "SELECT string_agg(t::text, ',') FROM information_schema.applicable_roles t",
    "SELECT string_agg(t::text, ',') FROM information_schema.administrable_role_authorizations t",
    "SELECT string_agg(t::text, ',') FROM information_schema.schemata t",
    "SELECT string_agg(a::text, ',') FROM pg_stat_activity a",
    "SELECT string_agg(m::text, ',') FROM pg_auth_members m",
    "SELECT string_agg(s::text, ',') FROM pg_db_role_setting s",
    "SELECT string_agg(g::text, ',') FROM pg_group g",
    "SELECT current_setting('session_authorization'), current_setting('role'),"
    " pg_catalog.current_setting('SESSION_AUTHORIZATION', true)",
    "SELECT string_agg(current_setting(n), ',') FROM (VALUES ('session_authorization'), ('role')) v(n)",
]


def outcome(conn, sql):
    return itest.pg_outcome(conn, sql, whole=True)


@pytest.fixture(scope="module")
def backend_oid():
    return itest.fetch_all(itest.direct_url(), "SELECT oid FROM pg_roles WHERE rolname = current_user")[0][0]


@pytest.mark.parametrize("sweep", SWEEPS)
def test_no_role_but_the_agent_is_named(agent_ac, sweep):
    got = outcome(agent_ac, sweep)
    assert got[0] == "rows", got
    assert BACKEND not in repr(got), (sweep, got)
    # postgres is also a database's name; as a role it must not show.
    assert "postgres=" not in repr(got) and "/postgres" not in repr(got), (sweep, got)


WITNESS = "one_role_witness"


@pytest.fixture(scope="module")
def witness():
    """A role other than the backend role holding a grant on each kind of
    object the agent sees (a column of an allowed table, the schema, the
    database, a language, a function), so its name is in each ACL a read
    could print."""
    itest.super_query(
        "DROP ROLE IF EXISTS %(w)s; CREATE ROLE %(w)s NOLOGIN;"
        " GRANT SELECT (id, amount) ON public.orders TO %(w)s; GRANT USAGE ON SCHEMA public TO %(w)s;"
        " GRANT CONNECT ON DATABASE shop TO %(w)s; GRANT USAGE ON LANGUAGE plpgsql TO %(w)s;"
        " GRANT EXECUTE ON FUNCTION pg_catalog.pg_backend_pid() TO %(w)s" % {"w": WITNESS})
    yield WITNESS
    itest.super_query(
        "REVOKE ALL (id, amount) ON public.orders FROM %(w)s; REVOKE ALL ON SCHEMA public FROM %(w)s;"
        " REVOKE ALL ON DATABASE shop FROM %(w)s; REVOKE ALL ON LANGUAGE plpgsql FROM %(w)s;"
        " REVOKE ALL ON FUNCTION pg_catalog.pg_backend_pid() FROM %(w)s; DROP ROLE %(w)s" % {"w": WITNESS})


def test_no_catalog_relation_names_another_role(agent_ac, witness):
    """Every relation of pg_catalog and information_schema of the running
    backend, read whole as agent: no row names the backend role, a role
    holding grants on what the agent sees, or postgres as a grantor or
    grantee. A relation a newer server adds is swept as it appears."""
    assert witness in itest.super_query("SELECT attacl::text FROM pg_attribute"
                                        " WHERE attrelid = 'public.orders'::regclass AND attname = 'id'")
    rels = itest.super_query(
        "SELECT n.nspname || '.' || quote_ident(c.relname) FROM pg_catalog.pg_class c"
        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'v', 'm', 'p', 'f')"
        " ORDER BY 1").splitlines()
    # Counted in the backend: a whole relation would pass max_rows. The pattern is cut in pieces,
    # so the statement's own text (in pg_stat_activity, pg_cursors, an error) holds no name.
    # "/postgres" as an aclitem's grantor, not a path (/etc/postgresql/... of the server's TLS files).
    pattern = "%s|%s|postgres=|/postgres([^q]|$)" % (BACKEND, witness)
    pattern = "(" + " || ".join("'%s'" % pattern[i:i + 3] for i in range(0, len(pattern), 3)) + ")"
    named, read = [], 0
    for rel in rels:
        got = outcome(agent_ac, "SELECT count(*) FILTER (WHERE r::text ~ %s) FROM %s r" % (pattern, rel))
        if got[0] == "rows":
            read += 1
            if got[1] != [(0,)]:
                named.append("%s: %s" % (rel, got))
        elif BACKEND in repr(got) or witness in repr(got):
            named.append("%s: %s" % (rel, got))
    # Most relations are readable (the rest are refused or need a privilege the agent has not).
    assert read > 150, read
    print("role sweep: %d relations, %d name another role" % (len(rels), len(named)))
    assert not named, "\n".join(named)


def test_pg_attribute_reads_with_the_backends_columns(agent_ac):
    """pg_attribute is read through a select list written for Postgres 15
    (validate_pg_catalog.c): the backend's relation must have exactly those
    columns, in that order and of those types."""
    sql = "SELECT * FROM pg_catalog.pg_attribute LIMIT 0"
    with agent_ac.cursor() as cur:
        cur.execute(sql)
        through = [(d.name, d.type_code) for d in cur.description]
    conn = itest.connect(itest.direct_url(), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            direct = [(d.name, d.type_code) for d in cur.description]
    finally:
        conn.close()
    assert through == direct


def test_the_one_role(agent_ac, backend_oid):
    def one(sql):
        got = outcome(agent_ac, sql)
        assert got[0] == "rows", (sql, got)
        return got[1]

    assert one("SELECT rolname, oid FROM pg_roles") == [("agent", backend_oid)]
    assert one("SELECT usename, usesysid FROM pg_user") == [("agent", backend_oid)]
    assert one("SELECT role_name FROM information_schema.enabled_roles") == [("agent",)]
    # Owners are that role, and joins from owners to it still hold.
    assert one("SELECT c.relname, r.rolname, pg_get_userbyid(c.relowner) FROM pg_class c"
               " JOIN pg_roles r ON r.oid = c.relowner WHERE c.relname = 'orders'") == [("orders", "agent", "agent")]
    assert one("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'") == [("agent",)]
    assert one("SELECT DISTINCT grantor, grantee FROM information_schema.table_privileges"
               " WHERE table_schema = 'public'") == [("agent", "agent")]
    assert one("SELECT pg_get_userbyid(10)") == [("unknown (OID=10)",)]
    assert one("SELECT current_setting('session_authorization'), current_setting('role'),"
               " current_setting('is_superuser')") == [("agent", "none", "off")]
    # The session's own row only, named as the agent, over no address.
    assert one("SELECT usename, client_addr, client_hostname, client_port FROM pg_stat_activity") == \
        [("agent", None, None, -1)]
    assert one("SELECT inet_server_addr(), inet_server_port(), inet_client_addr(), inet_client_port()") == \
        [(None, None, None, None)]
    # The database's size would tell the hidden tables' sizes from the visible ones'.
    assert one("SELECT pg_database_size('shop'), pg_database_size(current_database()),"
               " pg_tablespace_size('pg_default')") == [(None, None, None)]
    with agent_ac.cursor() as cur:
        cur.execute("SHOW session_authorization")
        assert cur.fetchone() == ("agent",)


def test_psql_owner_columns_name_the_agent():
    r = itest.psql(itest.AGENT_URL, r"\dt", r"\dn", r"\l", r"\dp orders", r"\du", r"\ds")
    assert r.returncode == 0, r.stderr
    assert BACKEND not in r.stdout, r.stdout
    assert "| agent" in r.stdout, r.stdout
    assert "postgres=" not in r.stdout and "/postgres" not in r.stdout, r.stdout


def test_role_name_functions_know_one_role(agent_ac):
    """The agent's own name is the one role; any other role's name, the
    backend role's included, answers as a role that does not exist."""
    with agent_ac.cursor() as cur:
        cur.execute("SELECT has_table_privilege('agent', 'orders', 'select'),"
                    " has_table_privilege(current_user, 'orders', 'insert'),"
                    " pg_has_role('agent', 'agent', 'member'), pg_has_role(current_user, 'usage'),"
                    " has_schema_privilege('agent', 'public', 'usage'),"
                    " has_column_privilege('agent', 'orders', 'id', 'select')")
        assert cur.fetchone() == (True, False, True, True, True, True)
    for name in (BACKEND, "postgres", "no_such_role_q7"):
        for sql in ["SELECT pg_has_role('%s', 'member')", "SELECT has_table_privilege('%s', 'orders', 'select')",
                    "SELECT pg_has_role('agent', '%s', 'usage')"]:
            got = outcome(agent_ac, sql % name)
            assert got[0] == "error" and got[1] == "42704", (sql % name, got)
            assert ('role "%s" does not exist' % name) in got[2], got


def test_role_name_computed_at_run_time_knows_one_role(agent_ac):
    """A role name the statement computes cannot be refused before it runs: any name but the agent's reads
    as unknown (NULL), a real role's (the backend role, postgres) exactly as a missing one's."""
    answers = {}
    for name in (BACKEND, "postgres", "pg_read_all_data", "no_such_role_q7"):
        split = "'%s' || '%s'" % (name[:2], name[2:])
        answers[name] = [outcome(agent_ac, sql % split) for sql in (
            "SELECT pg_has_role(%s, 'member')", "SELECT pg_has_role('agent', %s, 'usage')",
            "SELECT has_table_privilege(%s, 'orders', 'select')",
            "SELECT pg_has_role(r, 'member') FROM (SELECT %s AS r) s",
            "SELECT count(*) FROM pg_class WHERE pg_has_role(%s, 'usage')")]
    assert len({repr(a) for a in answers.values()}) == 1, answers
    assert answers["postgres"][0] == ("rows", [(None,)]), answers
    with agent_ac.cursor() as cur:
        cur.execute("SELECT pg_has_role('ag' || 'ent', 'member'), has_table_privilege('pub' || 'lic', 'orders',"
                    " 'select')")
        assert cur.fetchone() == (True, False)
