"""An error as an oracle over hidden rows, played as an attacker: a
condition that raises only on the row it looks for (a division by zero
computed from a column, so Postgres cannot fold it before the scan; on
MariaDB, EXP(1000) out of range). Were it to run before airlock's filter,
the statement would fail for a hidden table, column or row and succeed
for a missing one. The filtered catalogs and a rule's table must answer
both alike, over both protocols: the filter decides first."""

import psycopg2
import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd

pytestmark = pytest.mark.usefixtures("snapshot_guard", "my_snapshot_guard")

HIDDEN, MISSING = "staff_salaries", "no_such_table_q7"

# {n}: the hidden name or the missing one; each raises only where the name matches.
CATALOG_PROBES = [
    "SELECT count(*) FROM pg_stats WHERE CASE WHEN tablename = '{n}' THEN 1/(length(tablename)*0) ELSE 1 END = 1",
    "SELECT count(*) FROM pg_class WHERE CASE WHEN relname = '{n}' THEN 1/(length(relname)*0) ELSE 1 END = 1",
    "SELECT count(*) FROM pg_catalog.pg_type WHERE CASE WHEN typname = '{n}' THEN 1/(typlen*0) ELSE 1 END = 1",
    "SELECT count(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace"
    " WHERE CASE WHEN c.relname = '{n}' THEN 1/(c.relnatts*0) ELSE 1 END = 1",
    "SELECT count(*) FROM information_schema.tables WHERE CASE WHEN table_name = '{n}'"
    " THEN 1/(length(table_name)*0) ELSE 1 END = 1",
    "SELECT count(*) FROM information_schema.columns WHERE CASE WHEN table_name = '{n}'"
    " THEN 1/(ordinal_position*0) ELSE 1 END = 1",
    "SELECT count(*) FROM pg_stat_user_tables WHERE CASE WHEN relname = '{n}' THEN 1/(length(relname)*0)"
    " ELSE 1 END = 1",
    "SELECT count(*) FROM pg_indexes WHERE CASE WHEN tablename = '{n}' THEN 1/(length(indexname)*0) ELSE 1 END = 1",
    "SELECT count(*) FROM pg_constraint WHERE CASE WHEN conname = '{n}_pkey' THEN 1/(length(conname)*0)"
    " ELSE 1 END = 1",
]

# A hidden column's name against a missing one's.
COLUMN_PROBES = [
    "SELECT count(*) FROM pg_attribute WHERE CASE WHEN attname = '{c}' THEN 1/(attnum*0) ELSE 1 END = 1",
    "SELECT count(*) FROM pg_stats WHERE CASE WHEN attname = '{c}' THEN 1/(length(attname)*0) ELSE 1 END = 1",
    "SELECT count(*) FROM information_schema.columns WHERE CASE WHEN column_name = '{c}'"
    " THEN 1/(ordinal_position*0) ELSE 1 END = 1",
]


outcome = itest.pg_outcome


@pytest.mark.parametrize("probe", CATALOG_PROBES)
def test_catalog_condition_never_sees_a_hidden_table(agent_ac, probe):
    hidden = outcome(agent_ac, probe.format(n=HIDDEN))
    missing = outcome(agent_ac, probe.format(n=MISSING))
    assert hidden == missing, (hidden, missing)
    assert hidden[0] == "rows", hidden


@pytest.mark.parametrize("probe", COLUMN_PROBES)
def test_catalog_condition_never_sees_a_hidden_column(agent_ac, probe):
    hidden = outcome(agent_ac, probe.format(c="salary"))
    missing = outcome(agent_ac, probe.format(c="no_such_column_q7"))
    assert hidden == missing, (hidden, missing)


# A filter that costs Postgres more than the attacker's condition: the cost order alone would run the
# condition first. It keeps the same rows as the support user's own (customer_id <= 100).
COSTLY_FILTER = "abs(customer_id) + abs(customer_id) - customer_id <= 100"
COSTLY_MY_FILTER = "ABS(customer_id) + ABS(customer_id) - customer_id <= 100"


@pytest.fixture(scope="module")
def private():
    d = PrivateAirlockd("oracle", {"pool_min": 0}, uid_base=1001900000,
                        sections={"user support": {"filter public.orders": COSTLY_FILTER,
                                                   "mysql_filter shop.orders": COSTLY_MY_FILTER}})
    d.start()
    yield d
    assert d.stop() in (0, -15)


@pytest.fixture(scope="module")
def costly(private):
    conn = psycopg2.connect(private.url("support", "support-secret"), connect_timeout=10)
    conn.autocommit = True
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def costly_my(private):
    conn = pymysql.connect(host="127.0.0.1", port=private.my_port, user="support", password="support-secret",
                           database="shop", autocommit=True, connect_timeout=10, read_timeout=60)
    yield conn
    conn.close()


def my_outcome(conn, sql):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", cur.fetchall())
    except pymysql.MySQLError as e:
        return ("error",) + tuple(e.args)


@pytest.mark.parametrize("probe", [
    "SELECT count(*) FROM orders WHERE 1/(customer_id - {v}) = 0",
    # Not a join on customer_id: customers (unfiltered) has every id, and a condition may be moved to it.
    "SELECT count(*) FROM orders o JOIN (SELECT 1 AS one) x ON x.one = 1 WHERE 1/(o.customer_id - {v}) = 0",
    "SELECT count(*) FROM (SELECT * FROM orders) o WHERE 1/(customer_id - {v}) = 0",
    "SELECT EXISTS (SELECT 1 FROM orders WHERE 1/(customer_id - {v}) = 0)",
])
def test_rule_filter_decides_before_the_condition(costly, probe):
    """customer_id 150 is in hidden rows only; 99999 in none."""
    hidden = outcome(costly, probe.format(v=150))
    missing = outcome(costly, probe.format(v=99999))
    assert hidden == missing, (hidden, missing)
    assert hidden[0] == "rows", hidden


@pytest.mark.parametrize("probe", [
    "SELECT COUNT(*) FROM orders WHERE IF(customer_id = {v}, EXP(1000), 0) = 0",
    "SELECT COUNT(*) FROM orders o JOIN (SELECT 1 AS one) x ON x.one = 1 WHERE IF(o.customer_id = {v},"
    " EXP(1000), 0) = 0",
    "SELECT COUNT(*) FROM (SELECT * FROM orders) o WHERE IF(customer_id = {v}, EXP(1000), 0) = 0",
    "SELECT EXISTS (SELECT 1 FROM orders WHERE IF(customer_id = {v}, EXP(1000), 0) = 0)",
])
def test_my_rule_filter_decides_before_the_condition(costly_my, probe):
    hidden = my_outcome(costly_my, probe.format(v=150))
    missing = my_outcome(costly_my, probe.format(v=99999))
    assert hidden == missing, (hidden, missing)
    assert hidden[0] == "rows", hidden
