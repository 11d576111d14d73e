#!/usr/bin/env bash
#
# bench/run.sh: airlock's figures, each next to its baseline in the same
# run, as a table of ratios. Needs the demo environment (integration/demo.sh
# running, or test.sh's); starts beside it its own PgBouncer (127.0.0.1:6433)
# and two airlockds of its own, one per runtime (oci: 6441/3341, docker:
# 6442/3342), from the demo's config plus a [user bench] with the caps
# lifted (for streaming and the connection counts), and stops them after.
#
#  1. SELECT 1 latency, median and p99: direct (warm connection, and a fresh
#     connection each time), PgBouncer, airlock one statement a second and
#     back to back, per runtime; the same over MySQL.
#  2. Throughput and p99 at 1, 4, 16 and 64 clients, per runtime, next to
#     the runtime's raw one-shot ceiling at the same concurrency
#     (bench/oneshot.sh) and docker run per statement. Then 64 and 256
#     clients on oci with every target at max_db_connections: errors, and
#     the most backend connections its runners held, sampled with ss.
#  3. Bursts: psql \d orders, SQLAlchemy reflection of the three tables and
#     3 rows of each, 100 statements back to back against 100 fresh direct
#     connections; one user's 16 clients x 10 statements at once (past its
#     own max_jobs) against the same over fresh direct connections.
#  4. Streaming all 200,000 orders rows: MB/s through airlock against direct
#     psql / mysql (the median of three transfers each), and airlockd's RSS
#     before and at its peak.
#  5. Idle authenticated connections: a fresh airlockd's RSS for them
#     against PgBouncer's. 5b: throughput at 16 and 64 clients of an
#     airlockd with workers = 2 against the one-worker oci airlockd, of
#     SELECT 1 (a runner each) and of SET (answered by airlockd itself).
#     5c: the oci airlockd's figures again with the other OCI runtime
#     (runc when the oci airlockd runs crun, the default, and crun when it
#     runs runc): warm, back to back, throughput beside that runtime's raw
#     ceiling, bursts.
#  6. The validators' cost per statement (bench_validate).
#  7. Throughput through HAProxy at 16 and 64 clients, one node against
#     three (bench/nodes.sh).
#
# Usage: bench/run.sh [RUNS] [SECONDS] [IDLE]   (defaults 200 statements per
# latency case, 8 s per throughput case, 10000 idle connections)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=integration/tools/lib.sh
source "$here/../integration/tools/lib.sh"
# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"

runs=${1:-200}
secs=${2:-8}
idle=${3:-10000}
build=$AIRLOCK_REPO/build
# The oci airlockds run AIRLOCK_OCI_RUNTIME (lib.sh: crun); section 5c runs the other one.
export AIRLOCK_OCI_RUNTIME
if [[ $(basename "$AIRLOCK_OCI_RUNTIME") == crun* ]]; then alt=/usr/sbin/runc; else alt=/usr/bin/crun; fi
main_name=$(basename "$AIRLOCK_OCI_RUNTIME") alt_name=$(basename "$alt")
pw=$(cat "$AIRLOCK_PW_FILE")
mypw=$(cat "$AIRLOCK_MY_PW_FILE")
out=$(mktemp -d)
pids=() bench_dirs=()
cleanup()
{
	kill "$(cat "$out/pgbouncer.pid" 2>/dev/null)" 2>/dev/null || true
	bench_stop
	rm -rf "$out"
}
trap cleanup EXIT
# Descriptors for the idle connections (each process holds one per connection).
hard=$(ulimit -Hn)
want=$((idle + 2048))
[[ $hard == unlimited || $hard -ge $want ]] || want=$hard
ulimit -n "$want"

command -v pgbouncer >/dev/null || apt-get install -y --no-install-recommends pgbouncer >/dev/null

# PgBouncer, transaction pooling, the same backend role (which the database
# takes over TLS only: PgBouncer checks its certificate against the demo CA).
cp "$AIRLOCK_TLS_DIR/ca.crt" "$out/ca.crt"
cat >"$out/pgbouncer.ini" <<INI
[databases]
shop = host=127.0.0.1 port=$AIRLOCK_PG_PORT dbname=shop
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 6433
auth_type = scram-sha-256
auth_file = $out/users.txt
pool_mode = transaction
server_tls_sslmode = verify-full
server_tls_ca_file = $out/ca.crt
default_pool_size = 4
max_client_conn = $((idle + 100))
pidfile = $out/pgbouncer.pid
logfile = $out/pgbouncer.log
unix_socket_dir =
INI
printf '"airlock_ro" "%s"\n' "$pw" >"$out/users.txt"
chown -R postgres "$out"
# PgBouncer gets the descriptors this shell has for the idle connections ($want, above).
runuser -u postgres -- bash -c "ulimit -n $want && exec pgbouncer -d '$out/pgbouncer.ini'"
wait_for 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6433'

