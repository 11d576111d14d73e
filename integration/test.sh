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
#   4. airlockd in the background with the test config (Postgres clients
#      on 127.0.0.1:6432, MySQL clients on 127.0.0.1:3307), and the pytest
#      integration suite (test_pg_*.py, test_my_*.py); afterwards airlockd
#      must stop on SIGTERM and leave no container and no job directory
#      behind.
# Arguments go to pytest (e.g. -k timeout, -k my_). AIRLOCK_SKIP_ASAN=1 and
# AIRLOCK_SKIP_FUZZ=1 skip steps 2 and 3 for quicker local runs.
set -euo pipefail

# shellcheck source=integration/tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools/lib.sh"

AIRLOCKD_PID=
AIRLOCKD_LOG=$AIRLOCK_STATE_DIR/airlockd-test.log

# Stops the airlockd this script started; returns 1 if SIGTERM did not stop it.
stop_airlockd()
{
	local pid=$AIRLOCKD_PID rc=0

	[[ -n $pid ]] || return 0
	AIRLOCKD_PID=
	kill -0 "$pid" 2>/dev/null || {
		wait "$pid" 2>/dev/null || true
		log "airlockd: had already exited"
		return 1
	}
	kill -TERM "$pid"
	if ! wait_for 15 bash -c "! kill -0 $pid"; then
		log "airlockd: still running 15 s after SIGTERM; killing it"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return 1
	fi
	wait "$pid" 2>/dev/null || rc=$?
	log "airlockd: stopped (status $rc)"
	# 0, or 143 when terminated by the signal itself.
	[[ $rc == 0 || $rc == 143 ]]
}

on_exit()
{
	local rc=$?

	stop_airlockd || true
	if ((rc != 0)) && [[ -s $AIRLOCKD_LOG ]]; then
		log "last lines of $AIRLOCKD_LOG:"
		tail -n 40 "$AIRLOCKD_LOG" >&2 || true
	fi
	exit "$rc"
}
trap on_exit EXIT

# No container labelled airlock.job and no job directory left behind.
# Containers of either runtime, and job directories or bundles, left in $AIRLOCK_JOB_DIR.
leftovers()
{
	docker ps -a --filter label=airlock.job -q
	if [[ -d $AIRLOCK_JOB_DIR/.oci/runtime ]]; then
		"$AIRLOCK_OCI_RUNTIME" --root "$AIRLOCK_JOB_DIR/.oci/runtime" list -q
	fi
	find "$AIRLOCK_JOB_DIR" -mindepth 1 -maxdepth 1 ! -name .oci ! -name .airlockd.lock
	if [[ -d $AIRLOCK_JOB_DIR/.oci/bundles ]]; then
		find "$AIRLOCK_JOB_DIR/.oci/bundles" -mindepth 1 -maxdepth 1
	fi
}

no_leftovers()
{
	local left

	left=$(leftovers) || return 1
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

# run_suite RUNTIME PYTEST_ARGS...: a test config for RUNTIME, airlockd on
# it, the tests, then a clean stop with nothing left behind.
run_suite()
{
	local config=$AIRLOCK_STATE_DIR/airlock-test.ini base stale port

	AIRLOCK_RUNTIME=$1
	shift
	write_config "$config" test
	airlock_port_free
	# Runner containers of an earlier run (any job_dir) would fail the leftover check.
	stale=$(docker ps -aq --filter label=airlock.job)
	if [[ -n $stale ]]; then
		log "docker: removing runner containers left by an earlier run"
		# shellcheck disable=SC2086
		docker rm -f $stale >/dev/null
	fi
	: >"$AIRLOCK_STATE_DIR/audit-test.log"

	log "airlockd: starting $airlockd_bin, runtime $AIRLOCK_RUNTIME (log: $AIRLOCKD_LOG)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$airlockd_bin" -c "$config" >"$AIRLOCKD_LOG" 2>&1 </dev/null &
	AIRLOCKD_PID=$!
	for port in "$AIRLOCK_LISTEN_PORT" "$AIRLOCK_MY_LISTEN_PORT"; do
		if ! wait_for 30 port_open "$AIRLOCK_LISTEN_HOST" "$port"; then
			die "airlockd does not accept on $AIRLOCK_LISTEN_HOST:$port"
		fi
	done
	kill -0 "$AIRLOCKD_PID" 2>/dev/null || die "airlockd exited at start"
	log "airlockd: up (pid $AIRLOCKD_PID)"

	base=$AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT/shop
	export AIRLOCK_REPO AIRLOCK_JOB_DIR AIRLOCK_POOL_SIZE AIRLOCKD_PID AIRLOCK_PW_FILE
	export AIRLOCK_RUNTIME AIRLOCK_OCI_RUNTIME
	# The binary, for the tests that start a private airlockd (private_airlockd.py).
	export AIRLOCKD_BIN=$airlockd_bin
	export AIRLOCK_CONFIG=$config
	export AIRLOCK_PG_URL=postgresql://agent:$AIRLOCK_AGENT_PASSWORD@$base
	export AIRLOCK_SMALL_URL=postgresql://agent_small:$AIRLOCK_AGENT_PASSWORD@$base
	export AIRLOCK_AUDIT_LOG=$AIRLOCK_STATE_DIR/audit-test.log
	AIRLOCK_DIRECT_URL=postgresql://airlock_ro:$(<"$AIRLOCK_PW_FILE")@127.0.0.1:$AIRLOCK_PG_PORT/shop
	export AIRLOCK_DIRECT_URL
	# MySQL: airlock's listener, and MariaDB directly (airlock_ro, for comparisons).
	export AIRLOCK_MY_LISTEN_HOST=$AIRLOCK_LISTEN_HOST AIRLOCK_MY_LISTEN_PORT
	export AIRLOCK_MY_DIRECT_HOST=127.0.0.1 AIRLOCK_MY_DIRECT_PORT=$AIRLOCK_MY_PORT
	export AIRLOCK_MY_PW_FILE AIRLOCK_MY_SOCK AIRLOCK_POOL_SHAPES

	log "integration tests, runtime $AIRLOCK_RUNTIME"
	"$AIRLOCK_PYTHON" -m pytest -v -p no:cacheprovider "$@"

	stop_airlockd || die "airlockd did not stop cleanly on SIGTERM"
	wait_for 20 no_leftovers || die "left behind: [$(leftovers | tr '\n' ' ')]"
}

# Every test on the default runtime; then, on the other one, the tests of
# what differs between them: the containers, the launcher's faults and
# sweeps, timeouts and kills, concurrency, and the engine going away.
run_suite "$AIRLOCK_RUNTIME" "$AIRLOCK_REPO/integration/tests" "$@"
other=docker
[[ $AIRLOCK_RUNTIME == docker ]] && other=oci
run_suite "$other" "${RUNTIME_TESTS[@]/#/$AIRLOCK_REPO/integration/tests/}" "$@"
log "all tests passed"
