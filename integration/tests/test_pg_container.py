"""The runner containers airlockd starts, as the Docker engine reports
them: no network, read-only root, no capabilities, no-new-privileges, a
non-root user, the configured caps, the job directory mounted read-only,
and no credential anywhere in the container's metadata."""

import json
import subprocess
import time

import pytest

import itest

pytestmark = pytest.mark.skipif(itest.RUNTIME != "docker", reason="the airlockd under test runs runtime = %s" % itest.RUNTIME)


def runner_containers():
    """The running runner containers of the airlockd under test (another lane's airlockd has its own job_dir)."""
    return itest.runner_containers(running_only=True)


def inspect(cid):
    """docker inspect of one container, or None when it is already gone."""
    out = subprocess.run(["docker", "inspect", cid], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)[0]


@pytest.fixture
def live_runner():
    """A runner container that is up (a warm one, with pool_size > 0).
    Containers of finished jobs come and go: one that is gone by the time
    it is inspected, or no longer running, is skipped."""
    deadline = time.time() + 20
    while time.time() < deadline:
        for cid in runner_containers():
            info = inspect(cid)
            if info and info["State"]["Running"]:
                return info
        time.sleep(0.2)
    pytest.fail("no runner container appeared (pool_size=%d)" % itest.POOL_SIZE)


def test_runner_container_settings(live_runner):
    hc = live_runner["HostConfig"]
    cfg = live_runner["Config"]
    assert hc["NetworkMode"] == "none"
    assert cfg.get("NetworkDisabled") is True
    assert hc["ReadonlyRootfs"] is True
    assert hc["CapDrop"] == ["ALL"]
    assert "no-new-privileges" in hc["SecurityOpt"]
    assert hc["Privileged"] is False
    assert hc["Memory"] == 128 * 1024 * 1024
    assert hc["MemorySwap"] == hc["Memory"]
    assert hc["NanoCpus"] == 500000000
    assert hc["PidsLimit"] == 64
    uid, gid = (int(x) for x in cfg["User"].split(":"))
    # One uid of runner_uids per job, its gid the same number (tests/conf, test_pg_runner_identity).
    assert 1000000000 <= uid <= 1000065535 and gid == uid
    mounts = live_runner["Mounts"]
    assert len(mounts) == 1
    assert mounts[0]["Destination"] == "/job"
    assert mounts[0]["RW"] is False
    assert mounts[0]["Source"].startswith(itest.JOB_DIR + "/")
    # Only the runner's own network namespace: no interfaces to reach anything.
    assert live_runner["NetworkSettings"]["Networks"].keys() <= {"none"}


def test_no_credentials_in_container_metadata(live_runner):
    secret = itest.backend_password()
    blob = json.dumps(live_runner)
    assert secret not in blob
    assert "agent-secret" not in blob
    # GnuTLS's switch (launch/launcher.h), and the engine's default PATH: nothing else.
    env = live_runner["Config"].get("Env") or []
    assert "GNUTLS_NO_IMPLICIT_INIT=1" in env
    assert all(e.startswith("PATH=") for e in env if e != "GNUTLS_NO_IMPLICIT_INIT=1")


def test_image_is_pinned_by_digest(live_runner):
    assert live_runner["Image"].startswith("sha256:")
    assert live_runner["Config"]["Image"].startswith("sha256:")