dbmax=24
bench_airlockd oci oci 6441 3341 1001000000
bench_airlockd docker docker 6442 3342 1001100000

# The backend accounts log in over TLS only (lib.sh), as airlock's runners do: the direct
# baselines use it too, the certificate checked.
direct="host=127.0.0.1 port=$AIRLOCK_PG_PORT user=airlock_ro password=$pw dbname=shop sslmode=verify-full sslrootcert=$AIRLOCK_TLS_DIR/ca.crt"
bouncer="host=127.0.0.1 port=6433 user=airlock_ro password=$pw dbname=shop sslmode=disable"
# Clients reach airlock and PgBouncer without TLS, so the ratios compare the statement path, not the
# client's crypto.
via() { echo "host=127.0.0.1 port=$1 user=${2:-agent} password=$AIRLOCK_AGENT_PASSWORD dbname=shop sslmode=disable"; }
declare -A port=([oci]=6441 [docker]=6442) myport=([oci]=3341 [docker]=3342)
lat() { "$build/bench_latency" "$@" | tee -a "$out/lat.txt"; }
mylat() { "$build/bench_my_latency" "$@" | tee -a "$out/lat.txt"; }
wruns=$(( runs < 60 ? runs : 60 ))
bruns=$(( runs < 100 ? runs : 100 ))
field() { awk -v k="$1" -v f="$2" '$1==k {for(i=1;i<=NF;i++) if (index($i, f"=")==1) {sub(f"=","",$i); print $i}}' "$out/lat.txt" | tail -n 1; }

echo "== 1. SELECT 1 latency (ms)"
lat direct "$direct" "$runs"
lat direct_fresh "$direct" "$bruns" "SELECT 1" 0 fresh
lat pgbouncer "$bouncer" "$runs"
for rt in oci docker; do
	lat "warm_$rt" "$(via "${port[$rt]}")" "$wruns" "SELECT 1" 1000
	lat "b2b_$rt" "$(via "${port[$rt]}")" "$bruns"
done
MY_CA=$AIRLOCK_TLS_DIR/ca.crt mylat my_direct 127.0.0.1 "$AIRLOCK_MY_PORT" airlock_ro "$mypw" shop "$runs"
for rt in oci docker; do
	mylat "my_warm_$rt" 127.0.0.1 "${myport[$rt]}" agent "$AIRLOCK_AGENT_PASSWORD" shop "$wruns" "SELECT 1" 1000
	mylat "my_b2b_$rt" 127.0.0.1 "${myport[$rt]}" agent "$AIRLOCK_AGENT_PASSWORD" shop "$bruns"
done
image=$(cat "$AIRLOCK_STATE_DIR/runner_image")
for _ in $(seq 20); do
	t0=$(date +%s%N)
	docker run --rm --network none --read-only --cap-drop ALL --user 65534:65534 "$image" /nonexistent \
		>/dev/null 2>&1 || true
	echo $(( ($(date +%s%N) - t0) / 1000 ))
done | sort -n | awk '{a[NR]=$1} END {printf "%-12s runs=%d median_ms=%.3f p99_ms=%.3f\n", "docker_run", NR, a[int((NR+1)/2)]/1000, a[NR]/1000}' |
	tee -a "$out/lat.txt"

echo
echo "== 2. throughput (SELECT 1, clients back to back, ${secs} s each)"
for c in 1 4 16 64; do
	for rt in oci docker; do
		"$build/bench_throughput" "tp_${rt}_$c" "$(via "${port[$rt]}" bench)" "$c" "$secs" 2>>"$out/tp.err" |
			tee -a "$out/lat.txt"
	done
	bash "$here/oneshot.sh" oci "/run/airlock/bench-oci" "$c" "$secs" | sed "s/^raw_oci /raw_oci_$c/" | tee -a "$out/lat.txt"
	bash "$here/oneshot.sh" docker "$image" "$c" "$secs" | sed "s/^raw_docker /raw_docker_$c/" | tee -a "$out/lat.txt"
