#!/usr/bin/env bash
#
# bench/nodes.sh: throughput through Debian's HAProxy at 16 and 64 clients,
# one airlockd node behind it against three (runtime = oci, each with
# peer_id and peers, as docs/admin.md sets them up), in the same run. Needs
# the demo environment (integration/demo.sh running, or test.sh's). Its
# nodes listen on 6451-6453 (MySQL 3351-3353); HAProxy on 6460 (node 1
# only) and 6461 (the three, round robin). bench/run.sh runs it as its
# section 7; alone it prints its result lines and a table of its own.
#
# All the nodes share this machine's cores and its container runtime, so on
# one machine three nodes show what peering and the balancer cost, not
# what three machines would give.
#
# Usage: bench/nodes.sh [SECONDS]   (default 8 s per case)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=integration/tools/lib.sh
source "$here/../integration/tools/lib.sh"
# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"

secs=${1:-8}
build=$AIRLOCK_REPO/build
idle=100
# Three nodes beside the demo's airlockd (and run.sh's) share Postgres's 100 connections.
dbmax=8
out=$(mktemp -d)
pids=() bench_dirs=()
cleanup()
{
	kill "$(cat "$out/haproxy.pid" 2>/dev/null)" 2>/dev/null || true
	bench_stop
	rm -rf "$out"
}
trap cleanup EXIT

command -v haproxy >/dev/null || apt-get install -y --no-install-recommends haproxy >/dev/null

peers() { local i j list=(); for j in 1 2 3; do ((j == $1)) || list+=("$j=127.0.0.1:$((6450 + j))"); done; local IFS=,; echo "${list[*]}"; }
for i in 1 2 3; do
	bench_airlockd "node$i" oci $((6450 + i)) $((3350 + i)) $((1001300000 + i * 100000)) \
		"peer_id=$i" "peers=$(peers "$i")"
done

cat >"$out/haproxy.cfg" <<CFG
global
  maxconn 1024
  pidfile $out/haproxy.pid
defaults
  mode tcp
  timeout connect 5s
  timeout client 300s
  timeout server 300s
frontend one
  bind 127.0.0.1:6460
  default_backend one
frontend three
  bind 127.0.0.1:6461
  default_backend three
backend one
  server n1 127.0.0.1:6451 check inter 1s
backend three
  balance roundrobin
  server n1 127.0.0.1:6451 check inter 1s
  server n2 127.0.0.1:6452 check inter 1s
  server n3 127.0.0.1:6453 check inter 1s
CFG
haproxy -D -f "$out/haproxy.cfg"
wait_for 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6461'
sleep 2

via() { echo "host=127.0.0.1 port=$1 user=bench password=$AIRLOCK_AGENT_PASSWORD dbname=shop sslmode=disable"; }
echo "== nodes: throughput through HAProxy (SELECT 1, clients back to back, ${secs} s each)"
for c in 16 64; do
	"$build/bench_throughput" "nodes1_$c" "$(via 6460)" "$c" "$secs" 2>>"$out/tp.err" | tee -a "$out/lat.txt"
	"$build/bench_throughput" "nodes3_$c" "$(via 6461)" "$c" "$secs" 2>>"$out/tp.err" | tee -a "$out/lat.txt"
done
[[ -s $out/tp.err ]] && { echo "failures:"; sort "$out/tp.err" | uniq -c | sort -rn | head -5; }
field() { awk -v k="$1" -v f="$2" '$1==k {for(i=1;i<=NF;i++) if (index($i, f"=")==1) {sub(f"=","",$i); print $i}}' "$out/lat.txt" | tail -n 1; }
echo
echo "| clients | 3 nodes, statements/s (errors) | 1 node, statements/s (errors) | 3 / 1 |"
echo "| --- | --- | --- | --- |"
for c in 16 64; do
	a=$(field "nodes3_$c" per_s) b=$(field "nodes1_$c" per_s)
	printf '| %s | %s (%s) | %s (%s) | %s |\n' "$c" "$a" "$(field "nodes3_$c" errors)" "$b" "$(field "nodes1_$c" errors)" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')"
done
