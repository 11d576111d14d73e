"""A foreign key from a table the agent may read to one it may not, played
as an attacker over MySQL. SHOW CREATE TABLE, KEY_COLUMN_USAGE,
TABLE_CONSTRAINTS and REFERENTIAL_CONSTRAINTS must answer as if the key
did not exist: fk_child holds keys to a hidden table (staff_salaries) and
to a hidden column (customers.id, outside this agent's column list) beside
one to a visible table; fk_twin is the same table without the two hidden
keys. Through airlock, fk_child must read exactly as fk_twin reads
directly, in each quoting mode and over the binary protocol."""

import pymysql
import pytest

import itest
import mywire
from private_airlockd import PrivateAirlockd
from test_my_world_sweep import binary_outcome

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

COLUMNS = ("  id int NOT NULL PRIMARY KEY, staff_id int, order_id bigint, cust_id int, note varchar(20),"
           " KEY k_staff (staff_id), KEY k_cust (cust_id),"
           " CONSTRAINT {t}_a_order FOREIGN KEY (order_id) REFERENCES orders (id),"
           " CONSTRAINT ck_note CHECK (note <> 'x')")
HIDDEN_KEYS = (", CONSTRAINT fk_m_cust FOREIGN KEY (cust_id) REFERENCES customers (id),"
               " CONSTRAINT fk_z_staff FOREIGN KEY (staff_id) REFERENCES staff_salaries (id)")
LEAKS = ("staff_salaries", "fk_z_staff", "fk_m_cust")
USERS = ("'airlock_ro'@'127.0.0.1'", "'airlock_ro'@'localhost'")


# fk_bare's key to the hidden table has no index of its own: MariaDB makes one and names it after the
# constraint. fk_bare_twin has the visible key alone.
BARE = ("  id int NOT NULL PRIMARY KEY, staff_id int, order_id bigint, UNIQUE KEY u_order (order_id),"
        " CONSTRAINT {t}_order FOREIGN KEY (order_id) REFERENCES orders (id)")
BARE_HIDDEN = ", CONSTRAINT fk_staff_salaries FOREIGN KEY (staff_id) REFERENCES staff_salaries (id)"
TABLES = ("fk_child", "fk_twin", "fk_bare", "fk_bare_twin")


@pytest.fixture(scope="module")
def tables():
    itest.my_super_query("CREATE TABLE shop.fk_child ({c}{h}) ENGINE=InnoDB;"
                         " CREATE TABLE shop.fk_twin ({t}) ENGINE=InnoDB;"
                         " CREATE TABLE shop.fk_bare ({b}{bh}) ENGINE=InnoDB;"
                         " CREATE TABLE shop.fk_bare_twin ({bt}) ENGINE=InnoDB;".format(
                             c=COLUMNS.format(t="fk_child"), h=HIDDEN_KEYS, t=COLUMNS.format(t="fk_twin"),
                             b=BARE.format(t="fk_bare"), bh=BARE_HIDDEN, bt=BARE.format(t="fk_bare_twin")))
    for u in USERS:
        for t in TABLES:
            itest.my_super_query("GRANT SELECT ON shop.{t} TO {u}".format(t=t, u=u))
    yield
    for u in USERS:
        for t in TABLES:
            itest.my_super_query("REVOKE SELECT ON shop.{t} FROM {u}".format(t=t, u=u))
    itest.my_super_query("DROP TABLE " + ", ".join("shop." + t for t in TABLES))


@pytest.fixture(scope="module")
def private(tables):
    d = PrivateAirlockd("fkeys", {"pool_min": 0}, uid_base=1002000000, sections={"user agent": {
        "mysql_tables": "shop.orders, shop.customers, shop.fk_child, shop.fk_twin, shop.fk_bare,"
                        " shop.fk_bare_twin, information_schema.*",
        "mysql_columns shop.customers": "name, email"}})
    d.start()
    yield d
    assert d.stop() in (0, -15)


def through(private, *sql):
    return rows(pymysql.connect(host="127.0.0.1", port=private.my_port, user="agent",
                                password=itest.AGENT_PASSWORD, database="shop", autocommit=True,
                                connect_timeout=10, read_timeout=60), sql)


def direct(*sql):
    return rows(itest.my_direct(autocommit=True), sql)


def rows(conn, sql):
    """The last statement's rows, run after the others on conn, which is closed after."""
    try:
        with conn.cursor() as cur:
            for s in sql:
                cur.execute(s)
            return cur.fetchall()
    finally:
        conn.close()


def twin(rows):
    return repr(rows).replace("fk_twin", "fk_child")


@pytest.mark.parametrize("settings", [
    (),
    ("SET SESSION sql_mode = 'ANSI_QUOTES'",),
    ("SET SESSION sql_quote_show_create = 0",),
    ("SET SESSION sql_mode = 'ANSI_QUOTES'", "SET SESSION sql_quote_show_create = 0"),
])
def test_show_create_table_reads_as_without_the_hidden_keys(private, settings):
    got = through(private, *settings, "SHOW CREATE TABLE fk_child")
    want = direct(*settings, "SHOW CREATE TABLE fk_twin")
    assert repr(got) == twin(want), (got, want)
    assert "fk_child_a_order" in repr(got) and "ck_note" in repr(got)
    # The check is not vacuous: MariaDB prints the hidden keys.
    assert "staff_salaries" in repr(direct(*settings, "SHOW CREATE TABLE fk_child"))


