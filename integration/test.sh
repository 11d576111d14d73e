#!/usr/bin/env bash
#
# test.sh: builds airlock three ways and runs every test, as root on
# Debian 12 (what .ci/run runs):
#   1. build/      RelWithDebInfo, -Werror; the layout and format checks
#                  (check_tree.py, clang-format); then the demo environment
#                  (Postgres and MariaDB shops, Docker engine, runner
#                  image); unit tests
#   2. build-asan/ ASan + UBSan (leak detection on); unit tests
#   3. build-fuzz/ clang + libFuzzer; each fuzz target for
#                  $AIRLOCK_FUZZ_SECONDS (default 20) seconds
#   4. the pytest integration suite in lanes (tests/conftest.py, lane_of):
#      the Postgres files (test_pg_*.py) and the MySQL files (test_my_*.py)
#      at the same time, each against an airlockd of its own with the test
#      config (the first on 127.0.0.1:6432 and :3307, the second on :6452
#      and :3317, with its own job_dir, runner uids, audit log and store);
#      then the rest alone against the first. Afterwards each airlockd
#      must stop on SIGTERM and leave no container and no job directory
#      behind.
# Arguments go to pytest (e.g. -k timeout, -k my_). AIRLOCK_SKIP_ASAN=1 and
# AIRLOCK_SKIP_FUZZ=1 skip steps 2 and 3 for quicker local runs.
set -euo pipefail

# shellcheck source=integration/tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools/lib.sh"

AIRLOCKD_PID=
AIRLOCKD_LOG=$AIRLOCK_STATE_DIR/airlockd-test.log
# The second lane's airlockd (run_suite).
LANE_PID=
LANE_LOG=$AIRLOCK_STATE_DIR/airlockd-test-my.log
LANE_PG_PORT=6452
LANE_MY_PORT=3317
LANE_JOB_DIR=$(dirname "$AIRLOCK_JOB_DIR")/jobs-lane-my

# stop_airlockd VAR: stops the airlockd whose pid is in VAR (and clears
# it); returns 1 if SIGTERM did not stop it.
stop_airlockd()
{
	local var=$1 pid=${!1} rc=0

	[[ -n $pid ]] || return 0
	printf -v "$var" '%s' ''
	kill -0 "$pid" 2>/dev/null || {
		wait "$pid" 2>/dev/null || true
		log "airlockd $pid: had already exited"
		return 1
	}
	kill -TERM "$pid"
	if ! wait_for 15 bash -c "! kill -0 $pid"; then
		log "airlockd $pid: still running 15 s after SIGTERM; killing it"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return 1
	fi
	wait "$pid" 2>/dev/null || rc=$?
	log "airlockd $pid: stopped (status $rc)"
	# 0, or 143 when terminated by the signal itself.
	[[ $rc == 0 || $rc == 143 ]]
}

on_exit()
{
	local rc=$?

	stop_airlockd AIRLOCKD_PID || true
	stop_airlockd LANE_PID || true
	if ((rc != 0)); then
		for f in "$AIRLOCKD_LOG" "$LANE_LOG"; do
			[[ -s $f ]] || continue
			log "last lines of $f:"
			tail -n 40 "$f" >&2 || true
		done
	fi
	exit "$rc"
}
trap on_exit EXIT

# leftovers JOB_DIR: the runner containers of the airlockd with this
# job_dir (either runtime), and job directories or bundles left in it.
leftovers()
{
	local dir=$1

	docker ps -a --filter "label=airlock.root=$dir" -q
	if [[ -d $dir/.oci/runtime ]]; then
		"$AIRLOCK_OCI_RUNTIME" --root "$dir/.oci/runtime" list -q
	fi
	find "$dir" -mindepth 1 -maxdepth 1 ! -name .oci ! -name .airlockd.lock
	if [[ -d $dir/.oci/bundles ]]; then
		find "$dir/.oci/bundles" -mindepth 1 -maxdepth 1
	fi
}

no_leftovers()
{
	local left

	left=$(leftovers "$1") || return 1
	[[ -z $left ]]
}

require_root
cd "$AIRLOCK_REPO"
install_deps

build_main
check_tree build
# Postgres, MariaDB, Docker and the runner image first: some unit tests use
# the engine.
prepare_environment
run_unit_tests build

if [[ ${AIRLOCK_SKIP_ASAN:-0} != 1 ]]; then
	build_asan
	run_unit_tests build-asan
fi
if [[ ${AIRLOCK_SKIP_FUZZ:-0} != 1 ]]; then
	build_fuzz
	run_fuzzers
fi

