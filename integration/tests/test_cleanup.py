"""After the suite: no finished container and no stale job directory left
(only the warm pool, at most pool_size of each, may remain)."""

import os
import subprocess

import pytest

import itest

# After every other test: it looks at what the whole run left behind.
pytestmark = pytest.mark.final


def containers():
    return itest.runner_containers()


def not_running():
    running = set(itest.runner_containers(running_only=True))
    return [c for c in containers() if c not in running]


def described():
    """Each container left, with its name (airlock-<job id>, to find in airlockd's log) and state."""
    if itest.RUNTIME == "oci":
        return ["%s %s" % (c["id"], c["status"]) for c in itest.oci_list(itest.JOB_DIR)]
    return subprocess.run(["docker", "ps", "-a", "--filter", "label=airlock.root=" + itest.JOB_DIR, "--format",
                           "{{.ID}} {{.Names}} {{.Status}} (created {{.CreatedAt}})"],
                          capture_output=True, text=True, timeout=30).stdout.splitlines()


def test_no_leftover_containers():
    ok = itest.wait_until(lambda: not not_running() and
                          len(containers()) <= itest.WARM_MAX, 20)
    assert ok, "containers left: %s (warm at most %d)" % (described(), itest.WARM_MAX)


def test_no_leftover_job_dirs():
    def few():
        return len([n for n in os.listdir(itest.JOB_DIR) if n not in (itest.OCI_STATE, itest.LOCK_FILE)]) <= itest.WARM_MAX

    assert itest.wait_until(few, 20), os.listdir(itest.JOB_DIR)