def test_show_create_table_qualified_and_prepared(private):
    want = twin(direct("SHOW CREATE TABLE shop.fk_twin"))
    assert repr(through(private, "SHOW CREATE TABLE `shop`.`fk_child`")) == want
    c = mywire.Conn("127.0.0.1", private.my_port)
    assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
    try:
        got = binary_outcome(c, "SHOW CREATE TABLE fk_child")
    finally:
        c.close()
    assert got[0] == "rows", got
    assert b"fk_child_a_order" in got[2][0], got
    for word in LEAKS:
        assert word.encode() not in got[2][0], got


def test_key_column_usage_reads_as_without_the_hidden_keys(private):
    """MariaDB lists TABLE_CONSTRAINTS and REFERENTIAL_CONSTRAINTS only to a role with more than SELECT on
    the table, so the demo's backend role reads them empty; their filters are checked by the next test."""
    sql = ("SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME"
           " FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = '{n}'"
           " ORDER BY 1, 2")
    got = through(private, sql.format(n="fk_child"))
    want = direct(sql.format(n="fk_twin"))
    assert repr(got) == twin(want), (got, want)
    assert "fk_child_a_order" in repr(got)
    assert any(w in repr(direct(sql.format(n="fk_child"))) for w in LEAKS)


def test_catalogs_name_no_hidden_key_anywhere(private):
    """Read whole, the key catalogs hold no trace of the hidden keys (and their filters run on MariaDB)."""
    for catalog in ("KEY_COLUMN_USAGE", "TABLE_CONSTRAINTS", "REFERENTIAL_CONSTRAINTS"):
        rows = repr(through(private, "SELECT * FROM information_schema." + catalog))
        for word in LEAKS:
            assert word not in rows, (catalog, word)


BARE_READS = [
    "SHOW CREATE TABLE {t}",
    "SHOW INDEX FROM {t}",
    "SHOW KEYS FROM {t} FROM shop",
    "SHOW INDEXES FROM shop.{t} WHERE Key_name LIKE '%'",
    "SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS"
    " WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = '{t}' ORDER BY 1, 2",
]


@pytest.mark.parametrize("sql", BARE_READS)
def test_index_made_for_a_hidden_key_reads_as_missing(private, sql):
    """The index MariaDB made for the hidden key is named after it (fk_staff_salaries): SHOW CREATE
    TABLE, SHOW INDEX and STATISTICS read fk_bare as fk_bare_twin reads directly."""
    got = through(private, sql.format(t="fk_bare"))
    want = direct(sql.format(t="fk_bare_twin"))
    assert repr(got) == repr(want).replace("fk_bare_twin", "fk_bare"), (got, want)
    assert "u_order" in repr(got)
    # The check is not vacuous: MariaDB shows the index directly.
    assert "fk_staff_salaries" in repr(direct(sql.format(t="fk_bare")))


def test_show_index_columns_are_the_servers(private):
    """SHOW INDEX becomes a read of the filtered STATISTICS: its columns keep SHOW INDEX's names and types."""
    def described(conn):
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW INDEX FROM fk_twin")
                return [d[:2] for d in cur.description]
        finally:
            conn.close()
    got = described(pymysql.connect(host="127.0.0.1", port=private.my_port, user="agent",
                                    password=itest.AGENT_PASSWORD, database="shop", connect_timeout=10))
    assert got == described(itest.my_direct()), got


EXPLAINS = [
    "EXPLAIN SELECT * FROM fk_bare WHERE staff_id = 1",
    "EXPLAIN EXTENDED SELECT staff_id FROM shop.fk_bare WHERE staff_id IN (1, 2)",
    "DESCRIBE SELECT * FROM fk_bare b JOIN orders o ON o.id = b.order_id WHERE b.staff_id = 1",
    "EXPLAIN FORMAT=JSON SELECT * FROM fk_bare WHERE staff_id = 1",
]


@pytest.mark.parametrize("sql", EXPLAINS)
def test_plan_prints_no_hidden_key_name(private, sql):
    """The optimizer still uses the index MariaDB made for the hidden key; the plan names it
    airlock_hidden_key, in the text and binary protocols."""
    got = repr(through(private, sql))
    assert "fk_staff_salaries" not in got and "airlock_hidden_key" in got, got
    assert "fk_staff_salaries" in repr(direct(sql)), "not vacuous"
    c = mywire.Conn("127.0.0.1", private.my_port)
    assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
    try:
        binary = binary_outcome(c, sql)
    finally:
        c.close()
    assert binary[0] == "rows" and b"fk_staff_salaries" not in repr(binary).encode(), binary


def test_plan_keeps_the_names_of_shown_keys(private):
    got = repr(through(private, "EXPLAIN SELECT * FROM fk_bare_twin WHERE order_id > 1"))
    assert "u_order" in got and "airlock_hidden_key" not in got, got