# The tests that differ between the runtimes (run_suite below runs them on both).
RUNTIME_TESTS=(
	test_pg_container.py test_oci_container.py test_pg_runner_identity.py test_faults.py
	test_pg_timeout.py test_my_kill.py test_pg_concurrency.py test_pg_psql.py test_my_cli.py
	test_my_sweep.py test_docker_engine_down.py test_cleanup.py
)

export PYTHONDONTWRITEBYTECODE=1
node_pg_install
export AIRLOCK_NODE_PATH=$AIRLOCK_STATE_DIR/node/node_modules

# The end-to-end suite drives the ASan+UBSan build of airlockd when there is
# one: a memory error aborts it (every test checks it is still alive) and a
# leak makes its exit status nonzero at the SIGTERM below.
airlockd_bin=$AIRLOCK_REPO/build/airlockd
if [[ ${AIRLOCK_SKIP_ASAN:-0} != 1 ]]; then
	airlockd_bin=$AIRLOCK_REPO/build-asan/airlockd
fi

# lane_config PATH: the test config at PATH made the second lane's: its
# own listeners, job_dir, runner and validator uids, audit log and store.
lane_config()
{
	local path=$1

	sed -i -e "s|^pg_listen = .*|pg_listen = $AIRLOCK_LISTEN_HOST:$LANE_PG_PORT|" \
		-e "s|^mysql_listen = .*|mysql_listen = $AIRLOCK_LISTEN_HOST:$LANE_MY_PORT|" \
		-e "s|^job_dir = .*|job_dir = $LANE_JOB_DIR|" \
		-e "s|^runner_uids = .*|runner_uids = 1004000000-1004065535\nvalidator_uid = 999999998|" \
		-e "s|^audit_log = .*|audit_log = $AIRLOCK_STATE_DIR/audit-test-my.log|" \
		-e "s|^approval_store = .*|approval_store = $AIRLOCK_STATE_DIR/approvals-test-my.db|" "$path"
	install -d -m 0711 "$LANE_JOB_DIR"
}

# start_airlockd VAR CONFIG LOG PG_PORT MY_PORT: airlockd on CONFIG in the
# background, its pid in VAR, once it accepts on both ports.
start_airlockd()
{
	local var=$1 config=$2 out=$3 port pid

	log "airlockd: starting $airlockd_bin -c $config, runtime $AIRLOCK_RUNTIME (log: $out)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$airlockd_bin" -c "$config" >"$out" 2>&1 </dev/null &
	pid=$!
	printf -v "$var" '%s' "$pid"
	for port in "$4" "$5"; do
		if ! wait_for 30 port_open "$AIRLOCK_LISTEN_HOST" "$port"; then
			die "airlockd does not accept on $AIRLOCK_LISTEN_HOST:$port"
		fi
	done
	kill -0 "$pid" 2>/dev/null || die "airlockd exited at start"
	log "airlockd: up (pid $pid)"
}

# lane_env PID CONFIG PG_PORT MY_PORT JOB_DIR AUDIT_LOG: what the tests
# read to find the airlockd under test (tests/itest.py).
lane_env()
{
	local base=$AIRLOCK_LISTEN_HOST:$3/shop

	export AIRLOCKD_PID=$1 AIRLOCK_CONFIG=$2 AIRLOCK_LISTEN_PORT=$3 AIRLOCK_MY_LISTEN_PORT=$4
	export AIRLOCK_JOB_DIR=$5 AIRLOCK_AUDIT_LOG=$6
	export AIRLOCK_PG_URL=postgresql://agent:$AIRLOCK_AGENT_PASSWORD@$base
	export AIRLOCK_SMALL_URL=postgresql://agent_small:$AIRLOCK_AGENT_PASSWORD@$base
}

# run_lane LANE PYTEST_ARGS...: the tests of one lane, each output line
# marked with the lane; "no test selected" (pytest's 5) is not a failure.
run_lane()
{
	local lane=$1 rc
	shift

	set +e
	AIRLOCK_LANE=$lane "$AIRLOCK_PYTHON" -m pytest -v -p no:cacheprovider "$@" 2>&1 | sed -u "s/^/[$lane] /"
	rc=${PIPESTATUS[0]}
	set -e
	((rc == 5)) && rc=0
	((rc == 0)) || log "integration tests, lane $lane: failed (pytest status $rc)"
	return "$rc"
}

