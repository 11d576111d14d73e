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
        # One column, the validator's reading: no row of the hidden table.
        assert got[1] == ["?column?"], got
        assert got[2] == [("a\\ , (SELECT string_agg(name, chr(44)) FROM staff_salaries) AS x -- ",)], got
    got = outcome(itest.AGENT_URL, "SELECT current_setting('standard_conforming_strings')")
    assert got[2] == [("on",)], got


def test_settings_that_change_literal_parsing_refused():
    conn = itest.connect(itest.AGENT_URL, autocommit=True)
    try:
        for sql in ["SET standard_conforming_strings = off", "SET backslash_quote = on",
                    "SET escape_string_warning = off",
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


# ---- rules under the settings an agent may SET

# Rules that lean on settings, as an operator may well write them: a date
# literal (DateStyle orders it, TimeZone places its midnight) and a mask
# that turns a timestamp into a date (TimeZone decides which).
SENSITIVE = {
    "user support": {"filter public.orders": "customer_id <= 100 AND created_at < '01/02/2024'"},
    "user support_cols": {"columns public.orders": "id, customer_id, amount, created_at",
                          "mask public.orders.created_at": "created_at::date"},
}
# The same, written out for a direct connection under the database's defaults.
FILTERED = "(SELECT * FROM orders WHERE customer_id <= 100 AND created_at < '2024-01-02 00:00:00+00')"
MASKED = "(SELECT id, customer_id, round(amount, -2) AS amount, (created_at AT TIME ZONE 'UTC')::date AS created_at FROM orders)"

READS = [
    ("support", "SELECT count(*), max(id), max(created_at) FROM orders",
     "SELECT count(*), max(id), max(created_at) FROM %s o" % FILTERED),
    ("support", "SELECT id, customer_id FROM orders ORDER BY id DESC LIMIT 3",
     "SELECT id, customer_id FROM %s o ORDER BY id DESC LIMIT 3" % FILTERED),
    ("support_cols", "SELECT id, created_at::text FROM orders WHERE id IN (500, 700, 1000, 1439) ORDER BY id",
     "SELECT id, created_at::text FROM %s o WHERE id IN (500, 700, 1000, 1439) ORDER BY id" % MASKED),
    ("support_cols", "SELECT count(DISTINCT created_at) FROM orders WHERE id < 1440",
     "SELECT count(DISTINCT created_at) FROM %s o WHERE id < 1440" % MASKED),
]

# Each setting an agent may change that turns text into values or values
# into text, with values far from the defaults (as SQL).
CHANGES = [
    ("TimeZone", "'Pacific/Kiritimati'"), ("TimeZone", "'America/Adak'"), ("TimeZone", "'-11'"),
    ("DateStyle", "'SQL, DMY'"), ("DateStyle", "'ISO, DMY'"), ("DateStyle", "'German, YMD'"),
    ("IntervalStyle", "sql_standard"), ("extra_float_digits", "-15"), ("bytea_output", "escape"),
    ("search_path", "pg_catalog, public"), ("search_path", "public, pg_catalog"),
]
# What drivers set at connect, which must keep working.
HARMLESS = [("DateStyle", "'ISO'"), ("extra_float_digits", "3"), ("TimeZone", "'UTC'"),
            ("search_path", "public"), ("application_name", "'x'"), ("client_min_messages", "warning")]


@pytest.fixture(scope="module")
def sensitive():
    from private_airlockd import PrivateAirlockd

    d = PrivateAirlockd("rulesettings", {"pool_min": 0, "kill_margin_ms": 1000}, uid_base=1001500000,
                        sections=SENSITIVE).start()
    try:
        yield d
    finally:
        d.stop()
        d.clean()


def read(url, sets, sql):
    conn = itest.connect(url, autocommit=True)
    try:
        with conn.cursor() as cur:
            for name, value in sets:
                cur.execute("SET %s = %s" % (name, value))
            cur.execute(sql)
            return ("rows", cur.fetchall())
    except psycopg2.Error as e:
        return ("error", e.pgcode, str(e))
    finally:
        conn.close()


@pytest.mark.parametrize("user,through,direct", READS)
def test_rules_keep_their_meaning_under_every_setting(sensitive, user, through, direct):
    url = sensitive.url(user=user, password="support-secret")
    want = ("rows", itest.fetch_all(itest.direct_url(), direct))
    assert read(url, [], through) == want
    for change in CHANGES:
        got = read(url, [change], through)
        if got[0] == "error":
            # Refused (by the check, naming what to reset, or earlier: a literal the
            # setting cannot read, a type name the search_path no longer reaches
            # first); never other rows.
            assert got[1] in ("22P02", "22008", "0A000", "42704"), (change, got)
        else:
            assert got == want, (change, got, want)
    for change in HARMLESS:
        assert read(url, [change], through) == want, change
    assert read(url, HARMLESS, through) == want
    # Tables without a rule read under any setting.
    assert read(url, CHANGES[:1] + CHANGES[3:4], "SELECT 1")[0] == "rows"
