# shellcheck shell=bash
#
# lib.sh: shared functions for demo.sh, test.sh and the integration tests.
# Source it from bash (set -euo pipefail is the caller's); it defines
# functions and variables and runs nothing.
#
# Everything here is idempotent: each step checks what is already in place
# (packages, the Postgres cluster, the shop database, the role, the Docker
# engine) and only does what is missing. All traffic stays on loopback.
#
# State (root only, mode 0700) lives in $AIRLOCK_STATE_DIR:
#   shop.password     the backend role's password, generated once
#   agent.verifier    the SCRAM verifier of the demo users' password
#   runner_image      the runner image ID from the last build
#   airlock.ini       the demo config; airlock-test.ini adds agent_small
#   audit.log, dockerd.log, airlockd-test.log

AIRLOCK_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AIRLOCK_STATE_DIR=${AIRLOCK_STATE_DIR:-/var/lib/airlock-demo}
AIRLOCK_PW_FILE=$AIRLOCK_STATE_DIR/shop.password
AIRLOCK_JOB_DIR=${AIRLOCK_JOB_DIR:-/run/airlock/jobs}
AIRLOCK_PG_VERSION=15
AIRLOCK_PG_PORT=5432
AIRLOCK_LISTEN_HOST=127.0.0.1
AIRLOCK_LISTEN_PORT=6432
AIRLOCK_AGENT_PASSWORD=agent-secret
AIRLOCK_POOL_SIZE=${AIRLOCK_POOL_SIZE:-2}
AIRLOCK_DOCKER_SOCK=/var/run/docker.sock
AIRLOCK_DOCKER_PIDFILE=/var/run/docker.pid
# shellcheck disable=SC2034  # used by test.sh
AIRLOCK_PYTHON=/usr/bin/python3

# Exactly the Debian packages the build, the demo and the tests use.
AIRLOCK_PACKAGES=(
	build-essential cmake pkg-config clang libclang-rt-14-dev
	libevent-dev libpq-dev libmariadb-dev libssl-dev libcurl4-openssl-dev
	libcmocka-dev libinih-dev libjansson-dev libpg-query-dev
	postgresql-15 postgresql-client-15
	docker.io
	python3 python3-psycopg2 python3-psycopg python3-pytest
	nodejs openjdk-17-jdk-headless libpostgresql-jdbc-java
)

