"""psql through airlock prints exactly what psql prints against Postgres."""

import pytest

import itest
from itest import QUERIES



@pytest.mark.parametrize("sql", QUERIES)
def test_psql_output_matches_direct(sql):
    via = itest.psql(itest.AGENT_URL, sql)
    ref = itest.psql(itest.direct_url(), sql)
    assert ref.returncode == 0, ref.stderr
    assert via.returncode == 0, via.stderr
    assert via.stdout == ref.stdout
    assert via.stderr == ref.stderr


def test_psql_exact_values():
    r = itest.psql(itest.AGENT_URL, "SELECT id, amount FROM orders ORDER BY id LIMIT 3",
                   extra=["-A", "-t"])
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1|0.37\n2|0.74\n3|1.11\n"


def test_psql_expanded_and_unaligned_match():
    sql = "SELECT id, note FROM orders WHERE id IN (1, 10) ORDER BY id"
    for extra in (["-x"], ["-A", "-F", ","], ["--csv"]):
        via = itest.psql(itest.AGENT_URL, sql, extra=extra)
        ref = itest.psql(itest.direct_url(), sql, extra=extra)
        assert via.returncode == 0, via.stderr
        assert via.stdout == ref.stdout


def test_psql_describe_table_matches_direct():
    """\\d sends pg_catalog queries chosen by the server version."""
    via = itest.psql(itest.AGENT_URL, "\\d orders")
    ref = itest.psql(itest.direct_url(), "\\d orders")
    assert ref.returncode == 0, ref.stderr
    assert via.returncode == 0, via.stderr
    assert via.stdout == ref.stdout


def test_psql_error_has_sqlstate():
    r = itest.psql(itest.AGENT_URL, "SELECT * FROM staff_salaries",
                   extra=["-v", "VERBOSITY=verbose"])
    assert r.returncode != 0
    assert "42501" in r.stderr
    assert "staff_salaries" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("sql", [
    "SELECT nonexistent_column FROM orders",
    "SELECT 1 / 0",
    "SELECT id FROM orders WHERE amount > 'many'",
    "SELECT pg_catalog.lower(1)",
])
def test_psql_backend_errors_match_direct(sql):
    """Errors from the database itself come back unchanged: SQLSTATE,
    message, detail, hint and the position psql points at."""
    via = itest.psql(itest.AGENT_URL, sql, extra=["-v", "VERBOSITY=verbose"])
    ref = itest.psql(itest.direct_url(), sql, extra=["-v", "VERBOSITY=verbose"])
    assert ref.returncode != 0
    assert via.returncode == ref.returncode
    # VERBOSITY=verbose adds the backend's source location, which differs.
    strip = lambda err: [l for l in err.splitlines() if not l.startswith("LOCATION:")]
    assert strip(via.stderr) == strip(ref.stderr)