# run_suite RUNTIME PYTEST_ARGS...: the test config for RUNTIME, two
# airlockds on it, the lanes, then a clean stop of each with nothing left
# behind.
run_suite()
{
	local config=$AIRLOCK_STATE_DIR/airlock-test.ini lane_conf=$AIRLOCK_STATE_DIR/airlock-test-my.ini
	local stale pg_pid my_pid rc=0
	local audit=$AIRLOCK_STATE_DIR/audit-test.log lane_audit=$AIRLOCK_STATE_DIR/audit-test-my.log

	AIRLOCK_RUNTIME=$1
	shift
	write_config "$config" test
	write_config "$lane_conf" test
	lane_config "$lane_conf"
	airlock_port_free
	for port in "$LANE_PG_PORT" "$LANE_MY_PORT"; do
		! port_open "$AIRLOCK_LISTEN_HOST" "$port" || die "$AIRLOCK_LISTEN_HOST:$port is already in use"
	done
	# Runner containers of an earlier run (any job_dir) would fail the leftover check.
	stale=$(docker ps -aq --filter label=airlock.job)
	if [[ -n $stale ]]; then
		log "docker: removing runner containers left by an earlier run"
		# shellcheck disable=SC2086
		docker rm -f $stale >/dev/null
	fi
	: >"$audit"
	: >"$lane_audit"

	start_airlockd AIRLOCKD_PID "$config" "$AIRLOCKD_LOG" "$AIRLOCK_LISTEN_PORT" "$AIRLOCK_MY_LISTEN_PORT"
	start_airlockd LANE_PID "$lane_conf" "$LANE_LOG" "$LANE_PG_PORT" "$LANE_MY_PORT"

	export AIRLOCK_REPO AIRLOCK_POOL_SIZE AIRLOCK_PW_FILE
	export AIRLOCK_RUNTIME AIRLOCK_OCI_RUNTIME
	# The binary, for the tests that start a private airlockd (private_airlockd.py).
	export AIRLOCKD_BIN=$airlockd_bin
	AIRLOCK_DIRECT_URL=postgresql://airlock_ro:$(<"$AIRLOCK_PW_FILE")@127.0.0.1:$AIRLOCK_PG_PORT/shop
	export AIRLOCK_DIRECT_URL
	# MySQL: airlock's listener host, and MariaDB directly (airlock_ro, for comparisons).
	export AIRLOCK_MY_LISTEN_HOST=$AIRLOCK_LISTEN_HOST
	export AIRLOCK_MY_DIRECT_HOST=127.0.0.1 AIRLOCK_MY_DIRECT_PORT=$AIRLOCK_MY_PORT
	export AIRLOCK_MY_PW_FILE AIRLOCK_MY_SOCK AIRLOCK_POOL_SHAPES

	log "integration tests, runtime $AIRLOCK_RUNTIME: lanes pg and my at once"
	(
		lane_env "$AIRLOCKD_PID" "$config" "$AIRLOCK_LISTEN_PORT" "$AIRLOCK_MY_LISTEN_PORT" \
			"$AIRLOCK_JOB_DIR" "$audit"
		run_lane pg "$@"
	) &
	pg_pid=$!
	(
		lane_env "$LANE_PID" "$lane_conf" "$LANE_PG_PORT" "$LANE_MY_PORT" "$LANE_JOB_DIR" "$lane_audit"
		run_lane my "$@"
	) &
	my_pid=$!
	wait "$pg_pid" || rc=1
	wait "$my_pid" || rc=1
	((rc == 0)) || die "integration tests failed (runtime $AIRLOCK_RUNTIME)"
	stop_airlockd LANE_PID || die "the lane's airlockd did not stop cleanly on SIGTERM"
	wait_for 20 no_leftovers "$LANE_JOB_DIR" || die "left behind: [$(leftovers "$LANE_JOB_DIR" | tr '\n' ' ')]"

	log "integration tests, runtime $AIRLOCK_RUNTIME: lane serial"
	(
		lane_env "$AIRLOCKD_PID" "$config" "$AIRLOCK_LISTEN_PORT" "$AIRLOCK_MY_LISTEN_PORT" \
			"$AIRLOCK_JOB_DIR" "$audit"
		run_lane serial "$@"
	) || die "integration tests failed (runtime $AIRLOCK_RUNTIME)"

	stop_airlockd AIRLOCKD_PID || die "airlockd did not stop cleanly on SIGTERM"
	wait_for 20 no_leftovers "$AIRLOCK_JOB_DIR" || die "left behind: [$(leftovers "$AIRLOCK_JOB_DIR" | tr '\n' ' ')]"
}

# Every test on the default runtime; then, on the other one, the tests of
# what differs between them: the containers, the launcher's faults and
# sweeps, timeouts and kills, concurrency, and the engine going away.
run_suite "$AIRLOCK_RUNTIME" "$AIRLOCK_REPO/integration/tests" "$@"
other=docker
[[ $AIRLOCK_RUNTIME == docker ]] && other=oci
run_suite "$other" "${RUNTIME_TESTS[@]/#/$AIRLOCK_REPO/integration/tests/}" "$@"
log "all tests passed"
