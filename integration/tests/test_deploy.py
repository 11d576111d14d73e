"""The deployment files under deploy/, checked as far as this machine can
run them (deploy/README.md says what that is):

- the systemd unit passes `systemd-analyze verify` and `security`, and
  airlockd run with exactly the unit's NoNewPrivileges and
  CapabilityBoundingSet (applied with setpriv) starts runners with runc
  and answers over both protocols; without CAP_SYS_ADMIN it cannot;
- the Kubernetes manifests have the objects and the names that tie them
  together, and the ConfigMap's airlock.ini, with the Secret's files
  beside it, passes `airlockd --check-config`;
- airlockd's own image builds locally and its airlockd runs: --version,
  and --check-config of the manifests' config with the image's runner
  root filesystem digest."""

import os
import re
import shutil
import subprocess
import tempfile

import pymysql
import pytest
import yaml

import itest
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UNIT = os.path.join(REPO, "deploy", "systemd", "airlockd.service")
MANIFESTS = os.path.join(REPO, "deploy", "kubernetes", "airlock.yaml")
BUILD_IMAGE = os.path.join(REPO, "deploy", "container", "build-image.sh")
UID_BASE = 1005200000
# The unit, the image and the manifests ship runc (oci_runtime's default), whatever the suite runs.
RUNC = "/usr/sbin/runc"


def unit_value(key):
    with open(UNIT) as f:
        values = [line.split("=", 1)[1].strip() for line in f if line.startswith(key + "=")]
    assert len(values) == 1, key
    return values[0]


# The capabilities' numbers (linux/capability.h).
CAP_NUMBERS = {name: i for i, name in enumerate(
    "chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap linux_immutable net_bind_service "
    "net_broadcast net_admin net_raw ipc_lock ipc_owner sys_module sys_rawio sys_chroot sys_ptrace sys_pacct "
    "sys_admin sys_boot sys_nice sys_resource sys_time sys_tty_config mknod lease audit_write audit_control "
    "setfcap".split())}


def unit_caps():
    return [c.lower()[len("cap_"):] for c in unit_value("CapabilityBoundingSet").split()]


def test_unit_verifies():
    with tempfile.TemporaryDirectory() as d:
        unit = os.path.join(d, "airlockd.service")
        with open(UNIT) as f:
            text = f.read()
        # verify checks that ExecStart's program exists: the one this suite built.
        with open(unit, "w") as f:
            f.write(text.replace("/usr/local/sbin/airlockd", AIRLOCKD_BIN))
        out = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and not out.stderr.strip(), out.stderr
        out = subprocess.run(["systemd-analyze", "security", "--offline=true", unit], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        assert re.search(r"Overall exposure level for airlockd.service: \d+\.\d", out.stdout), out.stdout
    assert unit_value("NoNewPrivileges") == "yes"
    assert "sys_admin" in unit_caps()
    assert unit_value("ExecReload") == "/bin/kill -HUP $MAINPID"


def wrapped(name, caps):
    """A program that runs airlockd as the unit would: no new privileges, only caps in its bounding set."""
    path = os.path.join(itest.STATE_DIR, "airlockd-%s" % name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexec setpriv --no-new-privs --bounding-set -all,%s --inh-caps -all %s \"$@\"\n"
                % (",".join("+" + c for c in caps), AIRLOCKD_BIN))
    os.chmod(path, 0o755)
    return path


def status_field(pid, field):
    with open("/proc/%d/status" % pid) as f:
        return [line.split(":", 1)[1].strip() for line in f if line.startswith(field + ":")][0]


def test_the_units_privileges_are_enough_and_needed():
    caps = unit_caps()
    d = PrivateAirlockd("unitcaps", {"pool_min": 1, "runtime": "oci", "oci_runtime": RUNC}, uid_base=UID_BASE,
                        binary=wrapped("unitcaps", caps))
    d.start()
    try:
        assert status_field(d.pid, "NoNewPrivs") == "1"
        # Exactly the unit's set, less what this machine's own bounding set lacks (setpriv cannot add those).
        mine = int(status_field(os.getpid(), "CapBnd"), 16)
        want = sum(1 << CAP_NUMBERS[c] for c in caps) & mine
        assert int(status_field(d.pid, "CapBnd"), 16) == want
        conn = d.connect(sslmode="disable")
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 2")
            assert cur.fetchall() == [(1,), (2,)]
        conn.close()
        my = pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password=itest.AGENT_PASSWORD,
                             database="shop", connect_timeout=10)
        with my.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 2")
            assert cur.fetchall() == ((1,), (2,))
        my.close()
    finally:
        assert d.stop() in (0, -15), d.log()

    # The same without CAP_SYS_ADMIN: runc cannot make a runner's namespaces, and the statement fails.
    d = PrivateAirlockd("unitcaps", {"pool_min": 0, "runtime": "oci", "oci_runtime": RUNC}, uid_base=UID_BASE,
                        binary=wrapped("unitcaps-less", [c for c in caps if c != "sys_admin"]))
    d.start()
    try:
        conn = d.connect(sslmode="disable")
        with pytest.raises(Exception) as e:
            with conn.cursor() as cur:
                cur.execute("SELECT 1")
        assert "58000" in str(getattr(e.value, "pgcode", "")) or "RUNTIME_UNAVAILABLE" in str(e.value) or \
            "EXECUTION_FAILED" in str(e.value), e.value
        conn.close()
    finally:
        assert d.stop() in (0, -15), d.log()


