"""Scoped catalogs over MySQL: information_schema and the SHOW forms that
list tables describe only the tables the policy allows. staff_salaries
exists (the backend account may read it) but is not allowed; every probe
must answer for it exactly as for a table that does not exist, and
nothing listed may name it."""

import pymysql
import pytest

import itest

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

HIDDEN = "staff_salaries"
MISSING = "no_such_table_q7"

PROBES = [
    "SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_NAME = '{t}'",
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = '{t}'",
    "SELECT INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_NAME = '{t}'",
    "SELECT CONSTRAINT_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_NAME = '{t}'",
    "SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_NAME = '{t}'",
    "SELECT * FROM information_schema.PARTITIONS WHERE TABLE_NAME = '{t}'",
    "SELECT * FROM information_schema.CHECK_CONSTRAINTS WHERE TABLE_NAME = '{t}'",
    "SELECT * FROM information_schema.TABLE_STATISTICS WHERE TABLE_NAME = '{t}'",
    "SELECT * FROM information_schema.INDEX_STATISTICS WHERE TABLE_NAME = '{t}'",
    "SELECT * FROM information_schema.VIEWS WHERE TABLE_NAME = '{t}'",
    "SELECT * FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_TABLE = '{t}'",
    "SELECT t.TABLE_NAME FROM information_schema.tables AS t WHERE t.table_name = '{t}'",
    "SELECT COUNT(*) FROM information_schema.COLUMNS c JOIN information_schema.TABLES t"
    " ON t.TABLE_NAME = c.TABLE_NAME WHERE t.TABLE_NAME = '{t}'",
    "SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = '{t}')",
    "SELECT * FROM information_schema.COLUMN_PRIVILEGES WHERE TABLE_NAME = '{t}'",
    "SHOW TABLES LIKE '{t}'",
    "SHOW FULL TABLES LIKE '{t}'",
    "SHOW TABLES WHERE Tables_in_shop = '{t}'",
    "SHOW TABLE STATUS LIKE '{t}'",
    "SHOW TABLE STATUS FROM shop WHERE Name = '{t}'",
    "SHOW COLUMNS FROM {t}",
    "SHOW INDEX FROM shop.{t}",
    "SHOW CREATE TABLE {t}",
    "DESCRIBE {t}",
    "SELECT * FROM {t}",
    "SELECT * FROM shop.{t} LIMIT 1",
]

SWEEPS = [
    "SHOW TABLES",
    "SHOW FULL TABLES",
    "SHOW TABLES FROM shop",
    "SHOW TABLE STATUS",
    "SHOW DATABASES",
    "SELECT GROUP_CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES",
    "SELECT GROUP_CONCAT(TABLE_NAME, '.', COLUMN_NAME) FROM information_schema.COLUMNS",
    "SELECT GROUP_CONCAT(TABLE_NAME, INDEX_NAME) FROM information_schema.STATISTICS",
    "SELECT GROUP_CONCAT(CONSTRAINT_NAME, TABLE_NAME) FROM information_schema.KEY_COLUMN_USAGE",
    "SELECT GROUP_CONCAT(CONSTRAINT_NAME, TABLE_NAME) FROM information_schema.TABLE_CONSTRAINTS",
    "SELECT GROUP_CONCAT(SCHEMA_NAME) FROM information_schema.SCHEMATA",
    "SELECT GROUP_CONCAT(TABLE_NAME) FROM information_schema.TABLE_STATISTICS",
    "SELECT * FROM information_schema.TABLES t, information_schema.COLUMNS c"
    " WHERE c.TABLE_NAME = t.TABLE_NAME AND t.TABLE_SCHEMA = 'shop'",
]

LEAKS = ("staff", "salar")


def outcome(conn, sql):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", cur.fetchall() if cur.description else None)
    except pymysql.MySQLError as e:
        return ("error",) + tuple(e.args)


def swap(value, a, b):
    return repr(value).replace(a, b)


@pytest.mark.parametrize("probe", PROBES)
def test_hidden_reads_as_missing(my_agent, probe):
    hidden = outcome(my_agent, probe.format(t=HIDDEN))
    missing = outcome(my_agent, probe.format(t=MISSING))
    assert swap(hidden, HIDDEN, "T") == swap(missing, MISSING, "T"), (hidden, missing)
    for word in ("staff", "salar"):
        assert word not in swap(hidden, HIDDEN, "T")


@pytest.mark.parametrize("sweep", SWEEPS)
def test_sweep_does_not_name_hidden(my_agent, sweep):
    got = outcome(my_agent, sweep)
    assert got[0] == "rows", got
    for word in LEAKS:
        assert word not in repr(got), (sweep, got)


