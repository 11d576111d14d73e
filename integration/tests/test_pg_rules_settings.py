"""Settings cannot change what a statement means behind the validator's
back, played as an attacker over the real protocol: the validator parses
with standard_conforming_strings on, so the backend must too, whatever
the backend role's default; and the settings an agent may SET keep the
rows read through a row filter and a mask what the operator wrote."""

import psycopg2
import pytest

import itest

pytestmark = pytest.mark.usefixtures("snapshot_guard")

SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")
COLS_URL = itest.AGENT_URL.replace("agent:agent-secret", "support_cols:support-secret")

# Read with standard_conforming_strings on (the validator's reading): one
# string 'a\' and a second one holding the rest, a harmless concatenation.
# Read with it off, \' escapes the quote and the hidden table is read
# outside any string, the trailing quote commented out.
SPLIT = ("SELECT 'a\\' || ' , (SELECT string_agg(name, chr(44)) FROM staff_salaries) AS x -- '")


def outcome(url, sql):
    conn = itest.connect(url, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", [d.name for d in cur.description], cur.fetchall())
    except psycopg2.Error as e:
        return ("error", e.pgcode, str(e))
    finally:
        conn.close()


@pytest.fixture
def backend_default_strings_off():
    """The backend role's default turned to standard_conforming_strings = off
    (an operator's setting, or a database's), put back after."""
    itest.super_query("ALTER ROLE airlock_ro SET standard_conforming_strings = off")
    try:
        yield
    finally:
        itest.super_query("ALTER ROLE airlock_ro RESET standard_conforming_strings")
        # Runners warmed while it was off are used up, so later tests get fresh ones.
        for _ in range(itest.WARM_MAX + 2):
            outcome(itest.AGENT_URL, "SELECT 1")


def test_validator_and_backend_read_string_literals_alike(backend_default_strings_off):
    # Runners warmed before the change still carry the old default: go past them.
    for _ in range(itest.WARM_MAX + 4):
        got = outcome(itest.AGENT_URL, SPLIT)
        assert got[0] == "rows", got
        assert got[1] == ["?column?"], got
        assert "staff" not in repr(got[2]), got
        assert got[2] == [("a\\ , (SELECT string_agg(name, chr(44)) FROM staff_salaries) AS x -- ",)], got
    got = outcome(itest.AGENT_URL, "SELECT current_setting('standard_conforming_strings')")
    assert got[2] == [("on",)], got


def test_settings_that_change_literal_parsing_refused():
    conn = itest.connect(itest.AGENT_URL, autocommit=True)
    try:
        for sql in ["SET standard_conforming_strings = off", "SET backslash_quote = on",
                    "SET escape_string_warning = off", "SET LOCAL standard_conforming_strings TO off",
                    "SELECT set_config('standard_conforming_strings', 'off', false)"]:
            with pytest.raises(psycopg2.Error) as info:
                with conn.cursor() as cur:
                    cur.execute(sql)
            assert info.value.pgcode in ("25006", "42501"), (sql, info.value.pgcode, str(info.value))
        with conn.cursor() as cur:
            cur.execute("SHOW standard_conforming_strings")
            assert cur.fetchone() == ("on",)
    finally:
        conn.close()
    # Nor at start-up, in the options parameter.
    with pytest.raises(psycopg2.OperationalError):
        itest.connect(itest.with_params(itest.AGENT_URL, options="-c%20standard_conforming_strings%3Doff"))

