"""The runner containers of runtime = oci, inspected live: the runtime's
own state, the generated config.json, and what the kernel says of the
runner process (/proc/PID/status, limits, uid_map, mountinfo, net/dev,
its namespaces and its cgroup files). Then a runner taken over by an
attacker (integration/rogue/runner_escape.c) tries to get out, and its
report comes back as the statement's error. Each of these runs on both
OCI runtimes airlockd drives, runc and crun: the suite's (crun unless
AIRLOCK_OCI_RUNTIME says otherwise), and the other one in an airlockd of
its own."""

import json
import os
import subprocess
import time

import psycopg2
import pytest

import itest
from private_airlockd import PrivateAirlockd

pytestmark = pytest.mark.skipif(itest.RUNTIME != "oci",
                                reason="the airlockd under test runs runtime = %s" % itest.RUNTIME)

NAMESPACES = ("pid", "net", "ipc", "uts", "mnt", "cgroup", "user")
BINARIES = {"runc": "/usr/sbin/runc", "crun": "/usr/bin/crun"}
RUNTIMES = sorted(BINARIES)
SUITES = os.path.basename(itest.OCI_RUNTIME).split("-")[0]  # the runtime the suite's airlockd drives
OTHER_UIDS = 1005900000


@pytest.fixture(scope="module")
def other_airlockd():
    """An airlockd like the suite's that runs its runners with the runtime the suite's does not."""
    other = next(r for r in RUNTIMES if r != SUITES)
    d = PrivateAirlockd(other, {"oci_runtime": BINARIES[other], "pool_min": 2}, uid_base=OTHER_UIDS)
    d.start()
    yield d
    d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())


@pytest.fixture(params=RUNTIMES)
def runner(request):
    """A live warm runner of the airlockd under test or of the other one (by runtime), with its config.json."""
    job_dir, runtime = itest.JOB_DIR, None
    if request.param != SUITES:
        d = request.getfixturevalue("other_airlockd")
        job_dir, runtime = d.job_dir, BINARIES[request.param]
    deadline = time.time() + 20
    while time.time() < deadline:
        for r in itest.live_runners(job_dir, runtime):
            try:
                with open(os.path.join(r["bundle"], "config.json")) as f:
                    r["config"] = json.load(f)
                with open("/proc/%d/status" % r["pid"]) as f:
                    r["status"] = dict(ln.rstrip("\n").split(":\t", 1) for ln in f if ":\t" in ln)
                r["root"], r["runtime"] = job_dir, request.param
                return r
            except OSError:
                continue
        time.sleep(0.1)
    pytest.fail("no live runner container (pool_size=%d)" % itest.POOL_SIZE)


def read(pid, name):
    with open("/proc/%d/%s" % (pid, name)) as f:
        return f.read()


def test_bundle_is_outside_the_container(runner):
    assert runner["bundle"].startswith(os.path.join(runner["root"], itest.OCI_STATE, "bundles") + "/")
    # The container sees only /job, its own job directory: not the bundle, not other jobs.
    mounts = read(runner["pid"], "mountinfo")
    assert runner["bundle"] not in mounts
    assert os.stat(os.path.dirname(runner["bundle"])).st_uid == 0


def test_process_has_no_privileges(runner):
    st = runner["status"]
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(st[cap], 16) == 0, (cap, st[cap])
    assert st["NoNewPrivs"].strip() == "1"
    assert st["Seccomp"].strip() == "2"  # a filter
    uid = int(st["Uid"].split()[0])
    gid = int(st["Gid"].split()[0])
    low, high = (1000000000, 1000065535) if runner["runtime"] == SUITES else (OTHER_UIDS, OTHER_UIDS + 999)
    assert low <= uid <= high and gid == uid
    assert all(int(x) == uid for x in st["Uid"].split())
    cfg = runner["config"]["process"]
    assert cfg["noNewPrivileges"] is True
    assert all(cfg["capabilities"][k] == [] for k in cfg["capabilities"])


def test_user_namespace_maps_only_two_ids(runner):
    uid = runner["uid"]
    lines = [ln.split() for ln in read(runner["pid"], "uid_map").splitlines()]
    assert sorted(lines) == sorted([["0", "65534", "1"], [str(uid), str(uid), "1"]])