def test_show_forms_keep_their_columns(my_agent):
    with my_agent.cursor() as cur:
        cur.execute("SHOW TABLES")
        assert [d[0] for d in cur.description] == ["Tables_in_shop"]
        assert [r[0] for r in cur.fetchall()] == ["customers", "orders", "products"]
        cur.execute("SHOW FULL TABLES")
        assert [d[0] for d in cur.description] == ["Tables_in_shop", "Table_type"]
        assert cur.fetchall() == (("customers", "BASE TABLE"), ("orders", "BASE TABLE"),
                                  ("products", "BASE TABLE"))
        # After LIKE MariaDB names the column with the pattern.
        cur.execute("SHOW FULL TABLES LIKE 'ord%'")
        assert [d[0] for d in cur.description] == ["Tables_in_shop (ord%)", "Table_type"]
        assert cur.fetchall() == (("orders", "BASE TABLE"),)
        cur.execute("SHOW TABLE STATUS LIKE 'orders'")
        cols = [d[0] for d in cur.description]
        assert cols[:5] == ["Name", "Engine", "Version", "Row_format", "Rows"]
        assert "Comment" in cols
        assert [r[0] for r in cur.fetchall()] == ["orders"]
        cur.execute("SHOW DATABASES")
        assert [d[0] for d in cur.description] == ["Database"]
        assert [r[0] for r in cur.fetchall()] == ["information_schema", "shop"]
        cur.execute("SHOW TABLES WHERE Tables_in_shop LIKE '%s' AND Tables_in_shop IN"
                    " (SELECT TABLE_NAME FROM information_schema.TABLES)")
        assert [r[0] for r in cur.fetchall()] == ["customers", "orders", "products"]


def test_allowed_tables_stay_described(my_agent):
    with my_agent.cursor() as cur:
        cur.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS"
                    " WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION")
        assert [r[0] for r in cur.fetchall()] == ["id", "customer_id", "amount", "note", "created_at"]
        cur.execute("SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS"
                    " WHERE TABLE_NAME = 'orders' ORDER BY 1")
        assert sorted(r[0] for r in cur.fetchall()) == ["PRIMARY", "orders_customer_id"]
        cur.execute("SELECT TABLE_ROWS > 0 FROM information_schema.TABLES WHERE TABLE_NAME = 'orders'")
        assert cur.fetchone()[0] == 1


def test_current_database_information_schema(my_agent):
    """USE information_schema, then unqualified names: still scoped."""
    with my_agent.cursor() as cur:
        cur.execute("USE information_schema")
        cur.execute("SELECT GROUP_CONCAT(TABLE_NAME) FROM TABLES WHERE TABLE_SCHEMA = 'shop'")
        assert cur.fetchone()[0].split(",") == ["customers", "orders", "products"]
        cur.execute("SELECT COUNT(*) FROM COLUMNS WHERE TABLE_NAME = %s", (HIDDEN,))
        assert cur.fetchone()[0] == 0
        cur.execute("USE shop")


def test_other_sessions_and_internals_refused(my_agent):
    for sql in ["SELECT * FROM information_schema.PROCESSLIST",
                "SELECT * FROM information_schema.INNODB_SYS_TABLES",
                "SELECT * FROM information_schema.INNODB_TRX",
                "SELECT * FROM performance_schema.events_statements_history",
                "SELECT * FROM sys.processlist",
                "SELECT * FROM mysql.user",
                "SHOW PROCESSLIST",
                "SHOW FULL PROCESSLIST"]:
        got = outcome(my_agent, sql)
        assert got[0] == "error" and got[1] in (1142, 1227), (sql, got)


def test_sqlalchemy_reflects_only_allowed():
    sqlalchemy = pytest.importorskip("sqlalchemy")
    engine = sqlalchemy.create_engine("mysql+pymysql://agent:%s@%s:%d/shop" % (
        itest.AGENT_PASSWORD, itest.MY_HOST, itest.MY_PORT))
    try:
        insp = sqlalchemy.inspect(engine)
        assert sorted(insp.get_table_names()) == ["customers", "orders", "products"]
        assert not insp.has_table(HIDDEN)
        assert [c["name"] for c in insp.get_columns("orders")] == [
            "id", "customer_id", "amount", "note", "created_at"]
        assert insp.get_pk_constraint("orders")["constrained_columns"] == ["id"]
        meta = sqlalchemy.MetaData()
        meta.reflect(bind=engine)
        assert sorted(meta.tables) == ["customers", "orders", "products"]
        assert "mysql" not in insp.get_schema_names()
    finally:
        engine.dispose()
