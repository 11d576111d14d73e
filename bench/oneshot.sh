#!/usr/bin/env bash
#
# bench/oneshot.sh: a runtime's raw one-shot ceiling, the containers per
# second it can create, start, wait for and remove when each does nothing,
# at a given concurrency. This is what a one-container-per-statement design
# can never beat, whatever it does around the runtime.
#
#   bench/oneshot.sh oci JOB_DIR CLIENTS SECONDS   (AIRLOCK_OCI_RUNTIME, crun by default, with a live airlockd's config.json)
#   bench/oneshot.sh docker IMAGE CLIENTS SECONDS  (docker run --rm with the runner's settings)
#
# For oci, the config.json is copied from a warm runner of the airlockd
# whose job_dir is given (same namespaces, user namespace, cgroup limits,
# seccomp filter, read-only root), with the runner told to connect to a
# socket that does not exist, so it exits at once, and without /job.
# Prints one line: label, clients, runs, runs per second.
set -euo pipefail

kind=$1 where=$2 clients=$3 seconds=$4
runtime=${AIRLOCK_OCI_RUNTIME:-/usr/bin/crun}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ $kind == oci ]]; then
	# A warm runner's bundle goes with its runner: copied at once, another tried if it went first.
	src=$work/src.json
	for _ in $(seq 50); do
		found=$(find "$where/.oci/bundles" -name config.json 2>/dev/null | head -n 1)
		[[ -n $found ]] && cp "$found" "$src" 2>/dev/null && break
		rm -f "$src"
		sleep 0.1
	done
	[[ -s $src ]] || { echo "oneshot: no live runner bundle under $where/.oci/bundles" >&2; exit 1; }
	root=$work/root
	mkdir -p "$root"
	python3 - "$src" "$work/bundle/config.json" <<'PY'
import json, os, sys
cfg = json.load(open(sys.argv[1]))
cfg["process"]["args"] = ["/airlock-runner", "/nonexistent/control.sock"]
cfg["mounts"] = [m for m in cfg["mounts"] if m["destination"] != "/job"]
cfg["linux"]["cgroupsPath"] = "/airlock/bench-oneshot"
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(cfg, open(sys.argv[2], "w"))
PY
	chmod 0711 "$work" "$work/bundle"
fi

one()
{
	local c=$1 n=0 end=$(( $(date +%s%N) + seconds * 1000000000 ))

	while (( $(date +%s%N) < end )); do
		if [[ $kind == oci ]]; then
			# A cgroup of its own per container, as airlockd gives each.
			sed "s|/airlock/bench-oneshot|/airlock/bench-oneshot-$c-$n|" "$work/bundle/config.json" \
				>"$work/bundle/c$c.json"
			mkdir -p "$work/b$c"
			cp "$work/bundle/c$c.json" "$work/b$c/config.json"
			"$runtime" --root "$root" run --bundle "$work/b$c" "bench-$c-$n" >/dev/null 2>&1 || true
		else
			docker run --rm --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
				--user 65534:65534 --memory 128m --memory-swap 128m --cpus 0.5 --pids-limit 64 \
				"$where" /nonexistent/control.sock >/dev/null 2>&1 || true
		fi
		n=$((n + 1))
	done
	echo "$n" >"$work/count.$c"
}

t0=$(date +%s%N)
for c in $(seq "$clients"); do
	one "$c" &
done
wait
elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
total=$(cat "$work"/count.* | awk '{s += $1} END {print s}')
printf '%-16s clients=%d runs=%d per_s=%.1f\n' "raw_$kind" "$clients" "$total" \
	"$(awk -v n="$total" -v ms="$elapsed" 'BEGIN {print n / (ms / 1000)}')"
