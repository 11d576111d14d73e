"""After the suite: no finished container and no stale job directory left
(only the warm pool, at most pool_size of each, may remain)."""

import os
import subprocess

import itest


def containers(*extra):
    r = subprocess.run(["docker", "ps", "-a", "-q", "--filter", "label=airlock.job", *extra],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def not_running():
    return [c for c in containers() if c not in containers("--filter", "status=running")]


def test_no_leftover_containers():
    ok = itest.wait_until(lambda: not not_running() and
                          len(containers()) <= itest.WARM_MAX, 20)
    assert ok, "containers left: %s (warm at most %d)" % (containers(), itest.WARM_MAX)


def test_no_leftover_job_dirs():
    def few():
        return len(os.listdir(itest.JOB_DIR)) <= itest.WARM_MAX

    assert itest.wait_until(few, 20), os.listdir(itest.JOB_DIR)
