"""One process manager for the local services (the model server, the scoring service).

A service is one background process per (name, port), with its state in one folder per port:
`process.json` (the record: pid, process start time, host, port, argv, log), `server.log`,
`start.lock` and `users/`. The rules:

- liveness: a record names our process only while a process with that pid *and that start
  time* (`start_time`: seconds after boot, which no clock change moves) runs and is not a
  zombie (a recycled pid is never mistaken for ours);
- `start` holds a file lock (filelock) for the whole start, so two starters never race: the
  second waits, then finds the first one's service and reuses it;
- a process counts as started only once ready: the record is written after the readiness
  check (and the optional confirmation, e.g. one real completion) succeeded; a process that
  dies or hangs before that is killed and reported with how it ended and its log tail;
- `stop` stops only what the record names (the process group we started), never a process
  found by name or port;
- users: a caller that shares a service registers itself (`users/<pid>-<start time>`); the
  one that started it stops it when the last live user leaves (`release`).

Failures raise `InfrastructureError` (component: the service's name).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil
from filelock import FileLock

from .errors import InfrastructureError

RECORD = "process.json"
# Exit status of every service command's `status` (`smol-envs-serve status`, `python -m
# smolscript_sandbox status`): the LSB init-script convention (Linux Standard Base Core
# Specification, "Init Script Actions": 0 "program is running or service is OK", 3 "program is
# not running"). Running means it answers (/v1/models, /health); a process that is still
# starting, or not ours, is "not running".
STATUS_RUNNING = 0
STATUS_NOT_RUNNING = 3
LOG = "server.log"
# Marks every service process started by a test session (inherited by subprocesses such as
# vf-eval), so that the suite can check at its end that it left nothing running.
SESSION_ENV = "SMOL_ENVS_TEST_SESSION"


@dataclass(frozen=True)
class Service:
    """How to run one local service.

    Attributes:
        name: what it is, in words ("local model server"); the component of its errors.
        host, port: where it listens; `url` is how it is reached (for messages).
        state_dir: its folder (one per port).
        argv: the command (started in a new session, stdin closed, stdout+stderr to the log).
        ready: polled until it returns True (e.g. an HTTP health check); must not raise.
        confirm: run once after `ready`; raises (OSError, ValueError, KeyError) when the service
            is not really usable (e.g. its first completion fails).
        env: the environment of the process (None: ours).
        start_timeout_s: seconds for `ready` to hold.
        confirm_what: what `confirm` asks, in words (for messages).
    """

    name: str
    host: str
    port: int
    url: str
    state_dir: Path
    argv: Sequence[str]
    ready: Callable[[], bool]
    confirm: Callable[[], object] | None = None
    env: Mapping[str, str] | None = None
    start_timeout_s: float = 120.0
    confirm_what: str = "first request"


_PROC_STAT = Path("/proc/self/stat")


def start_time(pid: int) -> float:
    """Seconds after boot at which process `pid` started (10 ms resolution).

    Read from `starttime`, field 22 of /proc/PID/stat, in clock ticks since boot (proc(5)).
    psutil's `create_time()` is this plus /proc/stat's `btime`, in wall-clock seconds, and
    `btime` moves whenever the system clock is stepped (NTP, a virtual machine resumed from a
    pause); compared across processes and minutes it once took our live services for
    recycled pids (their records were dropped and the processes left running). This value
    never changes for the life of a process, so (pid, start_time) names one process. psutil
    keys its own process identity on the same value on Linux (`Process._get_ident`). Without
    /proc (not Linux) it is psutil's `create_time()`, clock steps and all.

    Raises psutil.NoSuchProcess when no process `pid` exists.
    """
    if not _PROC_STAT.exists():
        return psutil.Process(pid).create_time()
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        raise psutil.NoSuchProcess(pid) from None
    fields = stat[stat.rindex(")") + 2:].split()  # field 3 (state) onwards; comm may hold ")"
    return int(fields[22 - 3]) / os.sysconf("SC_CLK_TCK")


def started_at(pid: int, recorded: float) -> bool:
    """True when process `pid` runs and started at `recorded` (a `start_time` value, within
    half its 10 ms resolution): the process a record or a user entry names, not a recycled pid.

    Raises psutil.NoSuchProcess when no process `pid` exists.
    """
    return abs(start_time(pid) - recorded) < 0.005


@dataclass(frozen=True)
class Record:
    """The one process we started for a service (written once it is ready).

    `start_time` is `start_time(pid)`: seconds after boot, not a wall-clock time.
    """

    pid: int
    start_time: float
    host: str
    port: int
    argv: list[str] = field(default_factory=list)
    log: str = ""

    def process(self) -> psutil.Process | None:
        """The live process this record names, or None (gone, recycled pid, or a zombie)."""
        try:
            if not started_at(self.pid, self.start_time):
                return None
            proc = psutil.Process(self.pid)
            if proc.status() == psutil.STATUS_ZOMBIE:
                return None
        except psutil.Error:
            return None
        return proc


def read_record(state_dir: Path) -> Record | None:
    """The record in `state_dir`, or None when there is none (or it is unreadable).

    A record written before `start_time` (it held psutil's wall-clock `create_time`) is read
    with that converted at today's boot time.
    """
    try:
        data = json.loads((Path(state_dir) / RECORD).read_text())
        if "create_time" in data and "start_time" not in data:
            created = data.pop("create_time")
            data["start_time"] = round(created - psutil.boot_time(), 2) if (
                _PROC_STAT.exists()) else created
        return Record(**data)
    except (OSError, ValueError, TypeError):
        return None


def running(state_dir: Path) -> Record | None:
    """The record of our live process in `state_dir`, or None."""
    record = read_record(state_dir)
    return record if record is not None and record.process() is not None else None


def port_is_free(host: str, port: int) -> bool:
    """True when a TCP listener could bind host:port right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As uvicorn does: sockets of a stopped server left in TIME_WAIT must not count as taken.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def exit_description(returncode: int | None) -> str:
    """`killed by signal SIGSEGV` / `exited with status 1` / `still running`. Pure."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


def log_tail(path: Path, chars: int = 2000) -> str:
    """The last `chars` characters of a log file ('' when there is none)."""
    with contextlib.suppress(OSError):
        return Path(path).read_text(errors="replace")[-chars:]
    return ""


def _lock(state_dir: Path) -> FileLock:
    state_dir.mkdir(parents=True, exist_ok=True)
    return FileLock(str(state_dir / "start.lock"))


def start(service: Service) -> tuple[Record, bool]:
    """Start `service` in the background, or reuse ours; return (record, started by this call).

    Raises:
        InfrastructureError: the port is taken by another program, or the process died (how,
            with its log tail), hung, or failed `confirm` before it was ready.
    """
    state_dir = Path(service.state_dir)
    with _lock(state_dir):
        record = running(state_dir)
        if record is not None:
            # Ours already: it may be busy (llama.cpp serializes every endpoint); wait for it.
            _wait_ready(service, record.pid, None, Path(record.log))
            return record, False
        if not port_is_free(service.host, service.port):
            raise InfrastructureError(
                service.name,
                f"port {service.port} on {service.host} is taken by another program; use "
                "another port",
                service.url,
            )
        (state_dir / RECORD).unlink(missing_ok=True)
        log_path = state_dir / LOG
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                list(service.argv), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
                env=dict(service.env) if service.env is not None else None,
            )
        try:
            started = start_time(proc.pid)
            _wait_ready(service, proc.pid, proc, log_path)
        except BaseException:
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            raise
        # Recorded only once ready: a half-started process is never "ours".
        record = Record(pid=proc.pid, start_time=started, host=service.host,
                        port=service.port, argv=list(service.argv), log=str(log_path))
        (state_dir / RECORD).write_text(json.dumps(asdict(record)))
        return record, True


def _wait_ready(service: Service, pid: int, proc: subprocess.Popen | None,
                log_path: Path) -> None:
    """Poll `ready`, then run `confirm`; raise InfrastructureError on death or hang."""

    def alive() -> bool:
        if proc is not None:
            return proc.poll() is None
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def died(when: str) -> InfrastructureError:
        how = "exited" if proc is None else exit_description(proc.wait())
        return InfrastructureError(
            service.name,
            f"process {pid} {how} {when}; log tail ({log_path}):\n{log_tail(log_path)}",
            service.url,
        )

    deadline = time.monotonic() + service.start_timeout_s
    while not service.ready():
        if not alive():
            raise died("at start")
        if time.monotonic() > deadline:
            raise InfrastructureError(
                service.name, f"not ready within {service.start_timeout_s:.0f} s; log: "
                f"{log_path}", service.url)
        time.sleep(0.25)
    if service.confirm is None:
        return
    try:
        service.confirm()
    except (OSError, ValueError, KeyError) as exc:
        time.sleep(0.5)  # let a crashing process finish dying before we look
        if not alive():
            raise died(f"on its {service.confirm_what}") from None
        raise InfrastructureError(
            service.name, f"ready, but its {service.confirm_what} failed ({exc!r}); log: "
            f"{log_path}", service.url) from None


def stop(state_dir: Path, wait_s: float = 10.0) -> bool:
    """Stop the process our record names (its whole process group); True if one was running.

    Never signals a process the record does not name (pid and start time must both match).
    """
    state_dir = Path(state_dir)
    record = read_record(state_dir)
    (state_dir / RECORD).unlink(missing_ok=True)
    proc = record.process() if record is not None else None
    if proc is None:
        return False
    with contextlib.suppress(OSError):
        os.killpg(record.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=wait_s)
    except psutil.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(record.pid, signal.SIGKILL)
        with contextlib.suppress(psutil.Error):
            proc.wait(timeout=wait_s)
    except psutil.Error:
        pass
    return True


# --- users: several callers sharing one service ------------------------------------------


def _me() -> str:
    return f"{os.getpid()}-{start_time(os.getpid()):.2f}"


def _user_alive(name: str) -> bool:
    """True when the user `<pid>-<start time>` is a live process (an entry written before
    start times, `<pid>-<wall-clock create time>`, never matches: it is forgotten)."""
    pid, _, started = name.partition("-")
    try:
        return started_at(int(pid), float(started))
    except (psutil.Error, ValueError):
        return False


def add_user(state_dir: Path) -> None:
    """Register this process as a user of the service in `state_dir`."""
    users = Path(state_dir) / "users"
    users.mkdir(parents=True, exist_ok=True)
    (users / _me()).touch()


def other_users(state_dir: Path) -> list[str]:
    """Live users of the service other than this process (dead ones are forgotten)."""
    users = Path(state_dir) / "users"
    live = []
    for entry in sorted(users.iterdir()) if users.is_dir() else []:
        if entry.name == _me():
            continue
        if _user_alive(entry.name):
            live.append(entry.name)
        else:
            entry.unlink(missing_ok=True)
    return live


def release(state_dir: Path, started_here: bool) -> bool:
    """Leave the service; stop it when this process started it and no other user is left.

    Returns True when it was stopped.
    """
    (Path(state_dir) / "users" / _me()).unlink(missing_ok=True)
    if started_here and not other_users(state_dir):
        return stop(state_dir)
    return False


# --- the test suite's "nothing left running" check ----------------------------------------


def session_processes(token: str, markers: Sequence[str]) -> list[psutil.Process]:
    """Live processes whose environment carries `SESSION_ENV=token` and whose command line
    contains one of `markers` (e.g. "smol_envs_core.server.serve _serve")."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or [])
            if not any(marker in cmdline for marker in markers):
                continue
            if proc.environ().get(SESSION_ENV) == token and proc.status() != "zombie":
                found.append(proc)
        except psutil.Error:
            continue
    return found
