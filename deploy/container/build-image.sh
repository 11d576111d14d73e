#!/bin/sh
# Builds airlockd's own image from a build directory, with no registry:
#
#   deploy/container/build-image.sh BUILD_DIR [TAG]
#
# Stages a root filesystem: airlockd and airlock-validator in
# /usr/local/sbin, runc (the host's) in /usr/sbin, the runner's root
# filesystem archive at /usr/lib/airlock/runner-rootfs.tar (built from
# BUILD_DIR/airlock-runner), every shared library ldd lists for the three
# programs, a passwd and group naming root and nobody, and empty mount
# points for /etc/airlock, /run/airlock, /var/lib/airlock and /tmp. Then
# builds deploy/container/Containerfile over it as TAG (airlockd:local).
#
# Prints two lines on stdout: the image ID, then the runner_rootfs value
# to put in the config ("/usr/lib/airlock/runner-rootfs.tar@sha256:<hex>").
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -x "$1/airlockd" ]; then
	echo "usage: $0 BUILD_DIR [tag]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
tag=${2:-airlockd:local}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
runc=$(command -v runc || true)
if [ -z "$runc" ]; then
	echo "$0: runc is not installed" >&2
	exit 1
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/airlockd-image.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
root=$stage/rootfs
mkdir -p "$root/usr/local/sbin" "$root/usr/sbin" "$root/usr/lib/airlock" "$root/etc/airlock" \
	"$root/run/airlock" "$root/var/lib/airlock" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
chmod 1777 "$root/tmp"
install -m 0755 "$build/airlockd" "$build/airlock-validator" "$root/usr/local/sbin/"
install -m 0755 "$runc" "$root/usr/sbin/runc"
out=$("$repo/integration/tools/build-runner-image.sh" --rootfs "$root/usr/lib/airlock/runner-rootfs.tar" \
	"$build/airlock-runner" | tail -n 1)
digest=${out##*@}

for bin in "$build/airlockd" "$build/airlock-validator" "$runc"; do
	ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
	chmod 0755 "$root$lib"
done

cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/nonexistent:/nonexistent
nobody:x:65534:65534:nobody:/nonexistent:/nonexistent
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
nogroup:x:65534:
GROUP
chmod 0644 "$root/etc/passwd" "$root/etc/group"

cp "$here/Containerfile" "$stage/Containerfile"
DOCKER_BUILDKIT=0 docker build --pull=false -f "$stage/Containerfile" -t "$tag" "$stage" >&2
docker inspect --format '{{.Id}}' "$tag"
echo "/usr/lib/airlock/runner-rootfs.tar@$digest"
