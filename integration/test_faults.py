"""Faults, each against the real components and a private airlockd of the
test's own (private_airlockd.py): a runner that stays up after its result.
For each fault the client gets a clear native answer, never a hang, and
afterwards no container, job directory or backend connection is left."""

import os
import subprocess
import time

import pytest

from itest import REPO, wait_until
from private_airlockd import PrivateAirlockd

PG_PORT = 5432
LINGER_BIN = os.path.join(REPO, "build", "runner_linger")


@pytest.fixture(scope="module")
def linger_image():
    """A runner image whose runner answers, then stays up holding its relay (integration/rogue/)."""
    if not os.access(LINGER_BIN, os.X_OK):
        pytest.fail("%s is missing: build/ must be built (test.sh does)" % LINGER_BIN)
    out = subprocess.run([os.path.join(REPO, "integration", "build-runner-image.sh"), LINGER_BIN,
                          "airlock-runner:linger"], capture_output=True, text=True, check=True).stdout
    return out.split()[-1]


@pytest.fixture
def lingering(linger_image):
    d = PrivateAirlockd("linger", {"runner_image": linger_image, "pool_size": 0,
                                   "kill_margin_ms": 3000})
    d.start()
    yield d
    status = d.stop()
    assert d.clean(), "containers or job directories left: %s %s" % (d.containers(), d.job_dirs())
    assert status in (0, -15), d.log()[-3000:]


def test_runner_that_stays_up_loses_its_relay_and_is_killed(lingering):
    """The agent's statement was long since answered; the runner must not keep a container
    or a path to the backend (its relay) for as long as it likes."""
    conn = lingering.connect()
    cur = conn.cursor()
    t0 = time.monotonic()
    cur.execute("SELECT 1")
    assert cur.statusmessage == "SELECT 0"
    # The rogue runner is alive, but its backend connection closed with the result.
    assert lingering.containers(), "the rogue runner exited by itself: the test proves nothing"
    assert wait_until(lambda: not lingering.backend_sockets(PG_PORT), 2, 0.05), \
        lingering.backend_sockets(PG_PORT)
    assert lingering.containers(), "relay check came too late to tell the two mechanisms apart"
    # Then kill_margin_ms (3 s) after the result, the container goes; timeout_ms (10 s) plays no part.
    assert wait_until(lambda: not lingering.containers(), 9, 0.1), lingering.log()[-2000:]
    assert time.monotonic() - t0 < 9.5
    assert "still running 3000 ms after its result" in lingering.log()
    # The session goes on.
    cur.execute("SHOW airlock.policy")
    conn.close()