log()
{
	printf '[airlock %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die()
{
	log "error: $*"
	exit 1
}

require_root()
{
	[[ $(id -u) -eq 0 ]] || die "run as root"
}

# Polls "$@" once a second until it succeeds or $1 seconds pass.
wait_for()
{
	local secs=$1
	shift
	local deadline=$((SECONDS + secs))

	while ! "$@" >/dev/null 2>&1; do
		((SECONDS < deadline)) || return 1
		sleep 1
	done
}

# ---------------------------------------------------------------- packages

install_deps()
{
	local missing=() p

	export DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1
	for p in "${AIRLOCK_PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		     grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	if ((${#missing[@]} == 0)); then
		log "packages: all installed"
		return 0
	fi
	log "packages: installing ${missing[*]}"
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# node-postgres from the npm registry, for the driver tests (Debian's nodejs
# ships npm separately; some nodejs builds bundle it).
node_pg_install()
{
	local dir=$AIRLOCK_STATE_DIR/node

	if [[ -f $dir/node_modules/pg/package.json ]]; then
		return 0
	fi
	command -v npm >/dev/null || apt-get install -y -q --no-install-recommends npm
	log "npm: installing pg@8 into $dir"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error pg@8 >&2
}

# ---------------------------------------------------------------- builds

build_main()
{
	log "build: build/ (RelWithDebInfo, -Werror)"
	cmake -S "$AIRLOCK_REPO" -B "$AIRLOCK_REPO/build" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DAIRLOCK_WERROR=ON
	cmake --build "$AIRLOCK_REPO/build" -j2
}

build_asan()
{
	log "build: build-asan/ (ASan + UBSan)"
	cmake -S "$AIRLOCK_REPO" -B "$AIRLOCK_REPO/build-asan" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DAIRLOCK_WERROR=ON \
		-DAIRLOCK_SANITIZE=ON
	cmake --build "$AIRLOCK_REPO/build-asan" -j2
}

build_fuzz()
{
	log "build: build-fuzz/ (clang, libFuzzer)"
	cmake -S "$AIRLOCK_REPO" -B "$AIRLOCK_REPO/build-fuzz" \
		-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DAIRLOCK_WERROR=ON -DAIRLOCK_FUZZ=ON
	cmake --build "$AIRLOCK_REPO/build-fuzz" -j2
}

# Unit tests of one build directory ($1); sanitizer findings are fatal.
run_unit_tests()
{
	log "unit tests: $1"
	# The launcher's tests drive the real engine with the real runner image.
	AIRLOCK_TEST_IMAGE=$(cat "$AIRLOCK_STATE_DIR/runner_image" 2>/dev/null || true) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir "$AIRLOCK_REPO/$1" --output-on-failure
}

# Runs every build-fuzz/fuzz_* for $AIRLOCK_FUZZ_SECONDS (default 20) with
# a persistent corpus under build-fuzz/corpus/; seeds come from
# fuzz/corpus/<name>/ when that exists. Fails if any fuzzer fails.
run_fuzzers()
{
	local dir=$AIRLOCK_REPO/build-fuzz secs=${AIRLOCK_FUZZ_SECONDS:-20}
	local f name failed=() seeds

	for f in "$dir"/fuzz_*; do
		[[ -f $f && -x $f ]] || continue
		name=$(basename "$f")
		mkdir -p "$dir/corpus/$name" "$dir/artifacts"
		seeds=()
		if [[ -d $AIRLOCK_REPO/fuzz/corpus/$name ]]; then
			seeds=("$AIRLOCK_REPO/fuzz/corpus/$name")
		fi
		log "fuzz: $name for ${secs}s"
		if ASAN_OPTIONS=detect_leaks=1 \
		   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		   "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 \
			-artifact_prefix="$dir/artifacts/$name-" \
			"$dir/corpus/$name" "${seeds[@]}" \
			>"$dir/$name.log" 2>&1; then
			grep -E '^stat::number_of_executed_units' "$dir/$name.log" >&2 || true
		else
			tail -n 60 "$dir/$name.log" >&2
			failed+=("$name")
		fi
	done
	if ((${#failed[@]})); then
		die "fuzzers failed: ${failed[*]} (inputs in $dir/artifacts/)"
	fi
}

# ---------------------------------------------------------------- postgres

# psql as the postgres superuser over the local socket.
pg_super()
{
	(cd / && runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 "$@")
}

pg_hba_ok()
{
	local hba=/etc/postgresql/$AIRLOCK_PG_VERSION/main/pg_hba.conf

	awk '$1 == "host" && ($2 == "all" || $2 == "shop") &&
	     ($3 == "all" || $3 == "airlock_ro") && $4 == "127.0.0.1/32" &&
	     $5 == "scram-sha-256" { found = 1 } END { exit !found }' "$hba"
}

pg_ensure_hba()
{
	local hba=/etc/postgresql/$AIRLOCK_PG_VERSION/main/pg_hba.conf

	if pg_hba_ok; then
		return 0
	fi
	log "postgres: adding a scram-sha-256 line for airlock_ro to $hba"
	sed -i '1i host shop airlock_ro 127.0.0.1/32 scram-sha-256' "$hba"
	if pg_ctlcluster "$AIRLOCK_PG_VERSION" main status >/dev/null 2>&1; then
		pg_ctlcluster "$AIRLOCK_PG_VERSION" main reload
	fi
}

pg_ready()
{
	pg_isready -q -h 127.0.0.1 -p "$AIRLOCK_PG_PORT" -t 2
}

# Cluster 15/main on 127.0.0.1:5432, created if missing, started if stopped.
pg_start()
{
	local v=$AIRLOCK_PG_VERSION port

	if ! pg_lsclusters -h | awk -v v="$v" '$1 == v && $2 == "main" { f = 1 } END { exit !f }'; then
		log "postgres: creating cluster $v/main"
		pg_createcluster "$v" main --port="$AIRLOCK_PG_PORT"
	fi
	port=$(pg_lsclusters -h | awk -v v="$v" '$1 == v && $2 == "main" { print $3 }')
	[[ $port == "$AIRLOCK_PG_PORT" ]] ||
		die "cluster $v/main is on port $port, not $AIRLOCK_PG_PORT"
	pg_ensure_hba
	if ! pg_ctlcluster "$v" main status >/dev/null 2>&1; then
		log "postgres: starting cluster $v/main"
		pg_ctlcluster "$v" main start
	fi
	wait_for 60 pg_ready || die "postgres does not answer on 127.0.0.1:$AIRLOCK_PG_PORT"
	log "postgres: $v/main up on 127.0.0.1:$AIRLOCK_PG_PORT"
}

shop_counts()
{
	pg_super -At -d shop -c "SELECT (SELECT count(*) FROM public.orders) || ',' ||
		(SELECT count(*) FROM public.customers) || ',' ||
		(SELECT count(*) FROM public.products) || ',' ||
		(SELECT count(*) FROM public.staff_salaries) || ',' ||
		coalesce(obj_description('public.orders'::regclass, 'pg_class'), '')" \
		2>/dev/null || true
}

# Database shop with its four tables, loaded once (reloaded only when the
# counts or the data version marker differ).
shop_setup()
{
	local want='200000,1000,200,50,airlock demo data v1'

	if [[ $(pg_super -At -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'shop'") != 1 ]]; then
		log "postgres: creating database shop"
		pg_super -d postgres -c "CREATE DATABASE shop"
	fi
	if [[ $(shop_counts) == "$want" ]]; then
		log "postgres: shop data present"
	else
		log "postgres: loading shop data"
		pg_super -d shop -f - <"$AIRLOCK_REPO/integration/shop.sql" >/dev/null
		[[ $(shop_counts) == "$want" ]] || die "shop data did not load: $(shop_counts)"
	fi
	shop_role_setup
}

# The backend role airlock_ro: login with a password generated once,
# read-only by default, SELECT on the four tables, no CREATE or TEMP.
shop_role_setup()
{
	local pw

	install -d -m 0700 -o root -g root "$AIRLOCK_STATE_DIR"
	if [[ ! -s $AIRLOCK_PW_FILE ]]; then
		log "postgres: generating the airlock_ro password in $AIRLOCK_PW_FILE"
		(umask 077 && head -c 64 /dev/urandom | base64 -w0 | tr -dc 'A-Za-z0-9' |
			head -c 32 >"$AIRLOCK_PW_FILE.tmp")
		mv "$AIRLOCK_PW_FILE.tmp" "$AIRLOCK_PW_FILE"
	fi
	chown root:root "$AIRLOCK_PW_FILE"
	chmod 0600 "$AIRLOCK_PW_FILE"
	pw=$(<"$AIRLOCK_PW_FILE")
	[[ $pw =~ ^[A-Za-z0-9]{32}$ ]] || die "$AIRLOCK_PW_FILE does not hold a generated password"

	{
		printf "\\\\set pw '%s'\n" "$pw"
		cat <<'SQL'
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'airlock_ro') THEN
		CREATE ROLE airlock_ro LOGIN;
	END IF;
END
$$;
ALTER ROLE airlock_ro WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE
	NOREPLICATION NOBYPASSRLS INHERIT CONNECTION LIMIT 32 PASSWORD :'pw';
ALTER ROLE airlock_ro SET default_transaction_read_only = on;
REVOKE ALL ON DATABASE shop FROM PUBLIC;
GRANT CONNECT ON DATABASE shop TO airlock_ro;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO airlock_ro;
GRANT SELECT ON public.orders, public.customers, public.products,
	public.staff_salaries TO airlock_ro;
SQL
	} | pg_super -d shop -f -
}

# psql as airlock_ro over TCP with its password (scram-sha-256).
pg_ro()
{
	PGPASSWORD=$(<"$AIRLOCK_PW_FILE") PGSSLMODE=disable \
		psql -X -q -h 127.0.0.1 -p "$AIRLOCK_PG_PORT" -U airlock_ro -d shop "$@"
}

# airlock_ro reads all four tables and cannot write.
shop_verify()
{
	local got out

	got=$(pg_ro -At -c "SELECT (SELECT count(*) FROM orders) || ',' ||
		(SELECT count(*) FROM customers) || ',' ||
		(SELECT count(*) FROM products) || ',' ||
		(SELECT count(*) FROM staff_salaries) || ',' ||
		current_setting('default_transaction_read_only')")
	[[ $got == 200000,1000,200,50,on ]] || die "airlock_ro sees: $got"
	if out=$(pg_ro -At -v ON_ERROR_STOP=1 \
		-c "INSERT INTO customers VALUES (100001, 'x', 'x')" 2>&1); then
		die "airlock_ro could write"
	fi
	[[ $out == *"read-only transaction"* ]] || die "unexpected write error: $out"
	log "postgres: airlock_ro reads all four tables and cannot write"
}

# ---------------------------------------------------------------- docker

docker_ok()
{
	timeout 10 docker info >/dev/null 2>&1
}

docker_pid()
{
	local pid

	[[ -s $AIRLOCK_DOCKER_PIDFILE ]] || return 1
	pid=$(<"$AIRLOCK_DOCKER_PIDFILE")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	printf '%s\n' "$pid"
}

# Starts dockerd (no bridge, no iptables) unless an engine already answers.
docker_start()
{
	if docker_ok; then
		log "docker: engine answers"
		return 0
	fi
	install -d -m 0700 "$AIRLOCK_STATE_DIR"
	if docker_pid >/dev/null; then
		log "docker: dockerd is running but not answering yet; waiting"
	else
		log "docker: starting dockerd (log: $AIRLOCK_STATE_DIR/dockerd.log)"
		setsid dockerd --bridge=none --iptables=false \
			>>"$AIRLOCK_STATE_DIR/dockerd.log" 2>&1 </dev/null &
	fi
	if ! wait_for 90 docker_ok; then
		tail -n 30 "$AIRLOCK_STATE_DIR/dockerd.log" >&2 || true
		die "docker engine did not answer on $AIRLOCK_DOCKER_SOCK"
	fi
	log "docker: engine up"
}

# Stops dockerd (SIGTERM, then SIGKILL after 30 s).
docker_stop()
{
	local pid

	pid=$(docker_pid) || {
		log "docker: dockerd is not running"
		return 0
	}
	log "docker: stopping dockerd ($pid)"
	kill -TERM "$pid"
	if ! wait_for 30 bash -c "! kill -0 $pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait_for 10 bash -c "! kill -0 $pid" || die "dockerd $pid does not exit"
	fi
}

# Builds the runner image from build/airlock-runner; sets AIRLOCK_RUNNER_IMAGE.
runner_image_build()
{
	local bin=$AIRLOCK_REPO/build/airlock-runner
	local script=$AIRLOCK_REPO/integration/build-runner-image.sh
	local out id

	[[ -x $bin ]] || die "$bin is missing (build first)"
	[[ -f $script ]] || die "$script is missing"
	log "docker: building the runner image"
	out=$(bash "$script" "$bin") || die "build-runner-image.sh failed"
	id=$(printf '%s\n' "$out" | tail -n 1)
	[[ $id =~ ^sha256:[0-9a-f]{64}$ ]] || die "build-runner-image.sh printed '$id', not an image ID"
	printf '%s\n' "$id" >"$AIRLOCK_STATE_DIR/runner_image"
	AIRLOCK_RUNNER_IMAGE=$id
	log "docker: runner image $id"
}

# ---------------------------------------------------------------- airlockd

# The SCRAM verifier of the demo password, made once by airlockd itself.
agent_verifier()
{
	local f=$AIRLOCK_STATE_DIR/agent.verifier v

	if [[ -s $f ]] && [[ $(<"$f") == SCRAM-SHA-256\$* ]]; then
		cat "$f"
		return 0
	fi
	v=$(printf '%s' "$AIRLOCK_AGENT_PASSWORD" |
		"$AIRLOCK_REPO/build/airlockd" --make-verifier) ||
		die "airlockd --make-verifier failed"
	v=$(printf '%s\n' "$v" | tail -n 1)
	[[ $v == SCRAM-SHA-256\$* ]] || die "airlockd --make-verifier printed '$v'"
	(umask 077 && printf '%s\n' "$v" >"$f")
	printf '%s\n' "$v"
}

# write_config PATH [test]: the demo config; "test" adds [user agent_small]
# (max_rows 5, max_bytes 2000, timeout 2 s, 6 sessions, 2 jobs, cost cap 1e6) and a separate audit log.
write_config()
{
	local path=$1 kind=${2:-demo} verifier audit tmp

	verifier=$(agent_verifier)
	audit=$AIRLOCK_STATE_DIR/audit.log
	[[ $kind == test ]] && audit=$AIRLOCK_STATE_DIR/audit-test.log
	install -d -m 0711 "$(dirname "$AIRLOCK_JOB_DIR")"
	install -d -m 0711 "$AIRLOCK_JOB_DIR"
	tmp=$(mktemp "$path.XXXXXX")
	cat >"$tmp" <<EOF
# airlock $kind config, written by integration/lib.sh (write_config).

[server]
pg_listen = $AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT
job_dir = $AIRLOCK_JOB_DIR
docker_socket = $AIRLOCK_DOCKER_SOCK
runner_image = $AIRLOCK_RUNNER_IMAGE
runner_user = 65534:65534
pool_size = $AIRLOCK_POOL_SIZE
audit_log = $audit

[hosts]
allow = 127.0.0.1

[target shop]
engine = postgres
host = 127.0.0.1
port = $AIRLOCK_PG_PORT
database = shop
user = airlock_ro
password_file = $AIRLOCK_PW_FILE

[user agent]
scram = $verifier
target = shop
database = shop
tables = public.orders, public.customers, public.products, pg_catalog.*, information_schema.*
timeout_ms = 10000
memory_mb = 128
cpus = 0.5
pids = 64
max_rows = 1000
max_bytes = 1000000
EOF
	if [[ $kind == test ]]; then
		cat >>"$tmp" <<EOF

[user agent_small]
scram = $verifier
target = shop
database = shop
tables = public.orders, public.customers, public.products, pg_catalog.*, information_schema.*
timeout_ms = 2000
memory_mb = 128
cpus = 0.5
pids = 64
max_rows = 5
max_bytes = 2000
max_connections = 6
max_jobs = 2
max_cost = 1000000
EOF
	fi
	chmod 0600 "$tmp"
	mv "$tmp" "$path"
	"$AIRLOCK_REPO/build/airlockd" --check-config "$path" >&2 ||
		die "airlockd --check-config rejected $path"
	log "config: $path"
}

port_open()
{
	timeout 2 bash -c ": </dev/tcp/$1/$2" 2>/dev/null
}

# Fails if something already listens on the airlock port.
airlock_port_free()
{
	if port_open "$AIRLOCK_LISTEN_HOST" "$AIRLOCK_LISTEN_PORT"; then
		die "$AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT is already in use (a running airlockd?); stop it first"
	fi
}

# Everything demo.sh and test.sh need before airlockd starts.
prepare_environment()
{
	pg_start
	shop_setup
	shop_verify
	docker_start
	runner_image_build
}