done
[[ -s $out/tp.err ]] && { echo "failures:"; sort "$out/tp.err" | uniq -c | sort -rn | head -5; }

echo
echo "== 2b. backend connections at 64 and 256 clients (oci, max_db_connections = $dbmax per target)"
# The most connections the oci airlockd's runners hold to Postgres, sampled while the clients run.
most_backend()
{
	local pid=$1 most=0 n
	while [[ -e $out/sampling ]]; do
		n=$(ss -Htnp state established dst "127.0.0.1:$AIRLOCK_PG_PORT" | grep -c "pid=$pid," || true)
		((n > most)) && most=$n
		sleep 0.02
	done
	echo "$most"
}
bsecs=$((secs > 20 ? secs / 2 : 10))
for c in 64 256; do
	: >"$out/sampling"
	most_backend "$(cat "$out/oci.pid")" >"$out/most.txt" &
	"$build/bench_throughput" "bound_oci_$c" "$(via 6441 bench)" "$c" "$bsecs" 2>>"$out/bound.err" |
		sed "s/\$/ most_backend=PENDING/" >"$out/bound.line"
	rm -f "$out/sampling"
	wait $!
	sed "s/PENDING/$(cat "$out/most.txt")/" "$out/bound.line" | tee -a "$out/lat.txt"
done
[[ -s $out/bound.err ]] && { echo "failures:"; sort "$out/bound.err" | uniq -c | sort -rn | head -5; }

echo
echo "== 3. bursts (wall time, median of 5, ms)"
burst()
{
	local label=$1
	shift
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$@" >/dev/null
		echo $(( ($(date +%s%N) - t0) / 1000 ))
	done | sort -n | awk -v l="$label" '{a[NR]=$1} END {printf "%-16s median_ms=%.1f\n", l, a[3]/1000}' | tee -a "$out/lat.txt"
}
durl="postgresql://airlock_ro:$pw@127.0.0.1:$AIRLOCK_PG_PORT/shop?sslmode=verify-full&sslrootcert=$AIRLOCK_TLS_DIR/ca.crt"
aurl() { echo "postgresql://agent:$AIRLOCK_AGENT_PASSWORD@127.0.0.1:$1/shop?sslmode=disable"; }
burst d_direct psql -X "$durl" -c '\d orders'
for rt in oci docker; do burst "d_$rt" psql -X "$(aurl "${port[$rt]}")" -c '\d orders'; done
refl() { "$AIRLOCK_PYTHON" "$here/reflect.py" "postgresql+psycopg2://${1#postgresql://}" 5 orders customers products | sort -n | sed -n 3p; }
printf '%-16s median_ms=%s\n' reflect_direct "$(refl "$durl")" | tee -a "$out/lat.txt"
for rt in oci docker; do printf '%-16s median_ms=%s\n' "reflect_$rt" "$(refl "$(aurl "${port[$rt]}")")" | tee -a "$out/lat.txt"; done
# One user (agent, with the demo's max_jobs) runs 16 clients x 10 statements at once.
"$AIRLOCK_PYTHON" "$here/user_burst.py" burst_direct "$direct" 16 10 fresh 2>>"$out/burst.err" | tee -a "$out/lat.txt"
for rt in oci docker; do
	"$AIRLOCK_PYTHON" "$here/user_burst.py" "burst_$rt" "$(via "${port[$rt]}")" 16 10 2>>"$out/burst.err" | tee -a "$out/lat.txt"
done
[[ -s $out/burst.err ]] && { echo "failures:"; cat "$out/burst.err"; }

