"""What the agent's MySQL session shows of itself answers as MariaDB
answers, and shows nothing beyond the session: COM_STATISTICS counts
this session only, COM_FIELD_LIST honours its wildcard, SET NAMES with a
collation of another character set and KILL QUERY ID fail with
MariaDB's own errors, and @@sql_mode reads back as MariaDB prints it.
Each is compared with the backend over the same wire (airlock_ro, the
backend account)."""

import re

import pytest

import itest
import mywire
from test_my_protocol import direct, logged_in

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")


def err_of(reply):
    assert isinstance(reply, mywire.Err), reply
    return reply.errno, reply.sqlstate, reply.message


def test_statistics_show_the_session_only():
    """Other sessions, however many, are not counted; the questions are this session's own,
    in the line mysqladmin status prints."""
    others = [logged_in() for _ in range(4)]
    try:
        with logged_in() as c:
            for _ in range(3):
                c.query("SELECT 1")
            text = c.statistics()
        m = re.fullmatch(r"Uptime: (\d+)  Threads: (\d+)  Questions: (\d+)  Slow queries: 0  Opens: 0"
                         r"  Open tables: 0  Queries per second avg: \d+\.\d{3}", text)
        assert m, text
        assert int(m.group(2)) == 1 and int(m.group(3)) == 4, text
        assert int(m.group(1)) < 60, text
    finally:
        for o in others:
            o.close()
    with direct() as d:
        # The same fields in the same order as MariaDB's own line.
        assert [w for w in d.statistics().split() if w.endswith(":")] == \
            [w for w in text.split() if w.endswith(":")]


@pytest.mark.parametrize("wild", [b"", b"%", b"c%", b"C%", b"%_id", b"i_", b"n_te", b"x%", b"%a%t%",
                                  b"customer\\_id", b"created_at%"])
def test_field_list_wildcard(wild):
    with logged_in() as c, direct() as d:
        via, ref = c.field_list("orders", wild), d.field_list("orders", wild)
        assert not isinstance(via, mywire.Err), via
        assert [col.name for col in via[0]] == [col.name for col in ref[0]], wild
        assert isinstance(c.ping(), mywire.Ok)


@pytest.mark.parametrize("sql", [
    "SET NAMES utf8mb4 COLLATE latin1_bin",
    "SET NAMES latin1 COLLATE utf8mb4_bin",
    "SET NAMES utf8 COLLATE utf8mb4_general_ci",
    "SET NAMES utf8mb4 COLLATE utf8_bin",
    "SET NAMES utf8mb4 COLLATE LATIN1_SWEDISH_CI",
    "SET NAMES binary COLLATE latin1_bin",
    "SET NAMES latin1 COLLATE binary",
])
def test_set_names_collation_of_another_set(sql):
    with logged_in() as c, direct() as d:
        before = c.query("SELECT @@character_set_client, @@collation_connection").rows
        assert err_of(c.query(sql)) == err_of(d.query(sql))
        # Nothing changed.
        assert c.query("SELECT @@character_set_client, @@collation_connection").rows == before


def test_set_names_collation_reads_back_as_mariadb_names_it():
    sql = "SET NAMES utf8 COLLATE utf8_bin"
    with logged_in() as c, direct() as d:
        assert isinstance(c.query(sql), mywire.Ok) and isinstance(d.query(sql), mywire.Ok)
        q = "SELECT @@collation_connection"
        assert c.query(q).rows == d.query(q).rows == [[b"utf8mb3_bin"]]


@pytest.mark.parametrize("sql", ["KILL QUERY ID 99999", "KILL QUERY ID 1;", "kill query id 4",
                                 "KILL ID 99999", "KILL CONNECTION ID 5"])
def test_kill_query_id(sql):
    with logged_in() as c, direct() as d:
        assert err_of(c.query(sql)) == err_of(d.query(sql))
        assert isinstance(c.ping(), mywire.Ok)