def test_own_namespaces(runner):
    for ns in NAMESPACES:
        mine = os.readlink("/proc/self/ns/%s" % ns)
        theirs = os.readlink("/proc/%d/ns/%s" % (runner["pid"], ns))
        assert mine != theirs, ns


def test_no_network_interfaces(runner):
    devs = [ln.split(":")[0].strip() for ln in read(runner["pid"], "net/dev").splitlines()[2:]]
    assert devs == ["lo"]
    # Not even loopback is up: nothing to connect to.
    out = subprocess.run(["nsenter", "-t", str(runner["pid"]), "-n", "ip", "-o", "link"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    # Only the namespace's own loopback, which reaches nothing but this namespace.
    assert len(out.splitlines()) == 1 and ": lo:" in out, out
    routes = subprocess.run(["nsenter", "-t", str(runner["pid"]), "-n", "ip", "-o", "route", "show", "table", "all"],
                            capture_output=True, text=True, timeout=10, check=True).stdout
    assert all(" lo " in ln or ln.endswith(" lo") or "dev lo" in ln for ln in routes.splitlines()), routes


def mount_options(pid, target):
    for ln in read(pid, "mountinfo").splitlines():
        f = ln.split()
        if f[4] == target:
            return f[5].split(",")
    return None


def test_root_and_job_read_only(runner):
    assert "ro" in mount_options(runner["pid"], "/")
    assert "ro" in mount_options(runner["pid"], "/job")
    assert "ro" in mount_options(runner["pid"], "/proc/sys")
    # Each masked file this kernel has is covered (a file it lacks cannot be read anyway).
    for masked in ("/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug"):
        if os.path.exists(masked):
            assert mount_options(runner["pid"], masked) is not None, masked
    assert runner["config"]["root"]["readonly"] is True


def test_rlimits(runner):
    limits = read(runner["pid"], "limits")
    core = next(ln for ln in limits.splitlines() if ln.startswith("Max core file size"))
    assert core.split()[4:6] == ["0", "0"], core
    files = next(ln for ln in limits.splitlines() if ln.startswith("Max open files"))
    assert files.split()[3:5] == ["256", "256"], files
    # runc: no file may be written at all; crun writes its seccomp filter into a file after it has
    # set the rlimits, so its runners may write 32 KiB (launch/oci_spec.h, OCI_FSIZE_CRUN).
    size = next(ln for ln in limits.splitlines() if ln.startswith("Max file size"))
    want = "32768" if runner["runtime"] == "crun" else "0"
    assert size.split()[3:5] == [want, want], size


def cgroup_file(pid, controller, name):
    """The file name of the cgroup controller that holds pid (v1 or v2)."""
    for ln in read(pid, "cgroup").splitlines():
        _, ctrls, path = ln.split(":", 2)
        if controller in ctrls.split(",") and os.path.exists("/sys/fs/cgroup/%s%s/%s" % (controller, path, name)):
            return "/sys/fs/cgroup/%s%s/%s" % (controller, path, name)
        if ctrls == "" and os.path.exists("/sys/fs/cgroup%s/%s" % (path, name)):
            return "/sys/fs/cgroup%s/%s" % (path, name)
    raise AssertionError("no %s/%s for %d:\n%s" % (controller, name, pid, read(pid, "cgroup")))


def cgroup_value(pid, controller, name):
    with open(cgroup_file(pid, controller, name)) as f:
        return f.read().strip()


def test_cgroup_limits(runner):
    pid = runner["pid"]
    mem = 128 * 1024 * 1024
    if os.path.exists("/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        assert int(cgroup_value(pid, "memory", "memory.limit_in_bytes")) == mem
        assert int(cgroup_value(pid, "memory", "memory.memsw.limit_in_bytes")) == mem
        assert cgroup_value(pid, "cpu", "cpu.cfs_quota_us") == "50000"
        assert cgroup_value(pid, "cpu", "cpu.cfs_period_us") == "100000"
    else:
        assert int(cgroup_value(pid, "memory", "memory.max")) == mem
        assert cgroup_value(pid, "memory", "memory.swap.max") == "0"
        assert cgroup_value(pid, "cpu", "cpu.max") == "50000 100000"
    assert cgroup_value(pid, "pids", "pids.max") == "64"


def test_no_credentials_in_config_or_environment(runner):
    # The runner may be a Postgres or a MariaDB target's: neither backend's password may be there.
    blob = json.dumps(runner["config"])
    for secret in (itest.backend_password(), itest.my_backend_password(), "agent-secret"):
        assert secret not in blob
    env = open("/proc/%d/environ" % runner["pid"], "rb").read().split(b"\0")
    # config.json gives PATH=/ and GnuTLS's switch (launch/launcher.h); runc adds HOME=/, crun does not.
    assert sorted(e for e in env if e and e != b"HOME=/") == [b"GNUTLS_NO_IMPLICIT_INIT=1", b"PATH=/"]


# ---- a runner taken over ----

@pytest.fixture(scope="module", params=RUNTIMES)
def escaped(request):
    binary = os.path.join(itest.REPO, "build", "runner_escape")
    if not os.access(binary, os.X_OK):
        pytest.fail("%s is missing: build/ must be built (test.sh does)" % binary)
    out = subprocess.run([os.path.join(itest.REPO, "integration", "tools", "build-runner-image.sh"), "--rootfs",
                          os.path.join(itest.STATE_DIR, "escape-rootfs.tar"), binary],
                         capture_output=True, text=True, check=True).stdout
    server = {"runner_rootfs": out.split()[-1], "pool_min": 0}
    server["oci_runtime"] = BINARIES[request.param]
    d = PrivateAirlockd("escape" + request.param, server, uid_base=1000600000)
    d.start()
    conn = d.connect()
    try:
        with conn.cursor() as cur:
            with pytest.raises(psycopg2.Error) as e:
                cur.execute("SELECT 1")
    finally:
        conn.close()
        d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())
    msg = e.value.pgerror or str(e.value)
    assert "escape:" in msg, msg
    return dict(kv.split("=", 1) for kv in msg.split("escape:", 1)[1].split() if "=" in kv)


@pytest.mark.parametrize("attempt", ["inet", "inet6", "netlink", "unshare_user", "unshare_net", "fork",
                                     "mount", "ptrace", "keyctl", "bpf", "setuid0"])
def test_escape_refused(escaped, attempt):
    assert escaped[attempt] == "EPERM", escaped


@pytest.mark.parametrize("attempt", ["write_root", "write_job", "write_sysrq"])
def test_escape_cannot_write(escaped, attempt):
    # ENOENT: a kernel without /proc/sysrq-trigger
    allowed = ("EROFS", "EACCES", "EPERM") + (("ENOENT",) if not os.path.exists("/proc/sysrq-trigger") else ())
    assert escaped[attempt] in allowed, escaped


def test_escape_sees_masked_proc(escaped):
    assert "kcore_empty" in escaped, escaped
    assert escaped["uid_nonzero"] == "ok" and escaped["no_new_privs"] == "ok", escaped


# ---- failing closed ----

def first_error(d, sql="SELECT 1"):
    conn = d.connect()
    try:
        with conn.cursor() as cur:
            with pytest.raises(psycopg2.Error) as e:
                cur.execute(sql)
        return e.value
    finally:
        conn.close()


def test_missing_runtime_binary_fails_closed():
    d = PrivateAirlockd("noruntime", {"oci_runtime": "/nonexistent/runc", "pool_min": 0}, uid_base=1000610000)
    d.start()
    try:
        err = first_error(d)
        assert err.pgcode == "58000" and "RUNTIME_UNAVAILABLE" in str(err), str(err)
        assert "RUNTIME_UNAVAILABLE" in d.log()
        assert d.alive()
    finally:
        d.stop()


def test_root_filesystem_with_another_digest_fails_closed():
    with open(os.path.join(itest.STATE_DIR, "runner_rootfs")) as f:
        path = f.read().strip().split("@")[0]
    d = PrivateAirlockd("baddigest", {"runner_rootfs": path + "@sha256:" + "0" * 64, "pool_min": 0},
                        uid_base=1000620000)
    d.start()
    try:
        err = first_error(d)
        assert err.pgcode == "58000" and "IMAGE_UNAVAILABLE" in str(err), str(err)
        assert "not the pinned digest" in d.log()
        assert not d.containers()
    finally:
        d.stop()
