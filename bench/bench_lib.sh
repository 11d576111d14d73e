# shellcheck shell=bash
#
# bench_lib.sh: what bench/run.sh and bench/nodes.sh share. Sourced after
# integration/tools/lib.sh; defines functions and runs nothing.

# bench_airlockd NAME RUNTIME PG_PORT MY_PORT UID_BASE [KEY=VALUE...]: one
# airlockd of this run (more [server] keys after the fifth argument); its
# pid in $out/NAME.pid. Uses $out, $idle, $dbmax and $build, and adds the
# pid to pids and its job directory to bench_dirs (bench_stop removes it).
# shellcheck disable=SC2154 # out, idle, dbmax and build are the sourcing script's
bench_airlockd()
{
	local name=$1 runtime=$2 pg=$3 my=$4 uid=$5 cfg=$out/$1.ini
	shift 5

	"$AIRLOCK_PYTHON" - "$AIRLOCK_STATE_DIR/airlock.ini" "$cfg" "$@" <<PY
import re, sys
text = open(sys.argv[1]).read()
keys = {"pg_listen": "127.0.0.1:$pg", "mysql_listen": "127.0.0.1:$my", "job_dir": "/run/airlock/bench-$name",
        "runner_uids": "$uid-$((uid + 9999))", "validator_uid": "$((uid + 10000))",
        "audit_log": "$out/audit-$name.log", "runtime": "$runtime",
        "max_connections": "$((idle + 1000))", "max_unauthenticated": "1024",
        "max_unauthenticated_per_address": "1024", "login_free_failures": "1000000", "max_jobs": "64",
        "queue_wait_ms": "120000", "approval_store": "$out/approvals-$name.db", "workers": "1",
        "oci_runtime": "$AIRLOCK_OCI_RUNTIME"}
keys.update(a.split("=", 1) for a in sys.argv[3:])
head, rest = text.split("[hosts]", 1)
# Two airlockds side by side: the demo's approval and metrics listeners stay the demo's.
head = re.sub(r"(?m)^(approval|metrics)_listen = .*\n", "", head)
for k, v in keys.items():
    head, n = re.subn(r"(?m)^%s = .*$" % k, "%s = %s" % (k, v), head)
    if not n:
        head = head.rstrip("\n") + "\n%s = %s\n\n" % (k, v)
agent = re.search(r"(?ms)^\[user agent\]\n(.*?)(?=^\[|\Z)", rest).group(1)
agent = re.sub(r"(?m)^(max_rows|max_bytes|timeout_ms|max_connections|max_jobs) = .*\n", "", agent)
bench = ("\n[user bench]\n" + agent.rstrip("\n") + "\nmax_rows = 10000000\nmax_bytes = 1073741824\n"
         "timeout_ms = 120000\nmax_connections = $((idle + 100))\nmax_jobs = 64\n")
# Two of these beside the demo's airlockd and PgBouncer share Postgres's 100 connections.
rest = re.sub(r"(?m)^max_db_connections = .*\n", "", rest)
rest = re.sub(r"(?m)^(\[target [^]]+\]\n)", r"\1max_db_connections = $dbmax\n", rest)
open(sys.argv[2], "w").write(head + "[hosts]" + rest + bench)
PY
	chmod 0600 "$cfg"
	install -d -m 0711 "/run/airlock/bench-$name"
	"$build/airlockd" -c "$cfg" >"$out/$name.log" 2>&1 </dev/null &
	pids+=("$!")
	echo "$!" >"$out/$name.pid"
	bench_dirs+=("/run/airlock/bench-$name")
	wait_for 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$pg" || die "bench airlockd $name does not start: $(tail -5 "$out/$name.log")"
	# Let the warm pool fill.
	sleep 3
	# Another airlockd on the port would answer for one that could not bind it.
	kill -0 "$(cat "$out/$name.pid")" 2>/dev/null || die "bench airlockd $name exited: $(tail -5 "$out/$name.log")"
}

# bench_end NAME: stops the bench airlockd NAME and waits for it, so its ports are free.
bench_end()
{
	local p
	p=$(cat "$out/$1.pid")
	kill -TERM "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

# bench_stop: stops every airlockd of the run (SIGTERM, then waits for each),
# then removes their job directories, which hold an unpacked root filesystem
# each; one whose runtime state still names a container stays for the next
# start's sweep.
bench_stop()
{
	local p d
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for d in "${bench_dirs[@]}"; do
		if [[ -z $(ls -A "$d/.oci/runtime" 2>/dev/null) ]]; then rm -rf "$d"; fi
	done
}

# with_idle LABEL CMD...: runs CMD, then prints "LABEL idle_pct=N", the
# share of the machine's CPU time that stayed idle while CMD ran (what a
# second worker could have used).
with_idle()
{
	local label=$1 b0 i0 b1 i1
	shift
	read -r b0 i0 < <(awk '/^cpu /{print $2+$3+$4+$6+$7+$8, $5}' /proc/stat)
	"$@"
	read -r b1 i1 < <(awk '/^cpu /{print $2+$3+$4+$6+$7+$8, $5}' /proc/stat)
	awk -v l="$label" -v b=$((b1 - b0)) -v i=$((i1 - i0)) 'BEGIN {printf "%-16s idle_pct=%.1f\n", l, (b + i) ? 100 * i / (b + i) : 0}'
}