def test_kill_query_id_does_not_touch_a_running_statement():
    with logged_in() as c, logged_in() as k:
        cid = int(c.query("SELECT CONNECTION_ID()").rows[0][0])
        c.command(mywire.COM_QUERY, "SELECT COUNT(*) FROM orders a JOIN orders b ON b.customer_id = a.id")
        err = k.query("KILL QUERY ID %d" % cid)
        assert err_of(err)[0] == 1957
        r = c.read_reply()
        assert not isinstance(r, mywire.Err), r
        assert int(r.rows[0][0]) > 0


@pytest.mark.parametrize("mode", [
    "ansi_quotes,pipes_as_concat", "ANSI", "traditional", "ansi,,traditional", "", ",,",
    "no_backslash_escapes,NO_BACKSLASH_ESCAPES", "Real_As_Float,only_full_group_by",
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
    "TIME_ROUND_FRACTIONAL,SIMULTANEOUS_ASSIGNMENT,EMPTY_STRING_IS_NULL,PAD_CHAR_TO_FULL_LENGTH,"
    "HIGH_NOT_PRECEDENCE,NO_AUTO_CREATE_USER,ALLOW_INVALID_DATES,NO_ZERO_IN_DATE,IGNORE_SPACE",
])
def test_sql_mode_reads_back_as_mariadb_prints_it(mode):
    with logged_in() as c, direct() as d:
        for conn in (c, d):
            assert isinstance(conn.query("SET sql_mode = '%s'" % mode), mywire.Ok)
        for q in ("SELECT @@sql_mode", "SELECT @@session.sql_mode", "SELECT @@SESSION.SQL_MODE"):
            assert c.query(q).rows == d.query(q).rows, (mode, q)
        q = "SHOW VARIABLES LIKE 'sql_mode'"
        assert c.query(q).rows == d.query(q).rows, mode
        # Appending to it keeps MariaDB's form.
        q = "SET sql_mode = CONCAT(@@sql_mode, ',ansi_quotes')"
        assert isinstance(c.query(q), mywire.Ok) and isinstance(d.query(q), mywire.Ok)
        assert c.query("SELECT @@sql_mode").rows == d.query("SELECT @@sql_mode").rows, mode


@pytest.mark.parametrize("sql", ["SELECT SYS_GUID()", "SELECT UUID_SHORT()", "SELECT UUID(1)"])
def test_host_derived_ids_are_refused(sql):
    """SYS_GUID() ends in the backend host's MAC address; UUID_SHORT() counts from the server's id
    and start time. None of it reaches the agent."""
    with direct() as d:
        mac = d.query("SELECT RIGHT(UUID(), 12)").rows[0][0].decode()
    with logged_in() as c:
        err = c.query(sql)
        errno, _, message = err_of(err)
        assert errno == 1370 and itest.airlock_code(message) == "FORBIDDEN_FUNCTION", err
        assert mac not in message
        assert c.query("SELECT 1 AS uuid").rows == [[b"1"]]


UUID_V4 = re.compile(rb"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


@pytest.mark.parametrize("sql", ["SELECT UUID() FROM orders LIMIT 50", "SELECT uuid ( ) AS u FROM orders LIMIT 50",
                                 "SELECT (SELECT UUID()) FROM orders WHERE RIGHT(UUID(), 12) <> '' LIMIT 50"])
def test_uuid_is_random_not_the_hosts(sql):
    """UUID() is version 1 on MariaDB: its last field is the backend host's MAC address. Through
    airlock each call is a random version 4 UUID, one per row, as UUID() gives one per row."""
    with direct() as d:
        mac = d.query("SELECT RIGHT(UUID(), 12)").rows[0][0]
        n = 50
    with logged_in() as c:
        got = c.query(sql)
        assert isinstance(got, mywire.Result), got
        values = [r[0] for r in got.rows]
        assert len(values) == n > 1
        assert all(UUID_V4.match(v) for v in values), values
        assert len(set(values)) == n
        assert not any(mac in v for v in values)
