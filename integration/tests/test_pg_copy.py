"""COPY of a read to the client: psql's \\copy, COPY (SELECT ...) TO STDOUT
and COPY table TO STDOUT in text, CSV and binary, validated as the SELECT
it holds (allowed tables, row filters and masks, caps), compared with the
same COPY run directly against the backend. COPY FROM, COPY to a server
file and COPY to a program stay refused."""

import psycopg
import pytest

import itest

# The airlockd under test, as AGENT_URL names it (not always the suite's port).
SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")
STRICT_URL = itest.AGENT_URL.replace("agent:agent-secret", "strict:%s" % itest.AGENT_PASSWORD)


def psql_out(url, command, extra=()):
    r = itest.psql(url, command, extra=extra)
    assert r.returncode == 0, r.stderr
    return r.stdout, r.stderr


@pytest.mark.parametrize("command", [
    "\\copy (SELECT id, note, amount, created_at FROM orders WHERE id <= 25 ORDER BY id) TO STDOUT",
    "\\copy (SELECT id, note FROM orders WHERE id <= 25 ORDER BY id) TO STDOUT WITH CSV HEADER",
    "\\copy (SELECT id, note, NULL::text AS n FROM orders WHERE id <= 9 ORDER BY id) TO STDOUT "
    "WITH (FORMAT csv, DELIMITER ';', NULL 'none', FORCE_QUOTE *, QUOTE '''')",
    "COPY (SELECT c.name, count(o.id) FROM customers c JOIN orders o ON o.customer_id = c.id"
    " WHERE c.id <= 20 GROUP BY c.name ORDER BY c.name) TO STDOUT",
    "COPY products TO STDOUT",
    "COPY customers (id, email) TO STDOUT (FORMAT csv, HEADER)",
])
def test_psql_copy_same_as_direct(command):
    got, _ = psql_out(itest.AGENT_URL, command)
    want, _ = psql_out(itest.direct_url(), command)
    assert got == want
    assert got.count("\n") >= 5


def test_copy_binary_same_as_direct():
    sql = "COPY (SELECT id, amount, created_at, ARRAY[id] AS a FROM orders WHERE id <= 50 ORDER BY id) TO STDOUT" \
          " (FORMAT binary)"

    def read(url):
        with psycopg.connect(url, connect_timeout=10) as conn:
            with conn.cursor().copy(sql) as copy:
                data = b"".join(bytes(b) for b in copy)
            conn.rollback()
            return data
    got = read(itest.AGENT_URL)
    assert got == read(itest.direct_url())
    assert got.startswith(b"PGCOPY\n\xff\r\n\0")


def test_copy_rows_through_psycopg3_then_more():
    with psycopg.connect(itest.AGENT_URL, connect_timeout=10, autocommit=True) as conn:
        with conn.cursor().copy("COPY (SELECT id, note FROM orders WHERE id <= 3 ORDER BY id) TO STDOUT") as copy:
            rows = list(copy.rows())
        assert rows == [("1", "order 1"), ("2", "order 2"), ("3", "order 3")]
        assert conn.execute("SELECT 2").fetchone() == (2,)


def test_copy_applies_row_filters_and_masks():
    """support sees orders of customers up to 100 and masked e-mails, whichever way it reads them."""
    got, _ = psql_out(SUPPORT_URL, "COPY customers TO STDOUT (FORMAT csv)")
    want, _ = psql_out(itest.direct_url(),
                       "COPY (SELECT id, name, left(email, 1) || '***@' || split_part(email, '@', 2)"
                       " FROM customers) TO STDOUT (FORMAT csv)")
    assert got == want
    got, _ = psql_out(SUPPORT_URL, "\\copy (SELECT count(*), max(customer_id) FROM orders) TO STDOUT")
    want, _ = psql_out(itest.direct_url(),
                       "COPY (SELECT count(*), max(customer_id) FROM orders WHERE customer_id <= 100) TO STDOUT")
    assert got == want


@pytest.mark.parametrize("sql,code", [
    ("COPY staff_salaries TO STDOUT", "42501"),
    ("COPY (SELECT * FROM staff_salaries) TO STDOUT", "42501"),
    ("COPY (SELECT pg_read_file('/etc/passwd')) TO STDOUT", "42501"),
    ("COPY orders FROM STDIN", "25006"),
    ("COPY orders TO '/tmp/airlock-copy'", "0A000"),
    ("COPY (SELECT 1) TO PROGRAM 'id'", "0A000"),
    ("COPY (SELECT 1) TO STDOUT (FORMAT xml)", "22023"),
    ("COPY (DELETE FROM orders RETURNING *) TO STDOUT", "25006"),
])
def test_copy_refusals(sql, code):
    with psycopg.connect(itest.AGENT_URL, connect_timeout=10, autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as info:
            with conn.cursor().copy(sql) as copy:
                list(copy)
        assert info.value.sqlstate == code, (sql, info.value)
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_copy_is_capped():
    """agent_small's max_rows = 5: five lines and the RESULT_TRUNCATED notice; strict: an error after them."""
    out, err = psql_out(itest.SMALL_URL, "COPY orders TO STDOUT")
    assert out.count("\n") == 5
    assert "RESULT_TRUNCATED" in err
    # A header line is not a row.
    out, err = psql_out(itest.SMALL_URL, "COPY orders (id) TO STDOUT (FORMAT csv, HEADER)")
    assert out.splitlines() == ["id", "1", "2", "3", "4", "5"], out
    r = itest.psql(STRICT_URL, "COPY (SELECT id FROM orders ORDER BY id) TO STDOUT")
    assert r.returncode != 0
    assert "RESULT_TRUNCATED" in r.stderr and "max_rows=5" in r.stderr
