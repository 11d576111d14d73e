"""pg_dump, as people run it to hand an agent's schema to an LLM:
--schema-only of the allowed tables through airlock prints what it prints
directly (but for the server version, the owner, which is the agent in its
world, and the grants, which would name the backend role), a hidden table fails as a missing one, and a dump cut by the
user's caps fails where pg_dump shows it. pg_dump reads whole catalogs
(pg_description and pg_depend hold thousands of rows on a fresh
database), so the dumping user here has room for them."""

import difflib
import os
import re
import subprocess
from urllib.parse import urlparse

import pytest

import itest
from private_airlockd import PrivateAirlockd


@pytest.fixture(scope="module")
def private():
    d = PrivateAirlockd("pgdump", {"pool_min": 0}, uid_base=1002400000, sections={
        "user agent": {"max_rows": "100000", "max_bytes": "67108864"}})
    d.start()
    yield d
    assert d.stop() in (0, -15)


def dump(*args, direct=False, port=None):
    url = os.environ["AIRLOCK_DIRECT_URL"] if direct else itest.AGENT_URL
    if port:
        url = url.replace(":%d/" % urlparse(url).port, ":%d/" % port)
    env = dict(itest.clean_env())
    return subprocess.run(["pg_dump", "--no-password", "-d", url] + list(args), capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, cwd="/", env=env)


def test_schema_of_an_allowed_table(private):
    """Privileges aside: ACLs read as NULL in the agent's world (the grants name the backend role), so
    through airlock the dump has no GRANT, and never names airlock_ro."""
    whole = dump("--schema-only", "-t", "orders", port=private.pg_port)
    assert whole.returncode == 0, whole.stderr
    assert "GRANT" not in whole.stdout and "airlock_ro" not in whole.stdout
    got = dump("--schema-only", "--no-privileges", "-t", "orders", port=private.pg_port)
    assert got.returncode == 0, got.stderr
    want = dump("--schema-only", "--no-privileges", "-t", "orders", direct=True)
    assert want.returncode == 0, want.stderr
    assert same(got.stdout) == same(want.stdout), "\n".join(difflib.unified_diff(
        same(want.stdout).splitlines(), same(got.stdout).splitlines(), "direct", "airlock", lineterm=""))


def same(text):
    """The dump without what differs by design or between any two runs: the key of psql's \\restrict
    lines, the server version (airlock reports 15.0) and the owner (the agent is the world's one role)."""
    text = re.sub(r"^\\(restrict|unrestrict) \S+$", r"\\\1 KEY", text, flags=re.M)
    text = re.sub(r"^-- Dumped from database version .*$", "-- Dumped from database version X", text, flags=re.M)
    return re.sub(r"(Owner: |OWNER TO )(postgres|agent)\b", r"\1OWNER", text)


def test_hidden_table_fails_as_a_missing_one(private):
    hidden = dump("--schema-only", "-t", "staff_salaries", port=private.pg_port)
    missing = dump("--schema-only", "-t", "no_such_table", port=private.pg_port)
    assert hidden.returncode == missing.returncode != 0
    assert hidden.stderr.replace("staff_salaries", "X") == missing.stderr.replace("no_such_table", "X")


def test_dump_past_the_caps_fails_where_pg_dump_shows_it():
    """The demo's agent may read 1,000 rows a statement: pg_dump's catalog reads are cut, and the cut
    is an error pg_dump prints and exits on, never a dump that passes for the whole schema."""
    got = dump("--schema-only", "-t", "orders")
    assert got.returncode != 0
    assert "RESULT_TRUNCATED" in got.stderr, got.stderr


def test_data_dump_within_the_caps(private):
    got = dump("--data-only", "-t", "products", port=private.pg_port)
    assert got.returncode == 0, got.stderr
    want = dump("--data-only", "-t", "products", direct=True)
    assert same(got.stdout) == same(want.stdout)
    assert "COPY public.products" in got.stdout

