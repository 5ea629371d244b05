#!/usr/bin/env bash
# Prepare a Debian 12 host (or CI runner) for the smolscript scoring service.
# Idempotent: safe to run again. Must run as root. What it does:
#   1. apt packages: bubblewrap (>= 0.8: --disable-userns), util-linux (prlimit, setpriv),
#      python3-seccomp (libseccomp's bindings: the service builds its syscall filter with
#      them), the toolchains and Chromium;
#   2. copies rustup's stable toolchain to /opt/rust (the sandbox uids cannot read /root);
#   3. creates the slot users smolslot0..N-1 (uids SMOLSCRIPT_SLOT_UID_BASE+i) and browser users
#      smolweb0..N-1 (uids SMOLSCRIPT_BROWSER_UID_BASE+i); no home, no shell, no login.
# Env: SMOLSCRIPT_SLOTS (default: nproc, at least 2, at most 64), SMOLSCRIPT_SLOT_UID_BASE (61000),
#      RUST_TOOLCHAIN_SRC (default: the first stable toolchain under ~root/.rustup/toolchains).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "setup_host.sh: must run as root" >&2
  exit 1
fi

PACKAGES=(bubblewrap util-linux python3 python3-seccomp nodejs gcc g++ lua5.4 mono-mcs mono-runtime
          libmono-system-numerics4.0-cil chromium chromium-headless-shell)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup_host.sh: installing ${missing[*]}"
  # Wait for another apt run (a parallel setup) instead of failing on its lock.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

# Rust: Debian's rustc (1.63) is too old; use a rustup stable toolchain, copied under /opt.
if [ ! -x /opt/rust/bin/rustc ]; then
  src="${RUST_TOOLCHAIN_SRC:-}"
  if [ -z "$src" ]; then
    src="$(ls -d /root/.rustup/toolchains/stable-* 2>/dev/null | head -n1 || true)"
  fi
  if { [ -z "$src" ] || [ ! -x "$src/bin/rustc" ]; } && command -v curl >/dev/null 2>&1; then
    echo "setup_host.sh: no rustup toolchain here; trying a minimal rustup install"
    if curl -sSf --max-time 60 https://sh.rustup.rs -o /tmp/rustup-init.sh; then
      RUSTUP_HOME=/opt/rustup.tmp CARGO_HOME=/opt/cargo.tmp sh /tmp/rustup-init.sh -y -q \
        --profile minimal --default-toolchain stable --no-modify-path || true
      src="$(ls -d /opt/rustup.tmp/toolchains/stable-* 2>/dev/null | head -n1 || true)"
    fi
  fi
  if [ -n "$src" ] && [ -x "$src/bin/rustc" ]; then
    echo "setup_host.sh: copying $src to /opt/rust"
    rm -rf /opt/rust.tmp && mkdir -p /opt/rust.tmp
    # Only what rustc needs: the compiler binaries and libraries (skip docs and sources).
    cp -a "$src/bin" "$src/lib" /opt/rust.tmp/
    rm -rf /opt/rust && mv /opt/rust.tmp /opt/rust
    chmod -R a+rX /opt/rust
    rm -rf /opt/rustup.tmp /opt/cargo.tmp
  else
    # Not fatal for the rest of the bootstrap: Rust jobs then report infra_error and full
    # validation exits 2 (unverified) instead of scoring anything.
    echo "setup_host.sh: WARNING: no Rust toolchain (set RUST_TOOLCHAIN_SRC or install rustup)" >&2
  fi
fi
[ -x /opt/rust/bin/rustc ] && /opt/rust/bin/rustc --version

# Slot users: one unprivileged uid per job slot (the service also works with bare numeric uids;
# the named users make `ps` output readable and reserve the uids).
slots="${SMOLSCRIPT_SLOTS:-$(nproc)}"
[ "$slots" -lt 2 ] && slots=2
[ "$slots" -gt 64 ] && slots=64
base="${SMOLSCRIPT_SLOT_UID_BASE:-61000}"
add_user() {  # name uid
  if ! getent passwd "$1" >/dev/null; then
    if getent passwd "$2" >/dev/null; then
      echo "setup_host.sh: uid $2 already taken by another user" >&2
      exit 1
    fi
    groupadd --gid "$2" "$1" 2>/dev/null || true
    useradd --uid "$2" --gid "$2" --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin "$1" 2>/dev/null
  fi
}
browser_base="${SMOLSCRIPT_BROWSER_UID_BASE:-62000}"
for i in $(seq 0 $((slots - 1))); do
  add_user "smolslot$i" $((base + i))      # program job slots
  add_user "smolweb$i" $((browser_base + i))  # warm browser slots
done

bwrap --version
# Per-slot memory/pids/CPU limits need writable cgroup v1 memory, pids and cpu hierarchies;
# without them the service runs with per-process rlimits only (its /health says which).
for c in memory pids cpu; do
  [ -w "/sys/fs/cgroup/$c/cgroup.procs" ] ||
    echo "setup_host.sh: note: no writable cgroup v1 '$c' hierarchy (per-process limits only)"
done
echo "setup_host.sh: ok ($slots slot users from uid $base, browser users from $browser_base)"
