#!/usr/bin/env bash
#
# demo.sh: on a Debian 12 machine, as root, installs what is missing, builds
# airlock, starts the demo Postgres database (shop) and the Docker engine,
# builds the runner image, writes the config and runs airlockd in the
# foreground on 127.0.0.1:6432. Safe to run again.
#
# Then, from another shell:
#   psql postgresql://agent:agent-secret@127.0.0.1:6432/shop
set -euo pipefail

# shellcheck source=integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_root
install_deps
build_main
prepare_environment
config=$AIRLOCK_STATE_DIR/airlock.ini
write_config "$config" demo
airlock_port_free

log "airlockd: listening on $AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT (Ctrl-C stops it)"
log "try: psql postgresql://agent:$AIRLOCK_AGENT_PASSWORD@$AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT/shop"
cd "$AIRLOCK_REPO"
exec "$AIRLOCK_REPO/build/airlockd" -c "$config"
