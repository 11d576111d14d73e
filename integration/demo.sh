#!/usr/bin/env bash
#
# demo.sh: on a Debian 12 machine, as root, installs what is missing, builds
# airlock, starts the demo databases (shop on Postgres and on MariaDB) and
# the Docker engine, builds the runner image, writes the config and runs
# airlockd in the foreground on 127.0.0.1:6432 (Postgres clients),
# 127.0.0.1:3307 (MySQL clients) and https://127.0.0.1:8443 (approvers).
# Safe to run again.
#
# Then, from another shell:
#   psql postgresql://agent:agent-secret@127.0.0.1:6432/shop
#   mysql -h 127.0.0.1 -P 3307 -u agent -pagent-secret shop
# or as support (orders filtered, customers' emails masked), password
# support-secret; as writer (password writer-secret) a write to orders is
# held until the approver (approver-secret) decides it with
# build/airlockctl (docs/writes.md).
set -euo pipefail

# shellcheck source=integration/tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools/lib.sh"

require_root
install_deps
build_main
prepare_environment
config=$AIRLOCK_STATE_DIR/airlock.ini
write_config "$config" demo
airlock_port_free

log "airlockd: listening on $AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT and $AIRLOCK_LISTEN_HOST:$AIRLOCK_MY_LISTEN_PORT (Ctrl-C stops it)"
log "try: psql postgresql://agent:$AIRLOCK_AGENT_PASSWORD@$AIRLOCK_LISTEN_HOST:$AIRLOCK_LISTEN_PORT/shop"
log " or: mysql -h $AIRLOCK_LISTEN_HOST -P $AIRLOCK_MY_LISTEN_PORT -u agent -p$AIRLOCK_AGENT_PASSWORD shop"
cd "$AIRLOCK_REPO"
exec "$AIRLOCK_REPO/build/airlockd" -c "$config"
