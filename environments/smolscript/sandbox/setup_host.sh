#!/usr/bin/env bash
# Prepare a Debian 12 host (or CI runner) for the smolscript scoring service.
# Idempotent: safe to run again. Must run as root. What it does:
#   1. apt packages: bubblewrap, util-linux (prlimit, setpriv), the toolchains and Chromium;
#   2. copies rustup's stable toolchain to /opt/rust (the sandbox uids cannot read /root);
#   3. creates the slot users smolslot0..N-1 (uids SMOLSCRIPT_SLOT_UID_BASE+i, no home, no shell).
# Env: SMOLSCRIPT_SLOTS (default: nproc, at least 2, at most 64), SMOLSCRIPT_SLOT_UID_BASE (61000),
#      RUST_TOOLCHAIN_SRC (default: the first stable toolchain under ~root/.rustup/toolchains).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "setup_host.sh: must run as root" >&2
  exit 1
fi

PACKAGES=(bubblewrap util-linux python3 nodejs gcc g++ lua5.4 mono-mcs mono-runtime chromium)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup_host.sh: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Rust: Debian's rustc (1.63) is too old; use rustup's stable toolchain, copied under /opt.
if [ ! -x /opt/rust/bin/rustc ]; then
  src="${RUST_TOOLCHAIN_SRC:-}"
  if [ -z "$src" ]; then
    src="$(ls -d /root/.rustup/toolchains/stable-* 2>/dev/null | head -n1 || true)"
  fi
  if [ -z "$src" ] || [ ! -x "$src/bin/rustc" ]; then
    echo "setup_host.sh: no rustup stable toolchain found (set RUST_TOOLCHAIN_SRC);" \
         "install one with: curl https://sh.rustup.rs | sh -s -- -y --profile minimal" >&2
    exit 1
  fi
  echo "setup_host.sh: copying $src to /opt/rust"
  mkdir -p /opt/rust.tmp
  # Only what rustc needs: the compiler binaries and libraries (skip docs and sources).
  cp -a "$src/bin" "$src/lib" /opt/rust.tmp/
  rm -rf /opt/rust && mv /opt/rust.tmp /opt/rust
  chmod -R a+rX /opt/rust
fi
/opt/rust/bin/rustc --version

# Slot users: one unprivileged uid per job slot (the service also works with bare numeric uids;
# the named users make `ps` output readable and reserve the uids).
slots="${SMOLSCRIPT_SLOTS:-$(nproc)}"
[ "$slots" -lt 2 ] && slots=2
[ "$slots" -gt 64 ] && slots=64
base="${SMOLSCRIPT_SLOT_UID_BASE:-61000}"
for i in $(seq 0 $((slots - 1))); do
  uid=$((base + i))
  name="smolslot$i"
  if ! getent passwd "$name" >/dev/null; then
    if getent passwd "$uid" >/dev/null; then
      echo "setup_host.sh: uid $uid already taken by another user" >&2
      exit 1
    fi
    groupadd --system --gid "$uid" "$name" 2>/dev/null || true
    useradd --system --uid "$uid" --gid "$uid" --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin "$name"
  fi
done

bwrap --version
echo "setup_host.sh: ok ($slots slot users from uid $base)"