echo
echo "== 4. streaming 200,000 orders rows"
# Three transfers each (one alone moves by a tenth or more here); the median's time, the peak RSS of all.
stream()
{
	local label=$1 pid=$2 t0 ms=() bytes before peak med
	shift 2
	before=$( [[ $pid != - ]] && awk '/^VmRSS/ {print $2}' "/proc/$pid/status" || echo 0)
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		bytes=$("$@" | wc -c)
		ms+=($(( ($(date +%s%N) - t0) / 1000000 )))
	done
	med=$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 2p)
	peak=$( [[ $pid != - ]] && awk '/^VmHWM/ {print $2}' "/proc/$pid/status" || echo 0)
	printf '%-16s bytes=%d ms=%d mb_s=%.1f rss_before_kb=%s rss_peak_kb=%s runs_ms=%s\n' "$label" "$bytes" "$med" \
		"$(awk -v b="$bytes" -v ms="$med" 'BEGIN {print b / 1e6 / (ms / 1000)}')" "$before" "$peak" \
		"$(IFS=/; echo "${ms[*]}")" | tee -a "$out/lat.txt"
}
q="SELECT * FROM orders"
stream s_direct - psql -X -A -t "$durl" -c "$q"
for rt in oci docker; do
	stream "s_$rt" "$(cat "$out/$rt.pid")" psql -X -A -t "postgresql://bench:$AIRLOCK_AGENT_PASSWORD@127.0.0.1:${port[$rt]}/shop?sslmode=disable" -c "$q"
done
stream s_my_direct - mysql -h127.0.0.1 -P"$AIRLOCK_MY_PORT" -uairlock_ro -p"$mypw" --ssl --ssl-ca="$AIRLOCK_TLS_DIR/ca.crt" \
	--ssl-verify-server-cert -B -N shop -e "$q"
stream s_my_oci "$(cat "$out/oci.pid")" mysql -h127.0.0.1 -P3341 -ubench -p"$AIRLOCK_AGENT_PASSWORD" --skip-ssl -B -N shop -e "$q"

echo
echo "== 5. $idle idle authenticated connections"
# A fresh airlockd: the others' heaps still hold what streaming freed, which idle sessions would reuse unseen.
bench_airlockd idle oci 6443 3343 1001200000
"$AIRLOCK_PYTHON" "$here/idle.py" idle_airlock "$(cat "$out/idle.pid")" "$idle" "$(via 6443 bench)" | tee -a "$out/lat.txt"
"$AIRLOCK_PYTHON" "$here/idle.py" idle_pgbouncer "$(cat "$out/pgbouncer.pid")" "$idle" "$bouncer" | tee -a "$out/lat.txt"
bench_end idle

echo
echo "== 6. validator cost"
"$build/bench_validate"
echo
echo "== 5b. one worker and two (oci; workers = 2 divide the same max_db_connections)"
bench_airlockd w2 oci 6443 3343 1001200000 workers=2
# SELECT 1 runs in a runner; SET airlockd answers itself (its loop and the protocol, no container).
# Each beside the share of the machine's CPU left idle while it ran.
for c in 16 64; do
	with_idle "w1cpu_$c" "$build/bench_throughput" "w1_$c" "$(via 6441 bench)" "$c" "$secs" 2>>"$out/w.err" |
		tee -a "$out/lat.txt"
	with_idle "w2cpu_$c" "$build/bench_throughput" "w2_$c" "$(via 6443 bench)" "$c" "$secs" 2>>"$out/w.err" |
		tee -a "$out/lat.txt"
	with_idle "w1setcpu_$c" "$build/bench_throughput" "w1set_$c" "$(via 6441 bench)" "$c" "$secs" \
		"SET application_name = 'bench'" 2>>"$out/w.err" | tee -a "$out/lat.txt"
	with_idle "w2setcpu_$c" "$build/bench_throughput" "w2set_$c" "$(via 6443 bench)" "$c" "$secs" \
		"SET application_name = 'bench'" 2>>"$out/w.err" | tee -a "$out/lat.txt"
done
[[ -s $out/w.err ]] && { echo "failures:"; sort "$out/w.err" | uniq -c | sort -rn | head -5; }
bench_end w2

echo
echo "== 5c. $alt_name against $main_name (the oci airlockd of sections 1 to 3, same config but oci_runtime)"
bench_airlockd alt oci 6444 3344 1001900000 oci_runtime=$alt
lat warm_alt "$(via 6444)" "$wruns" "SELECT 1" 1000
lat b2b_alt "$(via 6444)" "$bruns"
for c in 1 16 64; do
	"$build/bench_throughput" "tp_alt_$c" "$(via 6444 bench)" "$c" "$secs" 2>>"$out/alt.err" | tee -a "$out/lat.txt"
	AIRLOCK_OCI_RUNTIME=$alt bash "$here/oneshot.sh" oci /run/airlock/bench-alt "$c" "$secs" |
		sed "s/^raw_oci /raw_alt_$c/" | tee -a "$out/lat.txt"
