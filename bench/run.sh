#!/usr/bin/env bash
#
# bench/run.sh: latency of one statement through airlock, compared in the
# same run with the baselines a user would otherwise pick:
#   direct       libpq straight to the backend (no proxy at all)
#   pgbouncer    libpq through PgBouncer (a plain pooling proxy, no isolation)
#   docker_run   `docker run --rm` of the runner image per statement, the floor
#                of any "one container per query" design without a warm pool
#   airlock      libpq through airlockd (validation + one runner per statement)
# The same over MySQL when the demo's MariaDB is there (bench_my_latency):
#   my_direct    MariaDB Connector/C straight to MariaDB
#   my_airlock   the same through airlockd's MySQL listener
# and the validators' own cost per statement (bench_validate).
#
# Needs the demo environment (integration/demo.sh running, or test.sh's);
# starts its own PgBouncer on 127.0.0.1:6433 and stops it afterwards.
# Usage: bench/run.sh [RUNS]     (default 200 statements per connection case)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=integration/lib.sh
source "$here/../integration/lib.sh"

runs=${1:-200}
build=$AIRLOCK_REPO/build
pw=$(cat "$AIRLOCK_PW_FILE")
out=$(mktemp -d)
trap 'kill "$(cat "$out/pgbouncer.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$out"' EXIT

command -v pgbouncer >/dev/null || apt-get install -y --no-install-recommends pgbouncer >/dev/null

# PgBouncer, transaction pooling, the same backend role.
cat >"$out/pgbouncer.ini" <<INI
[databases]
shop = host=127.0.0.1 port=$AIRLOCK_PG_PORT dbname=shop
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 6433
auth_type = plain
auth_file = $out/users.txt
pool_mode = transaction
default_pool_size = 4
pidfile = $out/pgbouncer.pid
logfile = $out/pgbouncer.log
unix_socket_dir =
INI
printf '"airlock_ro" "%s"\n' "$pw" >"$out/users.txt"
chown -R postgres "$out"
runuser -u postgres -- pgbouncer -d "$out/pgbouncer.ini"
wait_for 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6433'

lat() { "$build/bench_latency" "$@"; }
# Without TLS on every path, so the ratios compare the statement path, not the crypto.
airlock="host=$AIRLOCK_LISTEN_HOST port=$AIRLOCK_LISTEN_PORT user=agent password=$AIRLOCK_AGENT_PASSWORD dbname=shop sslmode=disable"
wruns=$(( runs < 60 ? runs : 60 ))
bruns=$(( runs < 100 ? runs : 100 ))
{
	lat direct "host=127.0.0.1 port=$AIRLOCK_PG_PORT user=airlock_ro password=$pw dbname=shop sslmode=disable" "$runs"
	lat pgbouncer "host=127.0.0.1 port=6433 user=airlock_ro password=$pw dbname=shop sslmode=disable" "$runs"
	# One statement a second: each finds a warm runner (pool_size > 0).
	lat airlock_warm "$airlock" "$wruns" "SELECT 1" 1000
	# Back to back: bounded by how fast the engine starts and removes containers.
	lat airlock_b2b "$airlock" "$bruns"
} | tee "$out/lat.txt"

# docker run per statement: create + start + exit + remove of the runner image.
image=$(cat "$AIRLOCK_STATE_DIR/runner_image")
druns=$(( runs < 30 ? runs : 30 ))
for _ in $(seq "$druns"); do
	t0=$(date +%s%N)
	docker run --rm --network none --read-only --cap-drop ALL --user 65534:65534 "$image" /nonexistent \
		>/dev/null 2>&1 || true
	echo $(( ($(date +%s%N) - t0) / 1000 ))
done | sort -n >"$out/docker.txt"
dmed=$(awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}' "$out/docker.txt")
printf '%-12s runs=%d median_ms=%s\n' docker_run "$druns" "$dmed" | tee -a "$out/lat.txt"

med() { awk -v k="$1" '$1==k {for(i=1;i<=NF;i++) if ($i ~ /^median_ms=/) {sub("median_ms=","",$i); print $i}}' "$out/lat.txt"; }
d=$(med direct); b=$(med pgbouncer); a=$(med airlock_warm); ab=$(med airlock_b2b); r=$(med docker_run)
echo
echo "ratios of median latency (SELECT 1, one connection):"
awk -v d="$d" -v b="$b" -v a="$a" -v ab="$ab" -v r="$r" 'BEGIN {
	printf "  airlock_warm / direct     = %.1fx\n", a / d
	printf "  airlock_warm / pgbouncer  = %.1fx\n", a / b
	printf "  airlock_warm / docker_run = %.3fx\n", a / r
	printf "  airlock_b2b  / docker_run = %.2fx\n", ab / r
}'

# MySQL: the same comparison against the demo's MariaDB.
if [ -s "$AIRLOCK_MY_PW_FILE" ] && [ -x "$build/bench_my_latency" ]; then
	mypw=$(cat "$AIRLOCK_MY_PW_FILE")
	mylat() { "$build/bench_my_latency" "$@"; }
	{
		mylat my_direct 127.0.0.1 "$AIRLOCK_MY_PORT" airlock_ro "$mypw" shop "$runs"
		mylat my_warm 127.0.0.1 "$AIRLOCK_MY_LISTEN_PORT" agent "$AIRLOCK_AGENT_PASSWORD" shop "$wruns" "SELECT 1" 1000
		mylat my_b2b 127.0.0.1 "$AIRLOCK_MY_LISTEN_PORT" agent "$AIRLOCK_AGENT_PASSWORD" shop "$bruns"
	} | tee -a "$out/lat.txt"
	md=$(med my_direct); mw=$(med my_warm); mb=$(med my_b2b)
	echo
	echo "ratios of median latency (MySQL SELECT 1, one connection):"
	awk -v d="$md" -v a="$mw" -v ab="$mb" -v r="$r" 'BEGIN {
		printf "  my_warm / my_direct  = %.1fx\n", a / d
		printf "  my_warm / docker_run = %.3fx\n", a / r
		printf "  my_b2b  / docker_run = %.2fx\n", ab / r
	}'
fi
echo
if [ -x "$build/bench_validate" ]; then
	echo "validator cost:"
	"$build/bench_validate"
fi
