"""Row filters and masks mean what the operator wrote, whatever sql_mode
the agent sets. User `modes` (a private airlockd of this module's own)
reads orders through a filter and customers through a mask whose every
part reads differently under some sql_mode: a prefix NOT
(HIGH_NOT_PRECEDENCE), "x" (ANSI_QUOTES), '' (EMPTY_STRING_IS_NULL), ||
(PIPES_AS_CONCAT), backslash escapes (NO_BACKSLASH_ESCAPES). Under every
mode the session may choose, the rows are those MariaDB returns for the
rules written out under the default mode; under the modes that change
what an expression computes, a read through a rule is refused; and the
validator reads the agent's own statement as MariaDB does under the
lexing modes (ANSI_QUOTES, NO_BACKSLASH_ESCAPES)."""

import re

import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

FILTER = "NOT customer_id > 100 AND note <> \"x\" AND note <> '' AND (customer_id <= 60 || customer_id > 80)"
MASK = "CONCAT(LEFT(email, 1), '\\*\\*\\*', \"@\", SUBSTRING_INDEX(email, '@', -1))"
# The same rules as MariaDB reads them under the default mode, for the direct reads.
ORDERS = ("(SELECT * FROM orders WHERE NOT (customer_id > 100) AND note <> 'x' AND note <> ''"
          " AND (customer_id <= 60 OR customer_id > 80))")
CUSTOMERS = "(SELECT id, name, CONCAT(LEFT(email, 1), '***', '@', SUBSTRING_INDEX(email, '@', -1)) AS email FROM customers)"

READS = [
    ("SELECT COUNT(*), SUM(customer_id), MIN(id), MAX(id) FROM orders",
     "SELECT COUNT(*), SUM(customer_id), MIN(id), MAX(id) FROM {o} orders"),
    ("SELECT id, customer_id FROM orders WHERE id < 3000 ORDER BY id",
     "SELECT id, customer_id FROM {o} orders WHERE id < 3000 ORDER BY id"),
    ("SELECT id, email FROM customers ORDER BY id LIMIT 5",
     "SELECT id, email FROM {c} customers ORDER BY id LIMIT 5"),
]

# Every mode that changes how text is read, alone and together.
SPELLING_MODES = [
    "", "ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "PIPES_AS_CONCAT", "HIGH_NOT_PRECEDENCE", "IGNORE_SPACE",
    "EMPTY_STRING_IS_NULL", "REAL_AS_FLOAT", "ANSI",
    "PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,NO_BACKSLASH_ESCAPES,HIGH_NOT_PRECEDENCE,EMPTY_STRING_IS_NULL",
    "STRICT_ALL_TABLES,ONLY_FULL_GROUP_BY,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_VALUE_ON_ZERO",
]
VALUE_MODES = ["NO_UNSIGNED_SUBTRACTION", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ALLOW_INVALID_DATES",
               "PAD_CHAR_TO_FULL_LENGTH", "TIME_ROUND_FRACTIONAL", "TRADITIONAL"]


def user_section(config):
    """The support user's MySQL login keys, as user `modes` with this module's rules."""
    text = open(config).read()
    support = re.search(r"^\[user support\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M).group(1)
    keep = [line for line in support.splitlines()
            if line.split("=", 1)[0].strip() in ("scram", "mysql_native", "mysql_target")]
    return "\n".join(["", "[user modes]"] + keep + [
        "mysql_tables = shop.orders, shop.customers, shop.products",
        "mysql_filter shop.orders = " + FILTER,
        "mysql_columns shop.customers = id, name, email",
        "mysql_mask shop.customers.email = " + MASK,
        "",
    ])


@pytest.fixture(scope="module")
def airlockd():
    d = PrivateAirlockd("myrulemodes", {"pool_min": 0}, uid_base=1001800000)
    with open(d.config, "a") as f:
        f.write(user_section(d.config))
    d.start()
    yield d
    assert d.stop() in (0, -15)


def connect(d):
    return pymysql.connect(host="127.0.0.1", port=d.my_port, user="modes", password="support-secret",
                           database="shop", autocommit=True, connect_timeout=10, read_timeout=60)


def rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


@pytest.fixture(scope="module")
def direct():
    conn = itest.my_direct()
    try:
        yield [rows(conn, want.format(o=ORDERS, c=CUSTOMERS)) for _, want in READS]
    finally:
        conn.close()


@pytest.mark.parametrize("mode", SPELLING_MODES)
def test_rules_read_the_same_under_every_mode(airlockd, direct, mode):
    conn = connect(airlockd)
    try:
        rows(conn, "SET sql_mode = '%s'" % mode)
        got = [rows(conn, through) for through, _ in READS]
    finally:
        conn.close()
    assert got == direct
    assert direct[0][0][0] > 0 and direct[2][0][1] == "c***@example.com"


def test_rules_read_the_same_in_another_character_set(airlockd, direct):
    conn = connect(airlockd)
    try:
        rows(conn, "SET NAMES latin1")
        rows(conn, "SET sql_mode = 'ANSI,NO_BACKSLASH_ESCAPES'")
        got = [rows(conn, through) for through, _ in READS]
    finally:
        conn.close()
    assert got == direct


@pytest.mark.parametrize("mode", VALUE_MODES)
def test_modes_that_change_values_refuse_reads_through_a_rule(airlockd, mode):
    conn = connect(airlockd)
    try:
        rows(conn, "SET sql_mode = '%s'" % mode)
        for through, _ in READS:
            with pytest.raises(pymysql.err.MySQLError) as e:
                rows(conn, through)
            assert e.value.args[0] == 1235, e.value.args
            assert "UNSUPPORTED" in e.value.args[1] and "sql_mode" in e.value.args[1]
        # A table without a rule reads as usual.
        assert rows(conn, "SELECT COUNT(*) FROM products")[0][0] > 0
    finally:
        conn.close()


@pytest.mark.parametrize("mode", ["ORACLE", "MSSQL", "DB2", "POSTGRESQL", "MAXDB", "MYSQL323", "MYSQL40",
                                  "ANSI,ORACLE"])
def test_modes_the_validator_does_not_follow_are_refused(airlockd, mode):
    conn = connect(airlockd)
    try:
        with pytest.raises(pymysql.err.MySQLError) as e:
            rows(conn, "SET sql_mode = '%s'" % mode)
        assert e.value.args[0] == 1227 and "NOT_ALLOWED" in e.value.args[1], e.value.args
        assert rows(conn, "SELECT @@sql_mode")[0][0] == "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO," \
                                                      "NO_ENGINE_SUBSTITUTION"
    finally:
        conn.close()


def test_the_validator_reads_the_agents_text_as_mariadb_does():
    """Under ANSI_QUOTES "staff_salaries" is a table; under NO_BACKSLASH_ESCAPES 'a\\' ends
    the string, so what follows is a table reference, not string text."""
    conn = itest.my_connect(autocommit=True)
    try:
        rows(conn, "SET sql_mode = 'ANSI_QUOTES'")
        for sql in ('SELECT * FROM "staff_salaries"', 'SELECT "x".* FROM shop."staff_salaries" "x"'):
            with pytest.raises(pymysql.err.OperationalError) as e:
                rows(conn, sql)
            assert e.value.args[0] == 1142, (sql, e.value.args)
        rows(conn, "SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
        with pytest.raises(pymysql.err.OperationalError) as e:
            rows(conn, "SELECT 'a\\', id FROM staff_salaries WHERE 'x' <> '\\'")
        assert e.value.args[0] == 1142, e.value.args
        assert rows(conn, "SELECT 'a\\' AS v")[0][0] == "a\\"
    finally:
        conn.close()
