#!/usr/bin/env bash
# Build the smolscript scoring-service image (services/smolscript_sandbox/Dockerfile).
#   bash services/smolscript_sandbox/scripts/build_sandbox_image.sh [TAG]          default TAG: smolscript-sandbox:0.1.0
# Needs a running Docker engine ($DOCKER_HOST; services/smolscript_sandbox/scripts/dockerd.sh start makes one) and, on the
# host, the toolchains of setup_host.sh (rustc under /opt/rust, node at /usr/bin/node): they are
# copied into the image at their pinned versions. Steps:
#   1. base image: $BASE_IMAGE if set (say debian:bookworm-slim, with a registry), else
#      local/bookworm:base, made once with debootstrap from the host's Debian mirror;
#   2. a minimal build context in a temporary folder (never the repository root, so no dataset,
#      reference or generator can reach the image): the Dockerfile, wheels of smol_envs_core and
#      smolscript_sandbox, requirements.txt from uv.lock (with hashes) and its wheels (cached in
#      $SMOLSCRIPT_WHEEL_CACHE, default /var/cache/smolscript-image/wheels), rustc and node;
#   3. docker build --network host (the engine runs without a bridge), layers ordered so that a
#      change of the service's code rebuilds only the last ones;
#   4. prints one summary line: tag, image ID (sha256), size, build time.
set -euo pipefail
cd "$(dirname "$0")/../../.."

TAG="${1:-smolscript-sandbox:0.1.0}"
LOCAL_BASE="local/bookworm:base"
BASE="${BASE_IMAGE:-$LOCAL_BASE}"
RUST_SRC="${RUST_TOOLCHAIN_DIR:-/opt/rust}"
NODE_SRC="${NODE_BINARY:-/usr/bin/node}"
WHEEL_CACHE="${SMOLSCRIPT_WHEEL_CACHE:-/var/cache/smolscript-image/wheels}"

mirror() {  # the host's Debian mirror, from its apt sources (deb822 or one-line format)
  local found
  found="$(grep -hs -E '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list \
    /etc/apt/sources.list.d/*.list | grep -E '/debian/?( |$)' | head -n1 \
    | sed -E 's/^URIs: *//; s/^deb +(\[[^]]*\] +)?//; s/ .*//')"
  echo "${found:-http://deb.debian.org/debian}"
}

if [[ "$BASE" == "$LOCAL_BASE" ]] && ! docker image inspect "$LOCAL_BASE" >/dev/null 2>&1; then
  rootfs="$(mktemp -d /var/tmp/bookworm-rootfs.XXXXXX)"
  trap 'rm -rf "$rootfs"' EXIT
  echo "== debootstrap bookworm (minbase) from $(mirror)"
  debootstrap --variant=minbase bookworm "$rootfs" "$(mirror)" >/dev/null
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import - "$LOCAL_BASE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  echo "== base image $LOCAL_BASE: $(docker image inspect -f '{{.Id}}' "$LOCAL_BASE")"
fi

for need in "$RUST_SRC/bin/rustc" "$NODE_SRC"; do
  if [[ ! -x "$need" ]]; then
    echo "build_sandbox_image: $need missing (run services/smolscript_sandbox/setup_host.sh)" >&2
    exit 1
  fi
done

ctx="$(mktemp -d /var/tmp/smolscript-image-ctx.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
cp services/smolscript_sandbox/Dockerfile "$ctx/"
mkdir -p "$ctx/wheels" "$ctx/service" "$ctx/toolchains/rust/bin" "$WHEEL_CACHE"
# Python dependencies: the versions of uv.lock, with their hashes, downloaded here (the host's
# pip configuration carries the certificates of this network) into a cache kept between builds,
# then installed in the image without an index.
uv export --frozen --package smolscript-sandbox --extra service --no-emit-workspace \
  --no-dev --quiet --output-file "$ctx/requirements.txt"
PIP_CONSTRAINT="" python3 -m pip download --quiet --no-deps --only-binary :all: \
  --require-hashes -r "$ctx/requirements.txt" -d "$WHEEL_CACHE"
cp "$WHEEL_CACHE"/*.whl "$ctx/wheels/"
# The service itself: wheels of smol_envs_core and smolscript_sandbox (their own files only).
uv build --quiet --wheel --package smol-envs-core --out-dir "$ctx/service"
uv build --quiet --wheel --package smolscript-sandbox --out-dir "$ctx/service"
cp -a "$RUST_SRC/bin/rustc" "$ctx/toolchains/rust/bin/"
cp -a "$RUST_SRC/lib" "$ctx/toolchains/rust/"
cp -a "$NODE_SRC" "$ctx/toolchains/node"
chmod -R a+rX "$ctx"

echo "== docker build $TAG (base $BASE)"
start=$(date +%s)
docker build --network host --build-arg "BASE_IMAGE=$BASE" -t "$TAG" "$ctx"
took=$(( $(date +%s) - start ))
id="$(docker image inspect -f '{{.Id}}' "$TAG")"
size="$(docker image inspect -f '{{.Size}}' "$TAG")"
echo "image $TAG id=$id size=$((size / 1024 / 1024))MiB build_s=$took"
