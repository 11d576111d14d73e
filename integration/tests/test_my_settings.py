"""Every session variable airlock accepts over MySQL does what it does on
the server: each is set through airlock and on MariaDB directly, then read
back and used in a statement whose result depends on it, and both must
agree. Values out of range are clamped with the server's warning; values of
the wrong type fail with the server's errno. Nothing is accepted and
dropped."""

import time

import pymysql
import pytest

import itest


@pytest.fixture
def pair():
    a = itest.my_connect(autocommit=True)
    d = itest.my_direct(autocommit=True)
    yield a, d
    a.close()
    d.close()


def rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def warnings_of(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        cur.execute("SHOW WARNINGS")
        return [(r[0], r[1]) for r in cur.fetchall()]


def both(pair, sql):
    a, d = pair
    return rows(a, sql), rows(d, sql)


# (SET value, a read whose result depends on it): through airlock as on MariaDB.
EFFECTS = [
    ("div_precision_increment = 10", "SELECT 1/3, 2/7"),
    ("div_precision_increment = 0", "SELECT 1/3"),
    ("group_concat_max_len = 12", "SELECT GROUP_CONCAT(name ORDER BY id) FROM customers WHERE id <= 5"),
    ("lc_time_names = 'de_DE'", "SELECT DATE_FORMAT('2024-03-01', '%M %W'), MONTHNAME('2024-12-01')"),
    ("lc_time_names = 'fr_FR'", "SELECT DATE_FORMAT('2024-02-01', '%b %a')"),
    ("default_week_format = 1", "SELECT WEEK('2024-01-07'), WEEK('2024-12-30')"),
    ("default_week_format = 7", "SELECT WEEK('2024-01-07')"),
    ("sql_select_limit = 2", "SELECT id FROM orders ORDER BY id"),
    ("sql_select_limit = 0", "SELECT id FROM orders ORDER BY id"),
    ("sql_select_limit = 3", "SELECT id FROM orders WHERE id IN (SELECT id FROM orders) ORDER BY id LIMIT 5"),
    ("sql_quote_show_create = 0", "SHOW CREATE TABLE orders"),
    ("sql_warnings = 1", "SELECT 1"),
    ("sql_notes = 0", "SELECT 1"),
    ("sql_auto_is_null = 1", "SELECT count(*) FROM orders WHERE id IS NULL"),
    ("foreign_key_checks = 0", "SELECT 1"),
    ("unique_checks = OFF", "SELECT 1"),
    ("sql_safe_updates = ON", "SELECT count(*) FROM orders"),
    ("net_write_timeout = 600", "SELECT count(*) FROM orders"),
    ("net_read_timeout = 120", "SELECT count(*) FROM orders"),
]


@pytest.mark.parametrize("setting,probe", EFFECTS, ids=[e[0] for e in EFFECTS])
def test_setting_has_its_effect(pair, setting, probe):
    name = setting.split("=")[0].strip()
    before = both(pair, probe)
    for conn in pair:
        rows(conn, "SET SESSION " + setting)
    mine, theirs = both(pair, probe)
    assert mine == theirs, (setting, probe)
    # Read back as the server reads it back, both ways.
    a, d = pair
    assert rows(a, "SELECT @@%s, @@SESSION.%s" % (name, name)) == rows(
        d, "SELECT @@%s, @@SESSION.%s" % (name, name)), name
    assert rows(a, "SHOW VARIABLES LIKE '%s'" % name) == rows(d, "SHOW VARIABLES LIKE '%s'" % name)
    # DEFAULT returns to the start.
    for conn in pair:
        rows(conn, "SET SESSION %s = DEFAULT" % name)
    assert both(pair, probe)[0] == before[0]
    assert rows(a, "SELECT @@" + name) == rows(d, "SELECT @@" + name), name


def test_effect_is_real_not_just_equal(pair):
    """The comparison above is not vacuous: these settings change the answer."""
    a, d = pair
    assert rows(a, "SELECT 1/3") == rows(itest.my_direct(), "SELECT 1/3")
    rows(a, "SET div_precision_increment = 10")
    assert str(rows(a, "SELECT 1/3")[0][0]) == "0.3333333333"
    rows(a, "SET sql_select_limit = 2")
    assert len(rows(a, "SELECT id FROM orders")) == 2
    # MariaDB binds SHOW by sql_select_limit too: airlock's rewrite of SHOW TABLES does the same.
    assert rows(a, "SHOW TABLES") == rows(d, "SET sql_select_limit = 2") + rows(d, "SHOW TABLES")
    assert len(rows(a, "SHOW TABLES")) == 2
    assert len(rows(a, "SHOW VARIABLES LIKE 'sql%'")) == 2
    rows(a, "SET lc_time_names = 'de_DE'")
    assert rows(a, "SELECT MONTHNAME('2024-03-01')")[0][0] == "März"


@pytest.mark.parametrize("setting", [
    "div_precision_increment = 100",
    "div_precision_increment = -1",
    "group_concat_max_len = 1",
    "default_week_format = 9",
    "wait_timeout = 0",
])
def test_out_of_range_is_clamped_with_the_servers_warning(pair, setting):
    a, d = pair
    name = setting.split("=")[0].strip()
    assert warnings_of(a, "SET SESSION " + setting) == warnings_of(d, "SET SESSION " + setting)
    assert rows(a, "SELECT @@" + name) == rows(d, "SELECT @@" + name)


@pytest.mark.parametrize("setting", [
    "div_precision_increment = '5'",
    "sql_select_limit = 'many'",
    "sql_notes = 'maybe'",
    "sql_warnings = 2",
    "max_statement_time = '1'",
])
def test_wrong_values_fail_like_the_server(pair, setting):
    a, d = pair
    codes = []
    for conn in pair:
        with pytest.raises(pymysql.err.MySQLError) as e:
            rows(conn, "SET SESSION " + setting)
        codes.append(e.value.args[0])
    assert codes[0] == codes[1], (setting, codes)


def test_unknown_locale_fails_at_the_next_statement():
    """airlock checks a locale's form; one MariaDB does not know fails with the server's own 1649."""
    a = itest.my_connect(autocommit=True)
    rows(a, "SET lc_time_names = 'xx_YY'")
    with pytest.raises(pymysql.err.MySQLError) as e:
        rows(a, "SELECT 1")
    assert e.value.args[0] == 1649, e.value
    a.close()


def test_max_statement_time_bounds_the_statement():
    a = itest.my_connect(autocommit=True)
    rows(a, "SET SESSION max_statement_time = 1")
    assert rows(a, "SELECT @@max_statement_time") == ((1.0,),) or \
        str(rows(a, "SELECT @@max_statement_time")[0][0]).startswith("1.000")
    t0 = time.monotonic()
    with pytest.raises(pymysql.err.MySQLError) as e:
        rows(a, "SELECT SLEEP(5)")
    took = time.monotonic() - t0
    assert e.value.args[0] in (1969, 3024), e.value
    assert took < 4, took
    # Above the user's timeout_ms (10 s) it is the user's.
    rows(a, "SET SESSION max_statement_time = 100")
    assert str(rows(a, "SELECT @@max_statement_time")[0][0]).startswith("10.000")
    rows(a, "SET SESSION max_execution_time = 1500")
    assert str(rows(a, "SELECT @@max_execution_time")[0][0]) == "1500"
    a.close()


def test_wait_timeout_closes_an_idle_session():
    a = itest.my_connect(autocommit=True)
    rows(a, "SET SESSION wait_timeout = 2")
    assert rows(a, "SELECT @@wait_timeout") == ((2,),)
    rows(a, "SELECT 1")
    time.sleep(1)
    rows(a, "SELECT 1")  # activity restarts the clock
    time.sleep(3)
    with pytest.raises(pymysql.err.OperationalError) as e:
        rows(a, "SELECT 1")
    assert e.value.args[0] in (4031, 2013, 2006), e.value


def test_collation_connection_is_kept_and_applied(pair):
    a, d = pair
    for conn in pair:
        rows(conn, "SET NAMES utf8mb4")
        rows(conn, "SET collation_connection = utf8mb4_bin")
    assert rows(a, "SELECT @@collation_connection") == rows(d, "SELECT @@collation_connection")
    # The collation decides comparisons of literals.
    assert rows(a, "SELECT 'a' = 'A'") == rows(d, "SELECT 'a' = 'A'") == ((0,),)
    with pytest.raises(pymysql.err.MySQLError) as e:
        rows(a, "SET collation_connection = latin1_bin")
    assert e.value.args[0] == 1253


@pytest.mark.parametrize("setting", ["character_set_server = latin1", "character_set_server = 'utf8mb4'",
                                     "collation_server = utf8mb4_unicode_ci"])
def test_server_defaults_drivers_set_read_back_as_on_the_server(pair, setting):
    """Drivers set these at connect; they shape new tables only, so a read sees no change, and
    @@name reads back what the server would."""
    a, d = pair
    for conn in pair:
        rows(conn, "SET " + setting)
    q = "SELECT @@character_set_server, @@collation_server"
    assert rows(a, q) == rows(d, q)
    assert rows(a, "SELECT id FROM orders WHERE id = 3") == ((3,),)
