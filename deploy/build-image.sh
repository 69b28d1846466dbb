#!/usr/bin/env bash
# Builds the causeway Docker image offline: static binaries built on the
# host (CGO_ENABLED=0) copied into an image FROM scratch (deploy/Dockerfile).
#
#   deploy/build-image.sh                    # tags causeway:dev
#   IMAGE=causeway:v1 deploy/build-image.sh
#
# Environment: IMAGE (default causeway:dev), GO (default go).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
image=${IMAGE:-causeway:dev}
ctx=$here/.build/image

command -v docker >/dev/null || { echo "build-image: docker is not installed" >&2; exit 1; }
rm -rf "$ctx"
mkdir -p "$ctx/rootfs/tmp" "$ctx/rootfs/var/lib/causeway" "$ctx/rootfs/etc/causeway/certs"
echo "build-image: static linux binaries (CGO_ENABLED=0) into ${ctx#"$root"/}"
# GOOS=linux: the image's platform, whatever the host's.
(cd "$root" && CGO_ENABLED=0 GOOS=linux "${GO:-go}" build -trimpath -ldflags='-s -w' -o "$ctx/" ./cmd/causeway ./deploy/pause)
echo "build-image: docker build --tag $image"
# Works with the legacy builder and with BuildKit; nothing is pulled. The
# legacy builder's deprecation notice is filtered out.
docker build --quiet --tag "$image" --file "$here/Dockerfile" "$ctx" \
	2> >(grep -v -i -e 'legacy builder' -e 'buildx' -e '^ *$' >&2)
# The image this replaced, if any, is left untagged: remove it (only
# untagged images of this Dockerfile, found by its label).
docker image prune --force --filter label=io.causeway.image=causeway >/dev/null
