# shellcheck shell=bash
#
# lib.sh: shared functions for demo.sh, test.sh and the integration tests.
# Source it from bash (set -euo pipefail is the caller's); it defines
# functions and variables and runs nothing.
#
# Everything here is idempotent: each step checks what is already in place
# (packages, the Postgres cluster, the MariaDB server, the shop databases,
# the backend accounts, the Docker engine) and only does what is missing.
# All traffic stays on loopback.
#
# State (root only, mode 0700) lives in $AIRLOCK_STATE_DIR:
#   shop.password     the backend role's password, generated once
#   shop_maria.password  the MariaDB account airlock_ro's password, likewise
#   agent.verifier    the SCRAM verifier of the demo users' password
#   runner_image      the runner image ID from the last build
#   runner-rootfs.tar the runner's root filesystem for runtime = oci, and
#   runner_rootfs     its runner_rootfs value (path@sha256:<hex>)
#   airlock.ini       the demo config; airlock-test.ini adds agent_small and
#                     agent_sha2
#   tls/              the demo CA and the listeners' and databases'
#                     certificates (tls_files)
#   audit.log, dockerd.log, mariadbd.log, airlockd-test.log
# Outside it: the databases' TLS settings with their own copies of the
# database certificate (pg_ensure_tls, mariadb_ensure_tls) and pg_hba's
# lines for the backend roles (pg_ensure_hba).

AIRLOCK_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AIRLOCK_STATE_DIR=${AIRLOCK_STATE_DIR:-/var/lib/airlock-demo}
AIRLOCK_PW_FILE=$AIRLOCK_STATE_DIR/shop.password
# The write role airlock_rw's password (governed writes' write_target).
AIRLOCK_RW_PW_FILE=$AIRLOCK_STATE_DIR/shop_rw.password
AIRLOCK_JOB_DIR=${AIRLOCK_JOB_DIR:-/run/airlock/jobs}
AIRLOCK_PG_VERSION=15
AIRLOCK_PG_PORT=5432
AIRLOCK_LISTEN_HOST=127.0.0.1
AIRLOCK_LISTEN_PORT=6432
AIRLOCK_MY_PW_FILE=$AIRLOCK_STATE_DIR/shop_maria.password
# The MariaDB write account airlock_rw's password (mysql_write_target).
AIRLOCK_MY_RW_PW_FILE=$AIRLOCK_STATE_DIR/shop_maria_rw.password
AIRLOCK_MY_PORT=3306
AIRLOCK_MY_LISTEN_PORT=3307
AIRLOCK_MY_DATADIR=/var/lib/mysql
AIRLOCK_MY_SOCK=/run/mysqld/mysqld.sock
AIRLOCK_MY_PIDFILE=/run/mysqld/mysqld.pid
AIRLOCK_AGENT_PASSWORD=agent-secret
AIRLOCK_SUPPORT_PASSWORD=support-secret
AIRLOCK_WRITER_PASSWORD=writer-secret
AIRLOCK_APPROVER_PASSWORD=approver-secret
AIRLOCK_ADMIN_PASSWORD=admin-secret
AIRLOCK_POOL_SIZE=${AIRLOCK_POOL_SIZE:-2}
# Each pool grows toward this while statements find it empty (bursts).
AIRLOCK_POOL_MAX=${AIRLOCK_POOL_MAX:-6}
# Warm pools in write_config's config: one per target and resource shape
# (shop and shop_maria; all users share one shape).
# shellcheck disable=SC2034  # used by test.sh
AIRLOCK_POOL_SHAPES=2
# What runs the runner containers: oci (an OCI runtime binary run directly,
# the default: see docs/runtimes.md) or docker. The demo and the suite run
# crun, which starts a container in about two thirds of runc's time;
# test_oci_container.py checks a runc airlockd's runners beside them.
AIRLOCK_RUNTIME=${AIRLOCK_RUNTIME:-oci}
AIRLOCK_OCI_RUNTIME=${AIRLOCK_OCI_RUNTIME:-/usr/bin/crun}
AIRLOCK_DOCKER_SOCK=/var/run/docker.sock
AIRLOCK_DOCKER_PIDFILE=/var/run/docker.pid
# shellcheck disable=SC2034  # used by test.sh
AIRLOCK_PYTHON=/usr/bin/python3

