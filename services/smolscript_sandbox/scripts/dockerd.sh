#!/usr/bin/env bash
# Start or stop a private Docker engine for the scoring-service image (CI and local use).
#   bash services/smolscript_sandbox/scripts/dockerd.sh install   apt-get docker.io + debootstrap when missing (root)
#   bash services/smolscript_sandbox/scripts/dockerd.sh start     start dockerd in the background, wait for `docker info`
#   bash services/smolscript_sandbox/scripts/dockerd.sh stop      stop the dockerd this script started; remove its containers
#   bash services/smolscript_sandbox/scripts/dockerd.sh env       print `export DOCKER_HOST=...` for this engine
# The engine runs with --iptables=false --ip-forward=false --bridge=none: Docker otherwise leaves
# the docker0 bridge, its iptables chains, FORWARD=DROP and ip_forward=1 behind on the host.
# Containers then get either no network or the host's (builds use --network host); the scoring
# service container publishes nothing and is started with the host network namespace on a
# loopback port (see container.py). PID 1 is not systemd here, so dockerd is started by hand.
# Env: SMOL_DOCKER_ROOT (state: data root, exec root, socket, pid file, log;
#      default /var/lib/smol-envs-docker).
set -euo pipefail

ROOT="${SMOL_DOCKER_ROOT:-/var/lib/smol-envs-docker}"
SOCK="$ROOT/docker.sock"
PIDFILE="$ROOT/dockerd.pid"
LOG="$ROOT/dockerd.log"
export DOCKER_HOST="unix://$SOCK"

running() {
  [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

case "${1:-}" in
  install)
    need=()
    command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
    command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
    if [[ "${#need[@]}" -gt 0 ]]; then
      echo "dockerd.sh: installing ${need[*]}"
      apt-get -o DPkg::Lock::Timeout=600 update -qq
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${need[@]}"
    fi
    ;;
  start)
    if running; then
      echo "dockerd.sh: already running (pid $(cat "$PIDFILE"))"
      exit 0
    fi
    mkdir -p "$ROOT/data" "$ROOT/exec"
    # setsid: its own session, so that a CI job's signals reach it only through `stop`.
    setsid dockerd --data-root "$ROOT/data" --exec-root "$ROOT/exec" --pidfile "$PIDFILE" \
      --host "$DOCKER_HOST" --iptables=false --ip-masq=false --ip-forward=false --bridge=none \
      --storage-driver overlay2 >"$LOG" 2>&1 < /dev/null &
    for _ in $(seq 1 120); do
      if docker info >/dev/null 2>&1; then
        echo "dockerd.sh: engine up at $DOCKER_HOST ($(docker version -f '{{.Server.Version}}'))"
        # A run killed with its engine leaves its (stopped) service containers in the data
        # root; their names would block the next start.
        stale="$(docker ps -aq --filter label=smolscript-sandbox 2>/dev/null || true)"
        if [[ -n "$stale" ]]; then
          echo "dockerd.sh: removing $(echo "$stale" | wc -w) stale service container(s)"
          # shellcheck disable=SC2086
          docker rm -f $stale >/dev/null 2>&1 || true
        fi
        exit 0
      fi
      sleep 0.5
    done
    echo "dockerd.sh: dockerd did not answer within 60 s; log tail:" >&2
    tail -n 30 "$LOG" >&2
    exit 1
    ;;
  stop)
    if ! running; then
      echo "dockerd.sh: not running"
      exit 0
    fi
    ids="$(docker ps -aq 2>/dev/null || true)"
    if [[ -n "$ids" ]]; then
      # shellcheck disable=SC2086
      docker rm -f $ids >/dev/null 2>&1 || true
    fi
    pid="$(cat "$PIDFILE")"
    kill -TERM "$pid"
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || { echo "dockerd.sh: stopped"; exit 0; }
      sleep 0.5
    done
    echo "dockerd.sh: dockerd (pid $pid) ignored SIGTERM for 30 s; killing it" >&2
    kill -KILL "$pid" || true
    ;;
  env)
    echo "export DOCKER_HOST=$DOCKER_HOST"
    ;;
  *)
    echo "usage: services/smolscript_sandbox/scripts/dockerd.sh install|start|stop|env" >&2
    exit 2
    ;;
esac
