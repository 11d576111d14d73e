#!/bin/sh
# Builds the airlock-runner image from a built airlock-runner binary.
#
#   integration/build-runner-image.sh build/airlock-runner [TAG]
#
# Stages a root filesystem (the binary at /airlock-runner, every shared
# library ldd lists including the dynamic loader, and a minimal passwd and
# group with nobody 65534) in a temporary directory, builds the top-level
# Dockerfile over it, tags the result TAG (airlock-runner:local) and prints the
# image ID ("sha256:<hex>") as the last line of stdout. Everything else
# goes to stderr.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -x "$1" ]; then
	echo "usage: $0 path/to/airlock-runner [tag]" >&2
	exit 2
fi
bin=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
tag=${2:-airlock-runner:local}

stage=$(mktemp -d "${TMPDIR:-/tmp}/airlock-runner-image.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
root=$stage/rootfs
mkdir -p "$root/etc" "$root/job"

install -m 0755 "$bin" "$root/airlock-runner"

# Every absolute path ldd prints: "lib => /path (addr)" and "/loader (addr)".
libs=$(ldd "$bin" | awk '
	$2 == "=>" && $3 ~ /^\// { print $3 }
	$1 ~ /^\// { print $1 }')
if [ -z "$libs" ]; then
	echo "$0: ldd found no libraries for $bin" >&2
	exit 1
fi
for lib in $libs; do
	mkdir -p "$root$(dirname "$lib")"
	# Copy the file a link points to, under the name the loader asks for.
	cp -L "$lib" "$root$lib"
	chmod 0755 "$root$lib"
	echo "staged $lib" >&2
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

cp "$repo/Dockerfile" "$stage/Dockerfile"
DOCKER_BUILDKIT=0 docker build --pull=false -t "$tag" "$stage" >&2
docker inspect --format '{{.Id}}' "$tag"
