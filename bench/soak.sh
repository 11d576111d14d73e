#!/usr/bin/env bash
#
# bench/soak.sh: the soak of integration/tests/test_soak.py, for longer (default
# an hour) and with more clients if asked. Prints the outcome counts and
# airlockd's RSS and descriptors after the warm-up, at their highest and
# idle at the end. Needs what integration/test.sh sets up.
#
#   bench/soak.sh [SECONDS] [CLIENTS]
set -euo pipefail

# shellcheck source=integration/tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../integration/tools/lib.sh"

secs=${1:-3600}
clients=${2:-8}
[[ -x $AIRLOCK_REPO/build/airlockd ]] || die "build/airlockd is missing: run integration/test.sh first"
[[ -f $AIRLOCK_STATE_DIR/airlock-test.ini ]] || die "the test config is missing: run integration/test.sh first"
AIRLOCK_CONFIG=$AIRLOCK_STATE_DIR/airlock-test.ini \
	"$AIRLOCK_PYTHON" "$AIRLOCK_REPO/integration/tests/soak.py" --seconds "$secs" --clients "$clients"
