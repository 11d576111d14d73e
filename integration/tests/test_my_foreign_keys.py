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


@pytest.fixture(scope="module")
def tables():
    itest.my_super_query("CREATE TABLE shop.fk_child ({c}{h}) ENGINE=InnoDB;"
                         " CREATE TABLE shop.fk_twin ({t}) ENGINE=InnoDB;".format(
                             c=COLUMNS.format(t="fk_child"), h=HIDDEN_KEYS, t=COLUMNS.format(t="fk_twin")))
    for u in USERS:
        itest.my_super_query("GRANT SELECT ON shop.fk_child TO {u}; GRANT SELECT ON shop.fk_twin TO {u}".format(u=u))
    yield
    for u in USERS:
        itest.my_super_query("REVOKE SELECT ON shop.fk_child FROM {u}; REVOKE SELECT ON shop.fk_twin FROM {u}"
                             .format(u=u))
    itest.my_super_query("DROP TABLE shop.fk_child, shop.fk_twin")


@pytest.fixture(scope="module")
def private(tables):
    d = PrivateAirlockd("fkeys", {"pool_min": 0}, uid_base=1002000000, sections={"user agent": {
        "mysql_tables": "shop.orders, shop.customers, shop.fk_child, shop.fk_twin, information_schema.*",
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
