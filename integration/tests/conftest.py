"""Fixtures for the airlock integration tests (run by integration/test.sh,
which starts airlockd with the test config and exports the AIRLOCK_* URLs)."""

import os

import pytest

import itest

# The order of the run, by marker rather than by file name: a test marked
# disruptive stops a service the others use (Postgres, the Docker engine)
# and runs after them; one marked final looks at what the whole run left
# behind and runs last. Within a rank, pytest's own order.
RANKS = (("final", 2), ("disruptive", 1))


def pytest_configure(config):
    config.addinivalue_line("markers", "disruptive: stops a service other tests use; runs after them")
    config.addinivalue_line("markers", "final: looks at what the whole run left behind; runs last")
    config.addinivalue_line("markers", "serial: runs with no other lane of the suite running (see lane_of)")


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        for name, r in RANKS:
            if item.get_closest_marker(name):
                return r
        return 0

    items.sort(key=rank)
    lane = os.environ.get("AIRLOCK_LANE")
    if lane:
        keep = [i for i in items if lane_of(i) == lane]
        config.hook.pytest_deselected(items=[i for i in items if lane_of(i) != lane])
        items[:] = keep


# integration/test.sh runs the suite in lanes: "pg" and "my" at the same
# time, each against an airlockd of its own, then "serial" alone. A lane
# shares the machine's Postgres or MariaDB with no other lane running at
# the same time: the Postgres files (test_pg_*) change and compare only
# Postgres, the MySQL files (test_my_*) only MariaDB. A test that stops a
# service the others use, looks at the whole run, or is marked serial (it
# measures time, or uses both databases) runs in the serial lane.
# Files outside test_pg_* / test_my_* that run in a lane: they touch only
# the lane's database, with airlockds of their own, and compare no data
# another lane changes. A schema of their own in the shop database is not
# enough (the Postgres lane's snapshot_guard compares every schema of
# shop: test_state_store.py and test_workers.py make one), and neither is
# reading Postgres from the MySQL lane (while test_soak.py ran there,
# test_pg_dump.py's pg_dump, which through airlock reads its catalogs one
# statement and one snapshot at a time, once found a schema gone between
# two reads), so those three run in the serial lane.
LANE_FILES = {}


def lane_of(item):
    if any(item.get_closest_marker(m) for m in ("disruptive", "final", "serial")):
        return "serial"
    name = os.path.basename(str(item.fspath))
    if name in LANE_FILES:
        return LANE_FILES[name]
    if name.startswith("test_pg_"):
        return "pg"
    if name.startswith("test_my_"):
        return "my"
    return "serial"


@pytest.fixture(autouse=True)
def airlockd_survives():
    """Every test ends with airlockd still running."""
    yield
    pid = os.environ.get("AIRLOCKD_PID")
    if pid:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            pytest.fail("airlockd (pid %s) is gone" % pid)


@pytest.fixture
def agent():
    """psycopg2 connection as agent through airlock, autocommit off."""
    conn = itest.connect(itest.AGENT_URL)
    yield conn
    conn.close()


@pytest.fixture
def agent_ac():
    """Same, autocommit on."""
    conn = itest.connect(itest.AGENT_URL, autocommit=True)
    yield conn
    conn.close()


@pytest.fixture
def small():
    """psycopg2 connection as agent_small (max_rows 5, max_bytes 2000, 2 s)."""
    conn = itest.connect(itest.SMALL_URL, autocommit=True)
    yield conn
    conn.close()


@pytest.fixture
def direct():
    """psycopg2 connection straight to Postgres as airlock_ro."""
    conn = itest.connect(itest.direct_url())
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def snapshot_guard():
    """The database is the same after the module's tests as before."""
    before = itest.db_snapshot()
    yield
    assert itest.db_snapshot() == before, "the shop database changed"


# ---------------------------------------------------------------- MySQL

@pytest.fixture
def my_agent():
    """PyMySQL connection as agent through airlock's MySQL listener, autocommit on."""
    conn = itest.my_connect(autocommit=True)
    yield conn
    conn.close()


@pytest.fixture
def my_agent_tx():
    """Same, autocommit off (PyMySQL's default: it sends SET AUTOCOMMIT = 0)."""
    conn = itest.my_connect()
    yield conn
    conn.close()


@pytest.fixture
def my_small():
    """PyMySQL connection as agent_small (max_rows 5, max_bytes 2000, 2 s)."""
    conn = itest.my_connect(user="agent_small", autocommit=True)
    yield conn
    conn.close()


@pytest.fixture
def my_direct():
    """PyMySQL connection straight to MariaDB as airlock_ro, autocommit on."""
    conn = itest.my_direct(autocommit=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def my_snapshot_guard():
    """The MariaDB shop database is the same after the module's tests as before."""
    before = itest.my_snapshot()
    yield
    assert itest.my_snapshot() == before, "the MariaDB shop database changed"
