#!/usr/bin/env bash
# Builds agent3md's container image for `serve` without a container
# engine or a registry (docs/http.md §14): static Linux binaries, then
# scripts/image (a Go module of its own, on go-containerregistry) packs
# each into a scratch image run as 65532:65532 and writes them, one
# index, as an OCI archive (skopeo copy --all oci-archive:… pushes it,
# podman load reads it). The bytes are reproducible for one commit.
#
# Usage: scripts/image.sh [-o OUT.tar] [--tag TAG] [--arch 'amd64 arm64'] [--check]
#   -o       the archive (default dist/agent3md.oci.tar)
#   --tag    the image's version and reference name (default: git describe, else dev)
#   --arch   the Linux architectures to build (default: this machine's)
#   --check  then run the image with no engine: its file system unpacked
#            into a folder, `agent3md version` run in it by chroot as
#            65532:65532, and `serve` started there and driven end to end
#            by `selftest --url` (needs root, for chroot; CI runs it)
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist/agent3md.oci.tar
tag=$(git describe --tags --always 2>/dev/null || echo dev)
arch=$(go env GOARCH)
check=0
while (( $# )); do
  case $1 in
    -o) out=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "image.sh: unknown argument $1 (see the usage at the top of scripts/image.sh)" >&2; exit 2 ;;
  esac
done
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=()
for a in $arch; do
  mkdir -p "$work/linux-$a"
  CGO_ENABLED=0 GOOS=linux GOARCH=$a go build -trimpath \
    -ldflags "-s -w -X main.version=$tag -X main.commit=$commit" \
    -o "$work/linux-$a/agent3md" ./cmd/agent3md
  bins+=("$work/linux-$a/agent3md")
done
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
(cd scripts/image && go run . build -o "$out" -tag "$tag" "${bins[@]}")
echo "image.sh: wrote $out ($(du -h "$out" | cut -f1), linux/${arch// /, linux/}, tag $tag)"

(( check )) || exit 0
if [ "$(id -u)" != 0 ]; then
  echo "image.sh --check: chroot needs root; run it as root (CI does)" >&2
  exit 1
fi
host=$(go env GOARCH)
rootfs="$work/rootfs"
mkdir -p "$rootfs"
(cd scripts/image && go run . extract -platform "linux/$host" "$out") | tar -x -C "$rootfs"
# The image's environment (its config's Env), nothing of this shell's.
chroot=$(command -v chroot)
in_image() { env -i HOME=/home/nonroot "$chroot" --userspec=65532:65532 "$rootfs" "$@"; }
in_image /agent3md version
[ "$(in_image /agent3md version | cut -d' ' -f1-2)" = "agent3md $tag" ] || { echo "image.sh --check: the image's binary is not version $tag"; exit 1; }

# serve as the non-root user, from its home (the routing cache goes
# there), then drive it from outside with selftest (the same static
# binary, run outside the chroot).
cp examples/devtools.3md "$rootfs/home/nonroot/"
chown 65532:65532 "$rootfs/home/nonroot/devtools.3md"
# Not through in_image: a function run in the background is a subshell,
# and $! would be its pid, not the server's.
env -i HOME=/home/nonroot "$chroot" --userspec=65532:65532 "$rootfs" \
  /agent3md serve --addr 127.0.0.1:0 --no-watch /home/nonroot/devtools.3md 2>"$work/serve.log" &
serve_pid=$!
addr=""
for _ in $(seq 100); do
  addr=$(sed -n 's/.*msg="agent3md serving over HTTP" addr=\([^ ]*\).*/\1/p' "$work/serve.log" | head -1)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "image.sh --check: serve did not start in the image"; cat "$work/serve.log"; exit 1; }
status=0
"$rootfs/agent3md" selftest --url "http://$addr/mcp" examples/devtools.3md >"$work/selftest.out" || status=$?
kill "$serve_pid"; wait "$serve_pid" || true
tail -3 "$work/selftest.out"
[ "$status" -eq 0 ] || { echo "image.sh --check: selftest of serve in the image failed"; cat "$work/selftest.out"; tail -20 "$work/serve.log"; exit 1; }
echo "image.sh --check: the image runs as 65532:65532; serve in it passed selftest"