def manifests():
    with open(MANIFESTS) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def materialize(objs, into, digest="0" * 64):
    """The ConfigMap's airlock.ini and the Secret's files as the Deployment mounts them, under into."""
    config = objs[("ConfigMap", "airlock-config")]["data"]["airlock.ini"]
    os.makedirs(os.path.join(into, "secrets"))
    with open(os.path.join(into, "airlock.ini"), "w") as f:
        f.write(config.replace("RUNNER_ROOTFS_DIGEST", digest))
    os.chmod(os.path.join(into, "airlock.ini"), 0o600)
    for name, value in objs[("Secret", "airlock-secrets")]["stringData"].items():
        if name == "db-ca.pem":
            # A placeholder no PEM reader takes: the demo's CA stands in for the operator's.
            with open(itest.DB_CA) as f:
                value = f.read()
        with open(os.path.join(into, "secrets", name), "w") as f:
            f.write(value)


def test_kubernetes_manifests_hold_together():
    objs = manifests()
    assert set(objs) == {("Namespace", "airlock"), ("ConfigMap", "airlock-config"), ("Secret", "airlock-secrets"),
                         ("Deployment", "airlockd"), ("Service", "airlock")}
    for (kind, _), o in objs.items():
        if kind != "Namespace":
            assert o["metadata"]["namespace"] == "airlock", kind
    dep = objs[("Deployment", "airlockd")]
    pod = dep["spec"]["template"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    svc = objs[("Service", "airlock")]
    assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    (c,) = pod["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert {p["targetPort"] for p in svc["spec"]["ports"]} <= set(ports)
    assert c["readinessProbe"]["httpGet"]["port"] in ports and c["readinessProbe"]["httpGet"]["path"] == "/health"
    assert c["livenessProbe"]["httpGet"]["port"] in ports and c["livenessProbe"]["httpGet"]["path"] == "/metrics"
    assert c["securityContext"]["privileged"] is True
    assert c["resources"]["limits"]["memory"] and c["resources"]["requests"]["cpu"]
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    assert volumes[mounts["/etc/airlock"]]["configMap"]["name"] == "airlock-config"
    assert volumes[mounts["/etc/airlock/secrets"]]["secret"]["secretName"] == "airlock-secrets"
    assert c["args"] == ["-c", "/etc/airlock/airlock.ini"]

    # The listeners the config opens are the ports the pod declares; its job_dir is on a mounted volume.
    config = objs[("ConfigMap", "airlock-config")]["data"]["airlock.ini"]
    for key, name in (("pg_listen", "postgres"), ("mysql_listen", "mysql"), ("metrics_listen", "metrics")):
        assert re.search(r"^%s = 0\.0\.0\.0:%d$" % (key, ports[name]), config, re.M), key
    job_dir = re.search(r"^job_dir = (\S+)$", config, re.M).group(1)
    assert any(job_dir.startswith(m + "/") for m, n in mounts.items() if n in volumes and "emptyDir" in volumes[n])
    with tempfile.TemporaryDirectory() as d:
        materialize(objs, d)
        out = subprocess.run([AIRLOCKD_BIN, "--check-config", os.path.join(d, "airlock.ini")], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "ok (1 user, 2 targets)" in out.stdout


@pytest.mark.skipif(not shutil.which("docker"), reason="no Docker engine (the Docker pass builds the image)")
def test_the_image_builds_and_its_airlockd_runs():
    tag = "airlockd:deploy-test"
    out = subprocess.run(["sh", BUILD_IMAGE, os.path.dirname(AIRLOCKD_BIN), tag], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    image, rootfs = out.stdout.strip().splitlines()[-2:]
    assert image.startswith("sha256:")
    digest = re.fullmatch(r"/usr/lib/airlock/runner-rootfs\.tar@sha256:([0-9a-f]{64})", rootfs).group(1)
    try:
        got = subprocess.run(["docker", "run", "--rm", "--network", "none", tag, "--version"], capture_output=True,
                             text=True, timeout=120)
        assert got.returncode == 0 and got.stdout.startswith("airlockd "), got.stderr
        with tempfile.TemporaryDirectory() as d:
            materialize(manifests(), d, digest)
            os.chmod(d, 0o755)
            got = subprocess.run(["docker", "run", "--rm", "--network", "none", "-v", d + ":/etc/airlock:ro", tag,
                                  "--check-config", "/etc/airlock/airlock.ini"], capture_output=True, text=True,
                                 timeout=120)
            assert got.returncode == 0, got.stderr
            assert "ok (1 user, 2 targets)" in got.stdout
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=120)
