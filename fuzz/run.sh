#!/usr/bin/env bash
#
# fuzz/run.sh: the long fuzzing run, beside the short one integration/test.sh
# does in CI (20 s per target). Builds build-fuzz/ (clang, libFuzzer) and
# runs each target, or those named, for SECONDS (default 3600) from the
# checked-in seeds (fuzz/corpus/, made by fuzz/seeds.py) and the corpus
# it keeps in build-fuzz/corpus/ between runs. A crash leaves its input in
# build-fuzz/artifacts/; add it to fuzz/corpus/<target>/ once fixed.
#
#   fuzz/run.sh                      every target, an hour each
#   fuzz/run.sh 600 fuzz_validate_pg ten minutes, one target
set -euo pipefail

# shellcheck source=integration/tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../integration/tools/lib.sh"

secs=${1:-3600}
shift || true
[[ $secs =~ ^[0-9]+$ ]] || die "usage: fuzz/run.sh [SECONDS] [TARGET...]"
command -v clang >/dev/null || die "clang is missing: run integration/test.sh once, it installs it"
build_fuzz
AIRLOCK_FUZZ_SECONDS=$secs run_fuzzers "$@"
log "fuzz: every target ran ${secs}s without a finding"