# Exactly the Debian packages the build, the demo and the tests use.
AIRLOCK_PACKAGES=(
	build-essential cmake pkg-config clang libclang-rt-14-dev clang-format
	libevent-dev libpq-dev libmariadb-dev libssl-dev openssl libcurl4-openssl-dev
	libcmocka-dev libinih-dev libjansson-dev libarchive-dev libpg-query-dev libprotobuf-c-dev libseccomp-dev libsqlite3-dev
	postgresql-15 postgresql-client-15
	mariadb-server mariadb-client
	docker.io runc crun
	python3 python3-psycopg2 python3-psycopg python3-pytest
	python3-pymysql python3-mysqldb python3-cryptography python3-sqlalchemy
	nodejs openjdk-17-jdk-headless libpostgresql-jdbc-java libmariadb-java
	golang-go golang-github-jackc-pgx-v4-dev golang-github-lib-pq-dev
	libdbd-pg-perl
	chromium python3-websocket python3-yaml systemd
	prometheus haproxy
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

# pidfile_pid FILE: prints the pid FILE names when that process is alive.
pidfile_pid()
{
	local pid

	[[ -s $1 ]] || return 1
	pid=$(<"$1")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	printf '%s\n' "$pid"
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

# node-postgres (with pg-cursor), postgres.js, mysql2 and the MCP servers
# agents use, from the npm registry, for the driver tests (Debian's nodejs ships npm separately; some
# nodejs builds bundle it).
node_pg_install()
{
	local dir=$AIRLOCK_STATE_DIR/node

	if [[ -f $dir/node_modules/pg/package.json && -f $dir/node_modules/mysql2/package.json &&
		-f $dir/node_modules/@modelcontextprotocol/server-postgres/package.json &&
		-f $dir/node_modules/postgres/package.json && -f $dir/node_modules/pg-cursor/package.json &&
		-f $dir/node_modules/@bytebase/dbhub/package.json &&
		-f $dir/node_modules/@benborla29/mcp-server-mysql/package.json ]]; then
		return 0
	fi
	command -v npm >/dev/null || apt-get install -y -q --no-install-recommends npm
	log "npm: installing the Node drivers and MCP servers the tests drive into $dir"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error pg@8 pg-cursor@2 postgres@3 mysql2@3 \
		@modelcontextprotocol/server-postgres@0.6.2 @bytebase/dbhub@0.21.2 \
		@benborla29/mcp-server-mysql@2.0.9 >&2
}

# ---------------------------------------------------------------- builds

build_main()
{
	log "build: build/ (RelWithDebInfo, -Werror)"
	cmake -S "$AIRLOCK_REPO" -B "$AIRLOCK_REPO/build" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DAIRLOCK_WERROR=ON
	cmake --build "$AIRLOCK_REPO/build" -j2
}

# The layout rules (file sizes, no call circles, one library per folder) on build $1,
# and the pinned .clang-format on every C file.
check_tree()
{
	local files

	log "check: layout of $1, formatting"
	"$AIRLOCK_PYTHON" "$AIRLOCK_REPO/integration/tools/check_tree.py" "$AIRLOCK_REPO/$1"
	mapfile -t files < <(cd "$AIRLOCK_REPO" && find base protocol launch conf validator proxy runner tests fuzz bench integration/rogue integration/layers integration/clients \
		-name '*.[ch]' | sort)
	(cd "$AIRLOCK_REPO" && clang-format --dry-run --Werror "${files[@]}") ||
		die "formatting differs from .clang-format: run clang-format -i on the files above"
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

# Runs every build-fuzz/fuzz_* (or those named as arguments) for
# $AIRLOCK_FUZZ_SECONDS (default 20) with a persistent corpus under
# build-fuzz/corpus/; the checked-in seeds of fuzz/corpus/<name>/ (see
# fuzz/seeds.py) are run first, every one of them, and then mutated.
# The validators take statements as long as a client may send (1 MiB,
# max_message_bytes' default); under the fuzzer's instrumentation a flat
# 1 MiB read takes up to about 40 s through both policies and the round
# trips, where airlockd's worker gets 5 s uninstrumented
# (validator_timeout_ms), so their timeout is 60 s: an input over it is
# one the proxy would refuse for time. Fails if any fuzzer fails.
# fuzz_one NAME: one fuzz target for $AIRLOCK_FUZZ_SECONDS; its log in build-fuzz/NAME.log.
fuzz_one()
{
	local dir=$AIRLOCK_REPO/build-fuzz secs=${AIRLOCK_FUZZ_SECONDS:-20} name=$1 seeds=() limits=(-timeout=10)

	mkdir -p "$dir/corpus/$name" "$dir/artifacts"
	if [[ -d $AIRLOCK_REPO/fuzz/corpus/$name ]]; then
		seeds=("$AIRLOCK_REPO/fuzz/corpus/$name")
	fi
	# The worker's loop reads what the channel's codec reads: a request body.
	if [[ $name == fuzz_vw_serve ]]; then
		seeds=("$AIRLOCK_REPO/fuzz/corpus/fuzz_vw_codec")
	fi
	if [[ $name == fuzz_validate_pg || $name == fuzz_validate_my || $name == fuzz_vw_serve ]]; then
		limits=(-max_len=1048576 -timeout=60)
	fi
	ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$dir/$name" -max_total_time="$secs" "${limits[@]}" -rss_limit_mb=2048 \
		-print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/$name-" \
		"$dir/corpus/$name" "${seeds[@]}" \
		>"$dir/$name.log" 2>&1
}

# Each fuzz target (or those named) for $AIRLOCK_FUZZ_SECONDS seconds, as
# many at once as there are cores: each target is one process on one core.
run_fuzzers()
{
	local dir=$AIRLOCK_REPO/build-fuzz secs=${AIRLOCK_FUZZ_SECONDS:-20}
	local f name names=() failed=() pids=() i n
	local jobs
	jobs=$(nproc 2>/dev/null || echo 1)

	for f in "$dir"/fuzz_*; do
		[[ -f $f && -x $f ]] || continue
		name=$(basename "$f")
		if (($#)) && [[ " $* " != *" $name "* ]]; then
			continue
		fi
		names+=("$name")
	done
	for ((i = 0; i < ${#names[@]}; i += jobs)); do
		pids=()
		for ((n = i; n < i + jobs && n < ${#names[@]}; n++)); do
			log "fuzz: ${names[n]} for ${secs}s"
			fuzz_one "${names[n]}" &
			pids+=($!)
		done
		for ((n = i; n < i + jobs && n < ${#names[@]}; n++)); do
			name=${names[n]}
			if wait "${pids[n - i]}"; then
				grep -E '^stat::number_of_executed_units' "$dir/$name.log" >&2 || true
			else
				tail -n 60 "$dir/$name.log" >&2
				failed+=("$name")
			fi
		done
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

# The lines pg_ensure_hba keeps first in pg_hba.conf: the backend roles
# airlock_ro and airlock_rw log in over TCP with TLS and scram-sha-256 only;
# a plain TCP login of theirs is refused before any other host line (such
# as Debian's "host all all 127.0.0.1/32") can take it.
AIRLOCK_PG_HBA_LINES='# airlock demo (integration/tools/lib.sh): the backend roles log in over TLS only.
hostnossl all airlock_ro,airlock_rw 0.0.0.0/0 reject
hostnossl all airlock_ro,airlock_rw ::/0 reject
hostssl shop airlock_ro,airlock_rw 127.0.0.1/32 scram-sha-256'

# Reloads the running cluster's configuration and waits until new sessions
# see it (pg_ctl reload only signals the postmaster).
pg_reload()
{
	local before

	before=$(pg_super -At -d postgres -c "SELECT pg_conf_load_time()")
	pg_ctlcluster "$AIRLOCK_PG_VERSION" main reload
	wait_for 10 pg_reloaded_since "$before" ||
		die "postgres did not reload its configuration (see /var/log/postgresql/)"
}

pg_reloaded_since()
{
	[[ $(pg_super -At -d postgres -c "SELECT pg_conf_load_time() > '$1'") == t ]]
}

pg_running()
{
	pg_ctlcluster "$AIRLOCK_PG_VERSION" main status >/dev/null 2>&1
}

# The lines for airlock_ro,airlock_rw are exactly AIRLOCK_PG_HBA_LINES'
# three, each once, before every other host line. An older lib.sh's
# "host shop airlock_ro,airlock_rw 127.0.0.1/32 scram-sha-256" (plain text
# allowed) fails this, so pg_ensure_hba replaces it.
pg_hba_ok()
{
	local hba=/etc/postgresql/$AIRLOCK_PG_VERSION/main/pg_hba.conf

	AIRLOCK_PG_HBA_LINES=$AIRLOCK_PG_HBA_LINES awk '
	BEGIN {
		n = split(ENVIRON["AIRLOCK_PG_HBA_LINES"], l, "\n")
		for (i = 1; i <= n; i++) if (l[i] !~ /^#/) want[l[i]] = 1
	}
	/^[[:space:]]*(#|$)/ { next }
	$3 == "airlock_ro,airlock_rw" {
		line = $1 " " $2 " " $3 " " $4 " " $5
		if (NF != 5 || !(line in want) || (line in seen) || other) bad = 1
		seen[line] = 1
		found++
		next
	}
	$1 ~ /^host/ { other = 1 }
	END { exit !(found == 3 && !bad) }' "$hba"
}

pg_ensure_hba()
{
	local hba=/etc/postgresql/$AIRLOCK_PG_VERSION/main/pg_hba.conf

	if pg_hba_ok; then
		return 0
	fi
	log "postgres: airlock_ro and airlock_rw log in over TLS only (hostssl, hostnossl reject) in $hba"
	# Every line for the two roles (this lib.sh's, old or new) goes; the
	# three go first.
	if AIRLOCK_PG_HBA_LINES=$AIRLOCK_PG_HBA_LINES awk '
		BEGIN { lines = ENVIRON["AIRLOCK_PG_HBA_LINES"]; comment = substr(lines, 1, index(lines, "\n") - 1) }
		NR == 1 { print lines }
		$0 == comment { next }
		!/^[[:space:]]*#/ && $3 == "airlock_ro,airlock_rw" { next }
		{ print }' "$hba" | put_file "$hba" "$(stat -c %U:%G "$hba")" "$(stat -c %a "$hba")" &&
	   pg_running; then
		pg_reload
	fi
	pg_hba_ok || die "$hba: the airlock lines did not take"
}

# Postgres serves TLS with the demo's database certificate: its own copy
# next to its config, named in conf.d/airlock-tls.conf (Debian's
# postgresql.conf includes conf.d last, so this wins over its ssl = off).
# ssl is reloadable: a running cluster reloads when something changed.
pg_ensure_tls()
{
	local etc=/etc/postgresql/$AIRLOCK_PG_VERSION/main changed=''

	if db_tls_copy "$etc" postgres; then
		changed=1
	fi
	if printf '%s\n' "# Written by integration/tools/lib.sh (pg_ensure_tls): TLS with the demo CA's database certificate." \
		"ssl = on" "ssl_cert_file = '$etc/airlock-db.crt'" "ssl_key_file = '$etc/airlock-db.key'" \
		"ssl_ca_file = '$etc/airlock-ca.crt'" |
	   put_file "$etc/conf.d/airlock-tls.conf" postgres:postgres 0644; then
		changed=1
	fi
	if [[ -n $changed ]] && pg_running; then
		log "postgres: TLS settings changed; reloading"
		pg_reload
	fi
}

pg_ready()
{
	pg_isready -q -h 127.0.0.1 -p "$AIRLOCK_PG_PORT" -t 2
}

# Cluster 15/main on 127.0.0.1:5432, created if missing, started if stopped,
# serving TLS.
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
	pg_ensure_tls
	pg_ensure_hba
	if ! pg_running; then
		log "postgres: starting cluster $v/main"
		pg_ctlcluster "$v" main start
	fi
	wait_for 60 pg_ready || die "postgres does not answer on 127.0.0.1:$AIRLOCK_PG_PORT"
	[[ $(pg_super -At -d postgres -c "SHOW ssl") == on ]] ||
		die "postgres runs without TLS (see /var/log/postgresql/)"
	log "postgres: $v/main up on 127.0.0.1:$AIRLOCK_PG_PORT (TLS)"
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
		pg_super -d shop -f - <"$AIRLOCK_REPO/integration/tools/shop.sql" >/dev/null
		[[ $(shop_counts) == "$want" ]] || die "shop data did not load: $(shop_counts)"
	fi
	shop_role_setup
}

# password_file_ensure FILE WHAT: FILE holds 32 random alphanumerics,
# generated once, root-only; WHAT names it in the log.
password_file_ensure()
{
	local file=$1 what=$2 pw

	install -d -m 0700 -o root -g root "$AIRLOCK_STATE_DIR"
	if [[ ! -s $file ]]; then
		log "$what: generating the airlock_ro password in $file"
		(umask 077 && head -c 64 /dev/urandom | base64 -w0 | tr -dc 'A-Za-z0-9' |
			head -c 32 >"$file.tmp")
		mv "$file.tmp" "$file"
	fi
	chown root:root "$file"
	chmod 0600 "$file"
	pw=$(<"$file")
	[[ $pw =~ ^[A-Za-z0-9]{32}$ ]] || die "$file does not hold a generated password"
}

# The backend role airlock_ro: login with a password generated once,
# read-only by default, SELECT on the four tables, no CREATE or TEMP.
shop_role_setup()
{
	local pw

	password_file_ensure "$AIRLOCK_PW_FILE" postgres
	password_file_ensure "$AIRLOCK_RW_PW_FILE" "postgres (write role)"
	pw=$(<"$AIRLOCK_PW_FILE")

	{
		printf "\\\\set pw '%s'\n" "$pw"
		printf "\\\\set rwpw '%s'\n" "$(<"$AIRLOCK_RW_PW_FILE")"
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
-- Temporary files of one statement: superuser-only to set, so the role's
-- (airlock's backend_memory_mb bounds memory, this the disk a sort spills to).
ALTER ROLE airlock_ro SET temp_file_limit = '1GB';
REVOKE ALL ON DATABASE shop FROM PUBLIC;
GRANT CONNECT ON DATABASE shop TO airlock_ro;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO airlock_ro;
GRANT SELECT ON public.orders, public.customers, public.products,
	public.staff_salaries TO airlock_ro;
-- The write role of governed writes: each write is approved by a person
-- and run by a runner in a transaction it opens READ WRITE itself; it may
-- read the demo's readable tables and change orders, nothing else.
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'airlock_rw') THEN
		CREATE ROLE airlock_rw LOGIN;
	END IF;
END
$$;
ALTER ROLE airlock_rw WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE
	NOREPLICATION NOBYPASSRLS INHERIT CONNECTION LIMIT 16 PASSWORD :'rwpw';
ALTER ROLE airlock_rw SET default_transaction_read_only = on;
ALTER ROLE airlock_rw SET temp_file_limit = '1GB';
GRANT CONNECT ON DATABASE shop TO airlock_rw;
GRANT USAGE ON SCHEMA public TO airlock_rw;
GRANT SELECT ON public.orders, public.customers, public.products TO airlock_rw;
GRANT INSERT, UPDATE, DELETE ON public.orders TO airlock_rw;
GRANT USAGE ON SEQUENCE public.orders_id_seq TO airlock_rw;
SQL
	} | pg_super -d shop -f -
}

# psql as airlock_ro over TCP with its password (scram-sha-256), over TLS
# with the database's certificate checked against the demo CA (the only
# way pg_hba lets the role in).
pg_ro()
{
	PGPASSWORD=$(<"$AIRLOCK_PW_FILE") PGSSLMODE=verify-full PGSSLROOTCERT=$AIRLOCK_TLS_DIR/ca.crt \
		psql -X -q -h 127.0.0.1 -p "$AIRLOCK_PG_PORT" -U airlock_ro -d shop "$@"
}

# airlock_ro reads all four tables over TLS and cannot write; neither
# backend role may log in without TLS.
shop_verify()
{
	local got out role

	got=$(pg_ro -At -c "SELECT (SELECT count(*) FROM orders) || ',' ||
		(SELECT count(*) FROM customers) || ',' ||
		(SELECT count(*) FROM products) || ',' ||
		(SELECT count(*) FROM staff_salaries) || ',' ||
		current_setting('default_transaction_read_only') || ',' ||
		(SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())")
	[[ $got == 200000,1000,200,50,on,true ]] || die "airlock_ro sees: $got"
	if out=$(pg_ro -At -v ON_ERROR_STOP=1 \
		-c "INSERT INTO customers VALUES (100001, 'x', 'x')" 2>&1); then
		die "airlock_ro could write"
	fi
	[[ $out == *"read-only transaction"* ]] || die "unexpected write error: $out"
	# pg_hba refuses a plain login before any password is asked for.
	for role in airlock_ro airlock_rw; do
		if out=$(env -u PGPASSWORD PGSSLMODE=disable psql -X -w -h 127.0.0.1 -p "$AIRLOCK_PG_PORT" \
			-U "$role" -d shop -c "SELECT 1" 2>&1); then
			die "postgres: $role logs in without TLS"
		fi
		[[ $out == *"no encryption"* ]] || die "postgres: unexpected error for $role without TLS: $out"
	done
	log "postgres: airlock_ro reads all four tables over TLS and cannot write; plain logins refused"
}

# ---------------------------------------------------------------- mariadb

# mariadb as root over the server's unix socket (Debian's root account
# authenticates with unix_socket, so no password is involved).
my_super()
{
	mariadb --protocol=socket -S "$AIRLOCK_MY_SOCK" -u root "$@"
}

# The server answers on its socket (any answer, even "access denied").
mariadb_alive()
{
	mariadb-admin --protocol=socket -S "$AIRLOCK_MY_SOCK" -u root \
		--connect-timeout=2 ping
}

mariadb_pid()
{
	pidfile_pid "$AIRLOCK_MY_PIDFILE"
}

# Runs "$@" in a session of its own with no descriptor but 0, 1 and 2, so a
# lock the caller holds (flock LOCKFILE integration/test.sh) does not live on
# in a daemon started here. As: detached CMD... >>LOG 2>&1 </dev/null &
detached()
{
	local fd

	for fd in /proc/"$BASHPID"/fd/*; do
		fd=${fd##*/}
		if ((fd > 2)); then
			eval "exec $fd>&-" 2>/dev/null || true
		fi
	done
	exec setsid "$@"
}

# Debian's mariadbd on 127.0.0.1:$AIRLOCK_MY_PORT without an init system:
# reuses a server that already answers (started by apt's postinst, or by an
# earlier run), initialises $AIRLOCK_MY_DATADIR if apt did not, and starts
# mariadbd in the background otherwise.
mariadb_start()
{
	local log=$AIRLOCK_STATE_DIR/mariadbd.log pid='' deadline

	install -d -m 0700 -o root -g root "$AIRLOCK_STATE_DIR"
	mariadb_ensure_tls
	if mariadb_alive >/dev/null 2>&1; then
		log "mariadb: server answers on $AIRLOCK_MY_SOCK"
	elif mariadb_pid >/dev/null; then
		log "mariadb: mariadbd is running but not answering yet; waiting"
	else
		install -d -m 0755 -o mysql -g mysql "$(dirname "$AIRLOCK_MY_SOCK")"
		if [[ ! -d $AIRLOCK_MY_DATADIR/mysql ]]; then
			log "mariadb: initialising $AIRLOCK_MY_DATADIR"
			install -d -m 0700 -o mysql -g mysql "$AIRLOCK_MY_DATADIR"
			mariadb-install-db --user=mysql --datadir="$AIRLOCK_MY_DATADIR" \
				--auth-root-authentication-method=socket --skip-test-db \
				>>"$log" 2>&1 || {
				tail -n 30 "$log" >&2 || true
				die "mariadb-install-db failed"
			}
		fi
		log "mariadb: starting mariadbd (log: $log)"
		detached mariadbd --user=mysql --datadir="$AIRLOCK_MY_DATADIR" \
			--bind-address=127.0.0.1 --port="$AIRLOCK_MY_PORT" \
			--socket="$AIRLOCK_MY_SOCK" --pid-file="$AIRLOCK_MY_PIDFILE" \
			>>"$log" 2>&1 </dev/null &
		pid=$!
	fi
	# Up to 60 s, but give up at once if the mariadbd started here exits.
	deadline=$((SECONDS + 60))
	until mariadb_alive >/dev/null 2>&1; do
		if ((SECONDS >= deadline)) || { [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; }; then
			tail -n 30 "$log" >&2 || true
			die "mariadb does not answer on $AIRLOCK_MY_SOCK"
		fi
		sleep 1
	done
	wait_for 10 port_open 127.0.0.1 "$AIRLOCK_MY_PORT" ||
		die "mariadb answers on its socket but not on 127.0.0.1:$AIRLOCK_MY_PORT" \
			"(a server started with other settings? stop it first)"
	[[ $(my_super -N -B -e "SELECT 1" 2>&1) == 1 ]] ||
		die "root cannot log in to mariadb over $AIRLOCK_MY_SOCK"
	mariadb_serves_tls || die "mariadb runs without the demo's TLS certificate (see $log)"
	log "mariadb: $(my_super -N -B -e "SELECT VERSION()") up on 127.0.0.1:$AIRLOCK_MY_PORT (TLS)"
}

# MariaDB's TLS settings: its own copy of the demo's database certificate
# in /etc/mysql, named in $AIRLOCK_MY_TLS_CNF (Debian's my.cnf includes
# mariadb.conf.d). mariadbd reads them only when it starts, so a running
# server that does not serve that certificate yet is stopped here (and
# mariadb_start starts it again); one that does re-reads changed files
# with FLUSH SSL.
AIRLOCK_MY_TLS_CNF=/etc/mysql/mariadb.conf.d/60-airlock-tls.cnf
mariadb_ensure_tls()
{
	local changed=''

	if db_tls_copy /etc/mysql mysql; then
		changed=1
	fi
	if printf '%s\n' "# Written by integration/tools/lib.sh (mariadb_ensure_tls): TLS with the demo CA's database certificate." \
		"[mysqld]" "ssl_cert = /etc/mysql/airlock-db.crt" "ssl_key = /etc/mysql/airlock-db.key" \
		"ssl_ca = /etc/mysql/airlock-ca.crt" |
	   put_file "$AIRLOCK_MY_TLS_CNF" root:root 0644; then
		changed=1
	fi
	mariadb_alive >/dev/null 2>&1 || return 0
	if ! mariadb_serves_tls; then
		log "mariadb: restarting to serve TLS ($AIRLOCK_MY_TLS_CNF)"
		mariadb_stop
	elif [[ -n $changed ]]; then
		log "mariadb: TLS files changed; FLUSH SSL"
		my_super -e "FLUSH SSL"
	fi
}

mariadb_serves_tls()
{
	[[ $(my_super -N -B -e "SELECT CONCAT_WS(',', @@have_ssl, @@ssl_cert)" 2>/dev/null) == \
		YES,/etc/mysql/airlock-db.crt ]]
}

# Shuts the server on $AIRLOCK_MY_SOCK down (whoever started it) and waits
# until it is gone.
mariadb_stop()
{
	mariadb-admin --protocol=socket -S "$AIRLOCK_MY_SOCK" -u root shutdown ||
		die "mariadb: cannot shut the server down"
	wait_for 60 mariadb_gone || die "mariadb: the server does not stop"
}

mariadb_gone()
{
	! mariadb_alive >/dev/null 2>&1 && ! mariadb_pid >/dev/null
}

mariadb_shop_counts()
{
	my_super -N -B -e "SELECT CONCAT_WS(',',
		(SELECT COUNT(*) FROM shop.orders), (SELECT COUNT(*) FROM shop.customers),
		(SELECT COUNT(*) FROM shop.products), (SELECT COUNT(*) FROM shop.staff_salaries),
		(SELECT TABLE_COMMENT FROM information_schema.TABLES
		  WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders'))" 2>/dev/null || true
}

# Database shop on MariaDB: the same four tables and rows as the Postgres
# shop (integration/tools/shop_mariadb.sql), loaded once (reloaded only when the
# counts or the data version marker differ); then the account airlock_ro.
mariadb_shop_setup()
{
	local want='200000,1000,200,50,airlock demo data v1'

	my_super -e "CREATE DATABASE IF NOT EXISTS shop
		CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
	if [[ $(mariadb_shop_counts) == "$want" ]]; then
		log "mariadb: shop data present"
	else
		log "mariadb: loading shop data"
		my_super shop <"$AIRLOCK_REPO/integration/tools/shop_mariadb.sql" >/dev/null
		[[ $(mariadb_shop_counts) == "$want" ]] ||
			die "mariadb shop data did not load: $(mariadb_shop_counts)"
	fi
	mariadb_account_setup
}

# The account airlock_ro@127.0.0.1 and @localhost: mysql_native_password
# with a password generated once, logins over TLS only (REQUIRE SSL, as
# airlock_rw's), SELECT on the four shop tables and nothing else.
# Anonymous accounts and the test-database grants an old
# mariadb-install-db leaves would give it more, so they are removed.
mariadb_account_setup()
{
	local pw rwpw u

	password_file_ensure "$AIRLOCK_MY_PW_FILE" mariadb
	password_file_ensure "$AIRLOCK_MY_RW_PW_FILE" "mariadb (write account)"
	pw=$(<"$AIRLOCK_MY_PW_FILE")
	rwpw=$(<"$AIRLOCK_MY_RW_PW_FILE")
	{
		cat <<'SQL'
DELETE FROM mysql.global_priv WHERE User = '';
DELETE FROM mysql.db WHERE User = '';
FLUSH PRIVILEGES;
CREATE USER IF NOT EXISTS 'airlock_ro'@'127.0.0.1';
CREATE USER IF NOT EXISTS 'airlock_ro'@'localhost';
SQL
		for u in "'airlock_ro'@'127.0.0.1'" "'airlock_ro'@'localhost'"; do
			printf "ALTER USER %s IDENTIFIED VIA mysql_native_password USING PASSWORD('%s')\n" "$u" "$pw"
			printf "\tREQUIRE SSL WITH MAX_USER_CONNECTIONS 32;\n"
			printf "REVOKE ALL PRIVILEGES, GRANT OPTION FROM %s;\n" "$u"
			printf "GRANT SELECT ON shop.%s TO %s;\n" orders "$u" customers "$u" \
				products "$u" staff_salaries "$u"
		done
		# The write account of governed writes: reads what a writer reads, writes orders alone.
		printf "CREATE USER IF NOT EXISTS %s;\n" "'airlock_rw'@'127.0.0.1'" "'airlock_rw'@'localhost'"
		for u in "'airlock_rw'@'127.0.0.1'" "'airlock_rw'@'localhost'"; do
			printf "ALTER USER %s IDENTIFIED VIA mysql_native_password USING PASSWORD('%s')\n" "$u" "$rwpw"
			printf "\tREQUIRE SSL WITH MAX_USER_CONNECTIONS 16;\n"
			printf "REVOKE ALL PRIVILEGES, GRANT OPTION FROM %s;\n" "$u"
			printf "GRANT SELECT ON shop.%s TO %s;\n" orders "$u" customers "$u" products "$u"
			printf "GRANT INSERT, UPDATE, DELETE ON shop.orders TO %s;\n" "$u"
		done
	} | my_super
}

# my_login USER PWFILE [--skip-ssl] ARGS...: mariadb as USER over TCP with
# the password in PWFILE (never on the command line), over TLS with the
# database's certificate checked against the demo CA, or with --skip-ssl
# in plain text (alone: --ssl-verify-server-cert would turn TLS back on).
my_login()
{
	local user=$1 pwfile=$2 tls=(--ssl --ssl-ca="$AIRLOCK_TLS_DIR/ca.crt" --ssl-verify-server-cert)

	shift 2
	if [[ ${1-} == --skip-ssl ]]; then
		tls=(--skip-ssl)
		shift
	fi
	mariadb --defaults-extra-file=<(printf '[client]\npassword=%s\n' "$(<"$pwfile")") \
		--protocol=tcp -h 127.0.0.1 -P "$AIRLOCK_MY_PORT" -u "$user" "${tls[@]}" "$@"
}

my_ro()
{
	my_login airlock_ro "$AIRLOCK_MY_PW_FILE" "$@"
}

# airlock_ro reads all four tables over TLS, sees only shop, holds exactly
# its five grants, and can neither write nor create; neither backend
# account may log in without TLS.
mariadb_shop_verify()
{
	local got out u

	got=$(my_ro -N -B shop -e "SELECT CONCAT_WS(',',
		(SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM customers),
		(SELECT COUNT(*) FROM products), (SELECT COUNT(*) FROM staff_salaries),
		(SELECT GROUP_CONCAT(SCHEMA_NAME ORDER BY SCHEMA_NAME)
		   FROM information_schema.SCHEMATA),
		(SELECT VARIABLE_VALUE <> '' FROM information_schema.SESSION_STATUS
		  WHERE VARIABLE_NAME = 'Ssl_cipher'))")
	[[ $got == 200000,1000,200,50,information_schema,shop,1 ]] ||
		die "mariadb airlock_ro sees: $got"
	# REQUIRE SSL: the right password without TLS is refused as a wrong one.
	for u in airlock_ro:"$AIRLOCK_MY_PW_FILE" airlock_rw:"$AIRLOCK_MY_RW_PW_FILE"; do
		if out=$(my_login "${u%%:*}" "${u#*:}" --skip-ssl -N -B -e "SELECT 1" 2>&1); then
			die "mariadb: ${u%%:*} logs in without TLS"
		fi
		[[ $out == *"ERROR 1045"* ]] || die "mariadb: unexpected error for ${u%%:*} without TLS: $out"
	done
	# The server may see 127.0.0.1 as localhost: both accounts are the same.
	# shellcheck disable=SC2016  # backticks are MariaDB's quotes
	got=$(my_ro -N -B -e "SHOW GRANTS" |
		sed -e 's/ IDENTIFIED BY PASSWORD .*//' -e 's/ TO `airlock_ro`@`[^`]*`$//' |
		sort | tr '\n' ';')
	# shellcheck disable=SC2016
	[[ $got == 'GRANT SELECT ON `shop`.`customers`;GRANT SELECT ON `shop`.`orders`;GRANT SELECT ON `shop`.`products`;GRANT SELECT ON `shop`.`staff_salaries`;GRANT USAGE ON *.*;' ]] ||
		die "mariadb airlock_ro has grants: $got"
	if out=$(my_ro -N -B shop -e "INSERT INTO customers VALUES (100001, 'x', 'x')" 2>&1); then
		die "mariadb airlock_ro could write"
	fi
	[[ $out == *"ERROR 1142"* ]] || die "unexpected mariadb write error: $out"
	if out=$(my_ro -N -B shop -e "CREATE TABLE evil (i int)" 2>&1); then
		die "mariadb airlock_ro could create a table"
	fi
	[[ $out == *"ERROR 1142"* ]] || die "unexpected mariadb create error: $out"
	log "mariadb: airlock_ro reads all four tables over TLS and cannot write; plain logins refused"
}

# ---------------------------------------------------------------- docker

docker_ok()
{
	timeout 10 docker info >/dev/null 2>&1
}

docker_pid()
{
	pidfile_pid "$AIRLOCK_DOCKER_PIDFILE"
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
		detached dockerd --bridge=none --iptables=false \
			>>"$AIRLOCK_STATE_DIR/dockerd.log" 2>&1 </dev/null &
	fi
	if ! wait_for 90 docker_ok; then
		tail -n 30 "$AIRLOCK_STATE_DIR/dockerd.log" >&2 || true
		die "docker engine did not answer on $AIRLOCK_DOCKER_SOCK"
	fi
	log "docker: engine up"
}

# On a host whose cgroups are mounted hybrid (v1 hierarchies under
# /sys/fs/cgroup, the v2 tree at unified/), crun runs containers only while
# the v2 tree holds no controller ("cgroups in hybrid mode not supported,
# drop all controllers from cgroupv2"). A controller the v2 tree has but
# uses nowhere (hugetlb, on the test machine) is given a v1 hierarchy of
# its own, as systemd's hybrid layout does. runc does not mind either way.
cgroup_hybrid_prepare()
{
	local u=/sys/fs/cgroup/unified c

	[[ -r $u/cgroup.controllers ]] || return 0
	for c in $(<"$u/cgroup.controllers"); do
		if grep -qw "$c" "$u/cgroup.subtree_control" 2>/dev/null; then
			log "cgroups: $c is in use in the v2 tree; crun will refuse containers"
			continue
		fi
		mountpoint -q "/sys/fs/cgroup/$c" && continue
		if mkdir -p "/sys/fs/cgroup/$c" 2>/dev/null &&
		   mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" 2>/dev/null; then
			log "cgroups: $c mounted as a v1 hierarchy, so that crun runs on this hybrid host"
		else
			log "cgroups: $c could not get a v1 hierarchy; crun will refuse containers"
		fi
	done
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
	local script=$AIRLOCK_REPO/integration/tools/build-runner-image.sh
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

# Builds the OCI root filesystem archive from build/airlock-runner; sets
# AIRLOCK_RUNNER_ROOTFS to its pinned reference.
runner_rootfs_build()
{
	local bin=$AIRLOCK_REPO/build/airlock-runner ref

	[[ -x $bin ]] || die "$bin is missing (build first)"
	log "oci: building the runner root filesystem"
	ref=$(bash "$AIRLOCK_REPO/integration/tools/build-runner-image.sh" --rootfs \
		"$AIRLOCK_STATE_DIR/runner-rootfs.tar" "$bin" | tail -n 1) || die "build-runner-image.sh --rootfs failed"
	[[ $ref =~ ^/.+@sha256:[0-9a-f]{64}$ ]] || die "build-runner-image.sh --rootfs printed '$ref'"
	printf '%s\n' "$ref" >"$AIRLOCK_STATE_DIR/runner_rootfs"
	AIRLOCK_RUNNER_ROOTFS=$ref
	log "oci: runner root filesystem $ref"
}

# ---------------------------------------------------------------- airlockd

# The SCRAM verifier of a demo password ($1, default the agent's), made once
# by airlockd itself and kept in $AIRLOCK_STATE_DIR/$2 (default agent.verifier).
agent_verifier()
{
	local pw=${1:-$AIRLOCK_AGENT_PASSWORD} f=$AIRLOCK_STATE_DIR/${2:-agent.verifier} v

	if [[ -s $f ]] && [[ $(<"$f") == SCRAM-SHA-256\$* ]]; then
		cat "$f"
		return 0
	fi
	v=$(printf '%s' "$pw" |
		"$AIRLOCK_REPO/build/airlockd" --make-verifier) ||
		die "airlockd --make-verifier failed"
	v=$(printf '%s\n' "$v" | tail -n 1)
	[[ $v == SCRAM-SHA-256\$* ]] || die "airlockd --make-verifier printed '$v'"
	(umask 077 && printf '%s\n' "$v" >"$f")
	printf '%s\n' "$v"
}

# The mysql_native_password verifier of a demo password ($1, default the
# agent's): "*" + upper-case hex SHA1(SHA1(password)), what PASSWORD() returns.
agent_mysql_native()
{
	printf '%s' "${1:-$AIRLOCK_AGENT_PASSWORD}" | "$AIRLOCK_PYTHON" -c '
import hashlib, sys
pw = sys.stdin.buffer.read()
print("*" + hashlib.sha1(hashlib.sha1(pw).digest()).hexdigest().upper())'
}

# The demo's TLS, made once with the openssl CLI in $AIRLOCK_TLS_DIR (root's,
# 0700; the keys 0600): a local CA (ca.crt, for clients that verify), the
# listeners' certificate (server.crt, server.key) and the databases'
# (db.crt, db.key: Postgres and MariaDB take the backend accounts' logins
# over TLS only), both for 127.0.0.1 and localhost and signed by that CA.
AIRLOCK_TLS_DIR=$AIRLOCK_STATE_DIR/tls
tls_files()
{
	local d=$AIRLOCK_TLS_DIR

	install -d -m 0700 "$d"
	if [[ ! -s $d/ca.crt || ! -s $d/ca.key ]] ||
	   ! openssl x509 -noout -checkend 86400 -in "$d/ca.crt" >/dev/null 2>&1; then
		log "tls: making a local CA in $d"
		openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=airlock demo CA" \
			-keyout "$d/ca.key" -out "$d/ca.crt" >/dev/null 2>&1 || die "openssl: cannot make the CA"
		chmod 0600 "$d/ca.key"
		chmod 0644 "$d/ca.crt"
	fi
	tls_server_cert server
	tls_server_cert db
}

# tls_server_cert NAME: $AIRLOCK_TLS_DIR/NAME.crt and NAME.key, a server
# certificate for 127.0.0.1 and localhost signed by the demo CA. Made again
# only when missing or when the CA no longer vouches for it (a new CA, or
# expired), so the copies the databases hold change only then.
tls_server_cert()
{
	local d=$AIRLOCK_TLS_DIR name=$1

	if [[ -s $d/$name.crt && -s $d/$name.key ]] &&
	   openssl verify -CAfile "$d/ca.crt" -purpose sslserver "$d/$name.crt" >/dev/null 2>&1; then
		return 0
	fi
	log "tls: making the $name certificate in $d"
	openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$d/$name.key" \
		-out "$d/$name.csr" >/dev/null 2>&1 || die "openssl: cannot make the $name key"
	chmod 0600 "$d/$name.key"
	printf 'subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n' >"$d/ext.cnf"
	openssl x509 -req -in "$d/$name.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
		-extfile "$d/ext.cnf" -out "$d/$name.crt" >/dev/null 2>&1 ||
		die "openssl: cannot sign the $name certificate"
	chmod 0644 "$d/$name.crt"
}

# put_file DEST OWNER:GROUP MODE <CONTENT: DEST holds CONTENT, owned and
# moded so (replaced in one rename, never half written). Succeeds when it
# changed DEST, fails when DEST already was exactly that, so a caller
# reloads or restarts a server only for a change.
put_file()
{
	local dest=$1 owner=$2 mode=$3 tmp

	tmp=$(mktemp "$dest.XXXXXX")
	cat >"$tmp"
	if [[ -f $dest ]] && cmp -s "$tmp" "$dest" &&
	   [[ $(stat -c '%U:%G %a' "$dest") == "$owner ${mode#0}" ]]; then
		rm -f "$tmp"
		return 1
	fi
	chown "$owner" "$tmp"
	chmod "$mode" "$tmp"
	mv -f "$tmp" "$dest"
}

# db_tls_copy DIR OWNER: the database server running as OWNER gets its own
# copy of db.crt, db.key and ca.crt in DIR (airlock-db.crt, airlock-db.key
# 0600, airlock-ca.crt), since it cannot read root's $AIRLOCK_TLS_DIR.
# Succeeds when a copy changed.
db_tls_copy()
{
	local dir=$1 owner=$2 changed='' f

	tls_files
	for f in db.crt db.key ca.crt; do
		if put_file "$dir/airlock-$f" "$owner:$owner" "$([[ $f == *.key ]] && echo 0600 || echo 0644)" \
			<"$AIRLOCK_TLS_DIR/$f"; then
			changed=1
		fi
	done
	[[ -n $changed ]]
}

# write_config PATH [test]: the demo config, Postgres on $AIRLOCK_LISTEN_PORT
# and MySQL on $AIRLOCK_MY_LISTEN_PORT (target shop_maria); "test" adds
# [user agent_small] (max_rows 5, max_bytes 2000, timeout 2 s, 6 sessions,
# 2 jobs, cost cap 1e6; its MySQL logins get the same caps),
# [user agent_lowmem] (backend_memory_mb 32), [user agent_sha2] (no
# mysql_native, so its MySQL logins go through
# caching_sha2_password), [user support_cols] (orders shown as id,
# customer_id and a rounded amount), [user planned] (plan_check on, five
# functions the database defines),
# [user strict] (max_rows 5, truncation_is_error on, both listeners),
# [user narrow] (forbid_select_star on, orders shown as id, customer_id and
# amount, both listeners; agent's password) and a separate audit log. Both have [user support]
# (password support-secret): orders filtered to customer_id <= 100, customers
# limited to id, name, email with the email masked, on both listeners.
write_config()
{
	local path=$1 kind=${2:-demo} verifier native sverifier snative wverifier wnative averifier adverifier audit tmp agent agent_my orders

	tls_files
	verifier=$(agent_verifier)
	native=$(agent_mysql_native)
	sverifier=$(agent_verifier "$AIRLOCK_SUPPORT_PASSWORD" support.verifier)
	snative=$(agent_mysql_native "$AIRLOCK_SUPPORT_PASSWORD")
	wverifier=$(agent_verifier "$AIRLOCK_WRITER_PASSWORD" writer.verifier)
	wnative=$(agent_mysql_native "$AIRLOCK_WRITER_PASSWORD")
	averifier=$(agent_verifier "$AIRLOCK_APPROVER_PASSWORD" approver.verifier)
	adverifier=$(agent_verifier "$AIRLOCK_ADMIN_PASSWORD" admin.verifier)
	[[ $native =~ ^\*[0-9A-F]{40}$ ]] || die "bad mysql_native verifier '$native'"
	# What [user agent] reads on each listener; agent_small and agent_sha2 read the same.
	agent="scram = $verifier
target = shop
database = shop
tables = public.orders, public.customers, public.products, pg_catalog.*, information_schema.*"
	agent_my="mysql_target = shop_maria
mysql_tables = shop.orders, shop.customers, shop.products, information_schema.*"
	# What agent_lowmem and secure read: orders alone, on both listeners.
	orders="scram = $verifier
target = shop
tables = public.orders, pg_catalog.*, information_schema.*
mysql_native = $native
mysql_target = shop_maria
mysql_tables = shop.orders, information_schema.*"
	audit=$AIRLOCK_STATE_DIR/audit.log
	[[ $kind == test ]] && audit=$AIRLOCK_STATE_DIR/audit-test.log
	install -d -m 0711 "$(dirname "$AIRLOCK_JOB_DIR")"
	install -d -m 0711 "$AIRLOCK_JOB_DIR"
	tmp=$(mktemp "$path.XXXXXX")
	cat >"$tmp" <<EOF
# airlock $kind config, written by integration/tools/lib.sh (write_config).

[server]
pg_listen = $AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT
mysql_listen = $AIRLOCK_LISTEN_HOST:$AIRLOCK_MY_LISTEN_PORT
job_dir = $AIRLOCK_JOB_DIR
runtime = $AIRLOCK_RUNTIME
docker_socket = $AIRLOCK_DOCKER_SOCK
runner_image = $AIRLOCK_RUNNER_IMAGE
oci_runtime = $AIRLOCK_OCI_RUNTIME
runner_rootfs = $AIRLOCK_RUNNER_ROOTFS
runner_uids = 1000000000-1000065535
pool_min = $AIRLOCK_POOL_SIZE
pool_max = $AIRLOCK_POOL_MAX
$([[ $kind == test ]] && printf '%s' "# Extras retire fast, so the suite ends with pool_min warm runners.
pool_idle_ms = 1000")
tls_cert_file = $AIRLOCK_TLS_DIR/server.crt
tls_key_file = $AIRLOCK_TLS_DIR/server.key
$([[ $kind == test ]] && printf '%s' "# The suite fails logins from 127.0.0.1 on purpose; test_login_guard.py tests the waits.
login_free_failures = 100000")
audit_log = $audit
approval_store = $AIRLOCK_STATE_DIR/approvals$([[ $kind == test ]] && printf '%s' -test).db
$([[ $kind == demo ]] && printf '%s' "# Two processes share the listeners (SO_REUSEPORT), each its own loop and runners.
workers = 2
# Approvers decide held writes here (HTTPS, the demo's certificate; worker 0 serves it).
approval_listen = 127.0.0.1:8443
# Prometheus scrapes GET /metrics here (plain HTTP, loopback only): worker 0 on 9930, worker 1 on 9931.
metrics_listen = 127.0.0.1:9930")

[hosts]
allow = 127.0.0.1

# Postgres and MariaDB take 100 and 151 connections; each airlockd's runners,
# ready ones included, stay within max_db_connections of each target.
[target shop]
engine = postgres
host = 127.0.0.1
port = $AIRLOCK_PG_PORT
database = shop
user = airlock_ro
password_file = $AIRLOCK_PW_FILE
max_db_connections = 30
keep_sessions = on
sslmode = verify-full
sslrootcert = $AIRLOCK_TLS_DIR/ca.crt

[target shop_writer]
engine = postgres
host = 127.0.0.1
port = $AIRLOCK_PG_PORT
database = shop
user = airlock_rw
password_file = $AIRLOCK_RW_PW_FILE
max_db_connections = 10
keep_sessions = on
sslmode = verify-full
sslrootcert = $AIRLOCK_TLS_DIR/ca.crt

[target shop_maria]
engine = mariadb
host = 127.0.0.1
port = $AIRLOCK_MY_PORT
database = shop
user = airlock_ro
password_file = $AIRLOCK_MY_PW_FILE
max_db_connections = 30
sslmode = verify-full
sslrootcert = $AIRLOCK_TLS_DIR/ca.crt

[target shop_maria_writer]
engine = mariadb
host = 127.0.0.1
port = $AIRLOCK_MY_PORT
database = shop
user = airlock_rw
password_file = $AIRLOCK_MY_RW_PW_FILE
max_db_connections = 10
sslmode = verify-full
sslrootcert = $AIRLOCK_TLS_DIR/ca.crt

[user agent]
$agent
mysql_native = $native
$agent_my
mysql_allow_functions = sleep
timeout_ms = 10000
memory_mb = 128
backend_memory_mb = 256
cpus = 0.5
pids = 64
max_rows = 1000
max_bytes = 1000000

# A person who decides held writes on the approval listener; not an airlock user.
[approver approver]
scram = $averifier

# An operator of the admin console (psql dbname=airlock, docs/admin.md); not an airlock user.
[admin admin]
scram = $adverifier

# Reads what agent reads; may write orders, each write held until a person approves it.
[user writer]
scram = $wverifier
target = shop
database = shop
tables = public.orders, public.customers, public.products, pg_catalog.*, information_schema.*
mysql_native = $wnative
mysql_target = shop_maria
mysql_tables = shop.orders, shop.customers, shop.products, information_schema.*
writes = approve
write_tables = public.orders
write_target = shop_writer
mysql_write_tables = shop.orders
mysql_write_target = shop_maria_writer
max_write_rows = 100
approval_wait_ms = 0

[user support]
scram = $sverifier
target = shop
database = shop
backend_memory_mb = 256
tables = public.orders, public.customers, pg_catalog.*, information_schema.*
filter public.orders = customer_id <= 100
columns public.customers = id, name, email
mask public.customers.email = left(email, 1) || '***@' || split_part(email, '@', 2)
mysql_native = $snative
mysql_target = shop_maria
mysql_tables = shop.orders, shop.customers, information_schema.*
mysql_filter shop.orders = customer_id <= 100
mysql_columns shop.customers = id, name, email
mysql_mask shop.customers.email = CONCAT(LEFT(email, 1), '***@', SUBSTRING_INDEX(email, '@', -1))
EOF
	if [[ $kind == test ]]; then
		cat >>"$tmp" <<EOF

[user agent_small]
$agent
mysql_native = $native
$agent_my
mysql_allow_functions = sleep
timeout_ms = 2000
memory_mb = 128
cpus = 0.5
pids = 64
max_rows = 5
max_bytes = 2000
max_connections = 6
max_jobs = 2
max_cost = 1000000

# MariaDB's max_session_mem_used at a budget a 1 MB statement can pass.
[user agent_lowmem]
$orders
backend_memory_mb = 32

[user agent_sha2]
$agent
$agent_my

[user planned]
scram = $verifier
target = shop
tables = public.orders, public.customers, plan_test.*, viewdef_test.*, op_probe.*, pg_catalog.*, information_schema.*
functions = plan_test.orders_of, plan_test.staff, public.probe_total, op_probe.total_of, op_probe.hidden_total
plan_check = on

[user strict]
scram = $verifier
target = shop
tables = public.orders, public.customers, pg_catalog.*, information_schema.*
mysql_native = $native
mysql_target = shop_maria
mysql_tables = shop.orders, shop.customers, information_schema.*
max_rows = 5
max_bytes = 100000
truncation_is_error = on

[user secure]
$orders
tls_required = on

[user support_cols]
scram = $sverifier
target = shop
tables = public.orders, pg_catalog.*, information_schema.*
columns public.orders = id, customer_id, amount
mask public.orders.amount = round(amount, -2)
mysql_native = $snative
mysql_target = shop_maria
mysql_tables = shop.orders, information_schema.*
mysql_columns shop.orders = id, customer_id, amount
mysql_mask shop.orders.amount = ROUND(amount, -2)

[user narrow]
scram = $verifier
target = shop
database = shop
tables = public.orders, public.customers, pg_catalog.*, information_schema.*
columns public.orders = id, customer_id, amount
mysql_native = $native
mysql_target = shop_maria
mysql_tables = shop.orders, shop.customers, information_schema.*
mysql_columns shop.orders = id, customer_id, amount
forbid_select_star = on
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

# Fails if something already listens on an airlock port.
airlock_port_free()
{
	local port

	for port in "$AIRLOCK_LISTEN_PORT" "$AIRLOCK_MY_LISTEN_PORT"; do
		if port_open "$AIRLOCK_LISTEN_HOST" "$port"; then
			die "$AIRLOCK_LISTEN_HOST:$port is already in use (a running airlockd?); stop it first"
		fi
	done
}

# Everything demo.sh and test.sh need before airlockd starts.
prepare_environment()
{
	pg_start
	shop_setup
	shop_verify
	mariadb_start
	mariadb_shop_setup
	mariadb_shop_verify
	cgroup_hybrid_prepare
	docker_start
	runner_image_build
	runner_rootfs_build
}
