"""The shared process manager on real processes: ready before recorded, reuse, a start lock
against two starters, a death by signal reported with its name and log tail, a recycled pid
never taken for ours, and the `status` exit convention (LSB: 0 running, 3 not running) shared by
`smol-envs-serve` and the scoring service."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import psutil
import pytest
from smol_envs_core import procman
from smol_envs_core.errors import InfrastructureError

from tests.support.ports import free_port

pytestmark = pytest.mark.integration


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1):
            return True
    except OSError:
        return False


def http_service(tmp_path: Path, **kw) -> procman.Service:
    port = free_port()
    return procman.Service(
        name="test server", host="127.0.0.1", port=port, url=f"http://127.0.0.1:{port}",
        state_dir=tmp_path / str(port),
        argv=[sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
              "--directory", str(tmp_path)],
        ready=lambda: answers(port), start_timeout_s=30, **kw)


def test_start_records_only_a_ready_process_reuses_it_and_stops_only_it(tmp_path):
    service = http_service(tmp_path)
    record, started = procman.start(service)
    try:
        assert started and answers(service.port)
        assert procman.running(service.state_dir) == record
        assert procman.start_time(record.pid) == record.start_time
        again, started_again = procman.start(service)
        assert again.pid == record.pid and not started_again
    finally:
        assert procman.stop(service.state_dir)
    assert not psutil.pid_exists(record.pid) or psutil.Process(record.pid).status() == "zombie"
    assert procman.running(service.state_dir) is None and not procman.stop(service.state_dir)


def test_two_starters_at_once_start_one_process(tmp_path):
    service = http_service(tmp_path)
    results: list[tuple[procman.Record, bool]] = []
    threads = [threading.Thread(target=lambda: results.append(procman.start(service)))
               for _ in range(2)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert sorted(started for _, started in results) == [False, True]
        assert len({record.pid for record, _ in results}) == 1
    finally:
        procman.stop(service.state_dir)


def test_a_death_by_signal_is_reported_with_its_name_and_log_tail(tmp_path):
    port = free_port()
    service = procman.Service(
        name="test server", host="127.0.0.1", port=port, url=f"http://127.0.0.1:{port}",
        state_dir=tmp_path / "s",
        argv=[sys.executable, "-c", "import os, signal; print('about to crash', flush=True); "
              "os.kill(os.getpid(), signal.SIGSEGV)"],
        ready=lambda: False, start_timeout_s=30)
    with pytest.raises(InfrastructureError, match="killed by signal SIGSEGV at start") as info:
        procman.start(service)
    assert "about to crash" in str(info.value.reason)  # the log tail
    assert procman.read_record(service.state_dir) is None  # never recorded as ours


def test_a_failed_first_request_is_not_ready(tmp_path):
    def refuse():
        raise OSError("first completion refused")

    service = http_service(tmp_path, confirm=refuse)
    with pytest.raises(InfrastructureError, match="first request failed"):
        procman.start(service)
    assert procman.read_record(service.state_dir) is None
    assert not answers(service.port)  # the half-started process was killed


def test_a_recycled_pid_is_never_taken_for_ours(tmp_path):
    me = psutil.Process()
    fake = procman.Record(pid=os.getpid(), start_time=procman.start_time(me.pid) - 100.0,
                          host="127.0.0.1", port=1)
    (tmp_path / procman.RECORD).write_text(json.dumps(dataclasses.asdict(fake)))
    assert procman.running(tmp_path) is None
    assert procman.stop(tmp_path) is False  # and this test process is still alive


def test_a_stepped_system_clock_changes_no_process_identity(tmp_path, monkeypatch):
    """psutil's wall-clock create time moves with /proc/stat's btime when the clock is stepped
    (a paused virtual machine resumed): CI once lost four services that way (their records
    dropped as recycled pids, the processes left running). Here btime moves by 1 s after the
    start: the service is still ours, its users still live, and `stop` still stops it."""
    import psutil._pslinux as pslinux

    service = http_service(tmp_path)
    record, _ = procman.start(service)
    user = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from smol_envs_core import procman; "
        f"procman.add_user({str(service.state_dir)!r}); print('in', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert user.stdout.readline() == "in\n"
        booted = pslinux.boot_time()
        monkeypatch.setattr(pslinux, "boot_time", lambda: booted + 1.0)
        wall_clock = psutil.Process(record.pid).create_time()  # the step, as psutil sees it
        assert wall_clock - (booted + procman.start_time(record.pid)) == pytest.approx(1.0)
        assert procman.running(service.state_dir) == record
        assert [name.split("-")[0] for name in procman.other_users(service.state_dir)] == [
            str(user.pid)]
        assert procman.stop(service.state_dir) and not answers(service.port)
    finally:
        user.kill()
        user.wait()
        procman.stop(service.state_dir)


def test_a_record_written_with_a_wall_clock_create_time_is_still_read(tmp_path):
    """Records written before start times held psutil's `create_time` (a running server
    started by an older version must still be found, and stopped, by this one)."""
    me = psutil.Process()
    (tmp_path / procman.RECORD).write_text(json.dumps({
        "pid": me.pid, "create_time": me.create_time(), "host": "127.0.0.1", "port": 1}))
    assert procman.read_record(tmp_path).start_time == procman.start_time(me.pid)
    assert procman.running(tmp_path) is not None


def test_serve_status_exits_3_when_stopped(tmp_path):
    env = dict(os.environ, SMOL_ENVS_STATE_DIR=str(tmp_path))
    port = free_port()
    done = subprocess.run([sys.executable, "-m", "smol_envs_core.server.serve", "status", "--port",
                           str(port)], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    assert done.returncode == 3
    assert done.stdout.strip() == f"stopped (no server of ours on port {port})"


def test_both_status_commands_share_one_exit_convention(tmp_path):
    """`smol-envs-serve status` and `python -m smolscript_sandbox status` on a port where
    nothing runs: both exit 3 (LSB "program is not running"), the value procman names."""
    env = dict(os.environ, SMOL_ENVS_STATE_DIR=str(tmp_path))
    port = str(free_port())
    codes = {}
    for module in ("smol_envs_core.server.serve", "smolscript_sandbox"):
        done = subprocess.run([sys.executable, "-m", module, "status", "--port", port],
                              capture_output=True, text=True, env=env, timeout=60, check=False)
        codes[module] = done.returncode
    assert codes == {"smol_envs_core.server.serve": 3, "smolscript_sandbox": 3}
    assert procman.STATUS_NOT_RUNNING == 3 and procman.STATUS_RUNNING == 0


def test_serve_reads_its_port_from_smol_envs_model_port(tmp_path):
    port = free_port()
    env = dict(os.environ, SMOL_ENVS_STATE_DIR=str(tmp_path), SMOL_ENVS_MODEL_PORT=str(port))
    done = subprocess.run([sys.executable, "-m", "smol_envs_core.server.serve", "status"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 3 and done.stdout.strip().endswith(f"on port {port})")
    env["SMOL_ENVS_MODEL_PORT"] = "eighty"
    done = subprocess.run([sys.executable, "-m", "smol_envs_core.server.serve", "status"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode != 0 and "SMOL_ENVS_MODEL_PORT must be a port number" in done.stderr
