#!/bin/sh
# Builds the airlock-runner image from a built airlock-runner binary.
#
#   integration/tools/build-runner-image.sh build/airlock-runner [TAG]
#   integration/tools/build-runner-image.sh --rootfs OUT.tar build/airlock-runner
#
# Stages a root filesystem (the binary at /airlock-runner, every shared
# library ldd lists including the dynamic loader, and a minimal passwd and
# group with nobody 65534) in a temporary directory, builds the top-level
# Dockerfile over it, tags the result TAG (airlock-runner:local) and prints the
# image ID ("sha256:<hex>") as the last line of stdout. Everything else
# goes to stderr.
#
# With --rootfs, the same root filesystem becomes a tar archive for
# runtime = oci instead (no Docker engine involved): entries sorted, owned
# by 0:0, mtime 0, so the same files always give the same bytes; the last
# line of stdout is the runner_rootfs value, "OUT.tar@sha256:<hex>".
set -eu

rootfs_out=
if [ "${1:-}" = "--rootfs" ]; then
	rootfs_out=${2:-}
	shift 2 || true
	case $rootfs_out in
	/*) ;;
	*) echo "$0: --rootfs needs an absolute path" >&2; exit 2 ;;
	esac
fi
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -x "$1" ]; then
	echo "usage: $0 [--rootfs OUT.tar] path/to/airlock-runner [tag]" >&2
	exit 2
fi
bin=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
tag=${2:-airlock-runner:local}

stage=$(mktemp -d "${TMPDIR:-/tmp}/airlock-runner-image.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
root=$stage/rootfs
# Mount points: the runtime mounts /proc, a /dev tmpfs and the job directory.
mkdir -p "$root/etc" "$root/job" "$root/proc" "$root/dev"

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

if [ -n "$rootfs_out" ]; then
	tar --create --file "$rootfs_out.tmp" --directory "$root" --sort=name --owner=0 --group=0 \
		--numeric-owner --mtime=@0 --format=gnu .
	mv "$rootfs_out.tmp" "$rootfs_out"
	chmod 0644 "$rootfs_out"
	echo "$rootfs_out@sha256:$(sha256sum "$rootfs_out" | cut -d' ' -f1)"
	exit 0
fi

cp "$repo/Dockerfile" "$stage/Dockerfile"
DOCKER_BUILDKIT=0 docker build --pull=false -t "$tag" "$stage" >&2
docker inspect --format '{{.Id}}' "$tag"
