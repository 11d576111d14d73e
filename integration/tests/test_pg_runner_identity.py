"""The runners' identity on the host is their own. Played as a local
attacker against the live warm runners (both targets' pools): each runner
runs as a uid of its own from runner_uids, which no host account has; a
process running as the host's `nobody` (65534, the old default runner
uid), as another uid, or even as another runner's uid, cannot list the job
directory, connect to the control socket or the relay, or read the
runner's memory or environment; and the runner is not dumpable, so not
even a process with its own uid could read its memory, on the host or
inside the runner's own user namespace (runtime = oci), where that uid is
the runner's and nothing but PR_SET_DUMPABLE keeps it out."""

import os
import pwd
import stat
import subprocess
import sys
import textwrap
import time

import pytest

import itest

NOBODY = 65534

# Run as the uid given: each probe prints what it reached, one word a line.
PROBE = textwrap.dedent(r"""
    import os, socket, sys
    job_dir, pid = sys.argv[1], sys.argv[2]
    def attempt(what, fn):
        try:
            fn()
            print(what, "REACHED")
        except OSError as e:
            print(what, "refused", e.errno)
    def connect(name):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(os.path.join(job_dir, name))
        finally:
            s.close()
    attempt("list", lambda: os.listdir(job_dir))
    attempt("control", lambda: connect("control.sock"))
    for name in (".s.PGSQL.5432", "mysqld.sock"):
        if os.path.exists(os.path.join(job_dir, name)):
            attempt("relay", lambda: connect(name))
    attempt("mem", lambda: open("/proc/%s/mem" % pid, "rb").read(1))
    attempt("environ", lambda: open("/proc/%s/environ" % pid, "rb").read(1))
""")


def runners():
    """(uid, host pid, job directory) of every running runner container."""
    return [(r["uid"], r["pid"], r["job_dir"]) for r in itest.live_runners()]


def alive(pid, job_dir):
    return os.path.exists("/proc/%d" % pid) and os.path.isdir(job_dir)


def warm_runners(n=2):
    """At least n live runners (both targets' pools are warm). Runners of
    finished jobs come and go; callers that need one to stay up check
    alive() after using it and try again with a fresh list."""
    deadline = time.time() + 30
    while time.time() < deadline:
        rs = [r for r in runners() if alive(r[1], r[2])]
        if len(rs) >= n:
            return rs
        time.sleep(0.3)
    pytest.fail("fewer than %d runner containers came up (pool_size=%d)" % (n, itest.POOL_SIZE))


def on_live_runners(check, tries=10):
    """Runs check(runners) until it returns something and the runners it
    was given were all still up afterwards (so what it saw was about live
    runners, not exited ones); check returns None when one exited."""
    for _ in range(tries):
        rs = warm_runners()
        result = check(rs)
        if result is not None and all(alive(pid, d) for _, pid, d in rs[:2]):
            return result
    pytest.fail("runner containers kept exiting while they were probed")


def probe(uid, job_dir, pid):
    out = subprocess.run([sys.executable, "-c", PROBE, job_dir, str(pid)], user=uid, group=uid,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_each_runner_has_a_uid_of_its_own():
    def check(rs):
        uids = [uid for uid, _, _ in rs]
        assert len(set(uids)) == len(uids), uids
        statuses = []
        for uid, pid, _ in rs[:2]:
            assert uid != NOBODY and uid != 0
            with pytest.raises(KeyError):
                pwd.getpwuid(uid)
            try:
                with open("/proc/%d/status" % pid) as f:
                    statuses.append((uid, f.read()))
            except FileNotFoundError:
                return None  # exited meanwhile: on_live_runners tries again
        return statuses

    for uid, status in on_live_runners(check):
        # The process itself runs as that uid, not just the container's metadata.
        assert "\nUid:\t%d\t%d\t%d\t%d\n" % (uid, uid, uid, uid) in status, status


def test_nobody_and_other_uids_reach_nothing():
    def check(rs):
        (_, pid_a, dir_a), (uid_b, _, _) = rs[0], rs[1]
        return [(attacker, probe(attacker, dir_a, pid_a)) for attacker in (NOBODY, 12345, uid_b)]

    for attacker, seen in on_live_runners(check):
        assert "REACHED" not in seen, (attacker, seen)
        # Refused by permission (13), not missing (2): the runner was there.
        assert "control refused 13" in seen and "mem refused 13" in seen, (attacker, seen)


def probe_in_its_user_namespace(uid, pid):
    """PROBE as uid inside the runner's own user namespace (runtime = oci), where a process of its uid
    is no stranger: only the runner's being non-dumpable keeps it out of the memory there."""
    out = subprocess.run(["nsenter", "--target", str(pid), "--user", "--setuid", str(uid), "--setgid", str(uid),
                          sys.executable, "-c", PROBE, "/nonexistent", str(pid)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_runner_is_not_dumpable():
    """Even a process with the runner's own uid cannot read its memory: on the host, and in the
    runner's own user namespace, where the namespace no longer stands in the way."""
    def check(rs):
        uid, pid, _ = rs[0]
        seen = [("host", probe(uid, "/nonexistent", pid))]
        try:
            own = os.readlink("/proc/%d/ns/user" % pid) != os.readlink("/proc/self/ns/user")
        except FileNotFoundError:
            return None
        if own:
            seen.append(("its user namespace", probe_in_its_user_namespace(uid, pid)))
        return seen

    seen = on_live_runners(check)
    if itest.RUNTIME == "oci":
        assert len(seen) == 2, seen
    for where, out in seen:
        assert "mem refused 13" in out and "environ refused 13" in out, (where, out)


def test_job_directory_is_root_owned():
    def check(rs):
        seen = []
        for uid, _, job_dir in rs[:2]:
            try:
                st = os.lstat(job_dir)
                socks = [(name, os.lstat(os.path.join(job_dir, name))) for name in os.listdir(job_dir)]
            except FileNotFoundError:
                return None
            seen.append((uid, job_dir, st, socks))
        return seen

    for uid, job_dir, st, socks in on_live_runners(check):
        assert st.st_uid == 0 and (st.st_mode & 0o777) == 0o711, oct(st.st_mode)
        assert socks
        for name, sst in socks:
            if name == "ca.pem":
                # A TLS target's CA certificates: the runner reads them, root keeps them.
                assert stat.S_ISREG(sst.st_mode) and sst.st_uid == 0 and (sst.st_mode & 0o777) == 0o644, \
                    oct(sst.st_mode)
                continue
            assert stat.S_ISSOCK(sst.st_mode), name
            assert sst.st_uid == uid and (sst.st_mode & 0o777) == 0o600, (name, oct(sst.st_mode))


def test_airlockd_writes_no_core_file():
    """A crash of airlockd must not write its memory (backend passwords) anywhere: core size 0, soft and hard."""
    pid = os.environ.get("AIRLOCKD_PID")
    if not pid:
        pytest.fail("AIRLOCKD_PID is not set: run through integration/test.sh")
    with open("/proc/%s/limits" % pid) as f:
        line = next(ln for ln in f if ln.startswith("Max core file size"))
    assert line.split()[4:6] == ["0", "0"], line