done
burst d_alt psql -X "$(aurl 6444)" -c '\d orders'
printf '%-16s median_ms=%s\n' reflect_alt "$(refl "$(aurl 6444)")" | tee -a "$out/lat.txt"
"$AIRLOCK_PYTHON" "$here/user_burst.py" burst_alt "$(via 6444)" 16 10 2>>"$out/alt.err" | tee -a "$out/lat.txt"
[[ -s $out/alt.err ]] && { echo "failures:"; sort "$out/alt.err" | uniq -c | sort -rn | head -5; }
bench_end alt

# The same reads in this process and through one validator worker: the channel's cost per statement.
"$build/bench_vworker" 20000 "$build/airlock-validator"

echo
echo "== 7. nodes behind HAProxy"
bash "$here/nodes.sh" "$secs" | tee "$out/nodes.txt"
grep -E '^nodes[13]_' "$out/nodes.txt" >>"$out/lat.txt" || true

# ---- the table
f() { field "$1" "${2:-median_ms}"; }
r() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
echo
echo "| figure | airlock (oci, $main_name) | airlock (docker) | baseline | oci / baseline |"
echo "| --- | --- | --- | --- | --- |"
row() { printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$(r "$2" "$5")"; }
row "SELECT 1 warm, median ms (direct)" "$(f warm_oci)" "$(f warm_docker)" "$(f direct)" "$(f direct)"
row "SELECT 1 warm, p99 ms (direct)" "$(f warm_oci p99_ms)" "$(f warm_docker p99_ms)" "$(f direct p99_ms)" "$(f direct p99_ms)"
row "SELECT 1 warm, median ms (PgBouncer)" "$(f warm_oci)" "$(f warm_docker)" "$(f pgbouncer)" "$(f pgbouncer)"
row "SELECT 1 back to back, median ms (fresh direct connection)" "$(f b2b_oci)" "$(f b2b_docker)" "$(f direct_fresh)" "$(f direct_fresh)"
row "SELECT 1 back to back, p99 ms (fresh direct connection)" "$(f b2b_oci p99_ms)" "$(f b2b_docker p99_ms)" "$(f direct_fresh p99_ms)" "$(f direct_fresh p99_ms)"
row "100 back to back, total ms (100 fresh direct connections)" "$(awk -v m="$(f b2b_oci mean_ms)" 'BEGIN {print m * 100}')" \
	"$(awk -v m="$(f b2b_docker mean_ms)" 'BEGIN {print m * 100}')" "$(awk -v m="$(f direct_fresh mean_ms)" 'BEGIN {print m * 100}')" \
	"$(awk -v m="$(f direct_fresh mean_ms)" 'BEGIN {print m * 100}')"
row "MySQL SELECT 1 warm, median ms (direct)" "$(f my_warm_oci)" "$(f my_warm_docker)" "$(f my_direct)" "$(f my_direct)"
row "MySQL back to back, median ms (direct)" "$(f my_b2b_oci)" "$(f my_b2b_docker)" "$(f my_direct)" "$(f my_direct)"
for c in 1 4 16 64; do
	row "throughput at $c clients, statements/s (raw one-shot ceiling of each runtime)" \
		"$(f "tp_oci_$c" per_s)" "$(f "tp_docker_$c" per_s)" "oci $(f "raw_oci_$c" per_s) / docker $(f "raw_docker_$c" per_s)" "$(f "raw_oci_$c" per_s)"
	row "p99 ms at $c clients (errors oci/docker: $(f "tp_oci_$c" errors)/$(f "tp_docker_$c" errors))" \
		"$(f "tp_oci_$c" p99_ms)" "$(f "tp_docker_$c" p99_ms)" "-" "0"
done
for c in 64 256; do
	row "$c clients for $bsecs s: errors / most backend connections held (max_db_connections)" \
		"$(f "bound_oci_$c" errors) / $(f "bound_oci_$c" most_backend)" "-" "$dbmax" "0"
done
for c in 16 64; do
	row "$c clients, statements/s: 2 workers (1 worker; errors $(f "w2_$c" errors)/$(f "w1_$c" errors); machine idle $(f "w2cpu_$c" idle_pct)% / $(f "w1cpu_$c" idle_pct)%)" \
		"$(f "w2_$c" per_s)" "-" "$(f "w1_$c" per_s)" "$(f "w1_$c" per_s)"
	row "$c clients, SET (answered by airlockd), statements/s: 2 workers (1 worker; machine idle $(f "w2setcpu_$c" idle_pct)% / $(f "w1setcpu_$c" idle_pct)%)" \
		"$(f "w2set_$c" per_s)" "-" "$(f "w1set_$c" per_s)" "$(f "w1set_$c" per_s)"
done
row 'psql \d orders, ms (direct)' "$(f d_oci)" "$(f d_docker)" "$(f d_direct)" "$(f d_direct)"
row "$alt_name: SELECT 1 warm, median ms (direct)" "$(f warm_alt)" "-" "$(f direct)" "$(f direct)"
row "$alt_name: SELECT 1 back to back, median ms ($main_name)" "$(f b2b_alt)" "-" "$(f b2b_oci)" "$(f b2b_oci)"
row "$alt_name: 100 back to back, total ms (100 fresh direct connections)" "$(awk -v m="$(f b2b_alt mean_ms)" 'BEGIN {print m * 100}')" "-" \
	"$(awk -v m="$(f direct_fresh mean_ms)" 'BEGIN {print m * 100}')" "$(awk -v m="$(f direct_fresh mean_ms)" 'BEGIN {print m * 100}')"
for c in 1 16 64; do
	row "$alt_name: throughput at $c clients, statements/s (errors $(f "tp_alt_$c" errors); $alt_name's raw ceiling; $main_name's airlock $(f "tp_oci_$c" per_s), raw $(f "raw_oci_$c" per_s))" \
		"$(f "tp_alt_$c" per_s)" "-" "$(f "raw_alt_$c" per_s)" "$(f "raw_alt_$c" per_s)"
done
row "$alt_name: psql \d orders, ms (direct)" "$(f d_alt)" "-" "$(f d_direct)" "$(f d_direct)"
row "$alt_name: SQLAlchemy reflection + samples, ms (direct)" "$(f reflect_alt)" "-" "$(f reflect_direct)" "$(f reflect_direct)"
row "$alt_name: one user's 16 clients x 10 statements, ms (errors $(f burst_alt errors); fresh direct connections)" \
	"$(f burst_alt)" "-" "$(f burst_direct)" "$(f burst_direct)"

row "SQLAlchemy reflection + samples, ms (direct)" "$(f reflect_oci)" "$(f reflect_docker)" "$(f reflect_direct)" "$(f reflect_direct)"
row "one user's 16 clients x 10 statements, ms (errors oci/docker: $(f burst_oci errors)/$(f burst_docker errors); fresh direct connections)" \
	"$(f burst_oci)" "$(f burst_docker)" "$(f burst_direct)" "$(f burst_direct)"
row "streaming 200,000 rows, MB/s, median of 3 (direct psql)" "$(f s_oci mb_s)" "$(f s_docker mb_s)" "$(f s_direct mb_s)" "$(f s_direct mb_s)"
row "airlockd RSS before / at peak while streaming, kB" "$(f s_oci rss_before_kb) / $(f s_oci rss_peak_kb)" "$(f s_docker rss_before_kb) / $(f s_docker rss_peak_kb)" "-" "0"
row "MySQL streaming, MB/s, median of 3 (direct mysql)" "$(f s_my_oci mb_s)" "-" "$(f s_my_direct mb_s)" "$(f s_my_direct mb_s)"
for c in 16 64; do
	row "through HAProxy at $c clients, statements/s: 3 nodes (1 node; errors $(f "nodes3_$c" errors)/$(f "nodes1_$c" errors))" \
		"$(f "nodes3_$c" per_s)" "-" "$(f "nodes1_$c" per_s)" "$(f "nodes1_$c" per_s)"
done
row "$idle idle connections, RSS growth kB (PgBouncer)" "$(f idle_airlock rss_with_kb) - $(f idle_airlock rss_before_kb)" "-" \
	"$(f idle_pgbouncer rss_with_kb) - $(f idle_pgbouncer rss_before_kb)" "0"
row "per idle connection, kB (PgBouncer)" "$(f idle_airlock per_conn_kb)" "-" "$(f idle_pgbouncer per_conn_kb)" "$(f idle_pgbouncer per_conn_kb)"
echo
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $("$AIRLOCK_OCI_RUNTIME" --version | head -n 1) (and $("$alt" --version | head -n 1) in 5c), $(docker --version)"
