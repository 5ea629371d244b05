"""The scoring service's pieces: verdict taxonomy, bwrap command line, refusal to start without
isolation, the container path without an engine, compile errors per language, and the client's
infrastructure errors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import httpx
import pytest
from smolscript.client import SandboxClient, SandboxInfraError, SandboxJobError
from smolscript.languages import LANGUAGES
from smolscript_sandbox import isolation
from smolscript_sandbox.container import ContainerEngineUnavailable, start_container
from smolscript_sandbox.limits import RUN_LIMITS
from smolscript_sandbox.process import RawRun
from smolscript_sandbox.testing import TEST_URL, ensure_service
from smolscript_sandbox.toolchain import ToolchainMissing, build_program, check_binary
from smolscript_sandbox.verdict import STATUSES, classify


def raw(**kw) -> RawRun:
    base = dict(
        started=True,
        exit_code=0,
        stdout=b"",
        stderr=b"",
        stdout_overflow=False,
        stderr_truncated=False,
        wall_timeout=False,
        time_s=0.01,
    )
    return RawRun(**{**base, **kw})


VERDICTS = [
    # (raw facts, status, why)
    (raw(), "ok", "exit 0 within limits"),
    (raw(started=False, exit_code=1), "infra_error", "bwrap never spawned the child"),
    (raw(exit_code=1), "runtime_error", "non-zero exit"),
    (raw(exit_code=139), "runtime_error", "SIGSEGV"),
    (raw(exit_code=128 + 24, time_s=3.0), "timeout", "SIGXCPU at the soft CPU limit"),
    (raw(exit_code=137, time_s=4.0), "timeout", "SIGKILL at the hard CPU limit"),
    (raw(exit_code=137, wall_timeout=True), "timeout", "wall timer"),
    (raw(exit_code=137, stdout_overflow=True), "output_limit", "stdout over the kept head"),
    (raw(exit_code=128 + 25), "output_limit", "SIGXFSZ"),
    (raw(exit_code=1, stderr=b"OSError: [Errno 27] File too large"), "output_limit", "EFBIG"),
    (raw(exit_code=1, stderr=b"MemoryError\n"), "memory_limit", "Python"),
    (raw(exit_code=134, stderr=b"std::bad_alloc"), "memory_limit", "C++"),
    (raw(exit_code=134, stderr=b"memory allocation of 8 bytes failed"), "memory_limit", "Rust"),
    (raw(exit_code=0, stderr=b"MemoryError"), "ok", "stderr text alone is no failure"),
]


@pytest.mark.unit
@pytest.mark.parametrize(("facts", "status", "why"), VERDICTS, ids=[v[2] for v in VERDICTS])
def test_classify(facts, status, why):
    assert classify(facts, RUN_LIMITS) == status
    assert status in STATUSES


@pytest.mark.unit
def test_bwrap_command_line_drops_everything():
    argv = isolation.bwrap_argv(
        ["/usr/bin/true"], isolation.Path("/x/job"), RUN_LIMITS, writable_job=False, status_fd=5
    )
    joined = " ".join(argv)
    assert argv[0] == "prlimit" and "--cpu=3:4" in argv and "--nproc=64" in argv
    for flag in (
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--cap-drop ALL",
        "--ro-bind /usr /usr",
        "--ro-bind /x/job /job",
        "--json-status-fd 5",
        "--tmpfs /tmp",
        "--tmpfs /dev/shm",
    ):
        assert flag in joined, flag
    assert "--uid" not in argv  # the uid is dropped before bwrap, never mapped by it
    drop = isolation.drop_argv(isolation.Identity(61000, 61000))
    assert drop[:3] == ["setpriv", "--reuid=61000", "--regid=61000"] and "--clear-groups" in drop
    assert isolation.drop_argv(isolation.Identity(None, None)) == []
    assert "/root" not in joined and "/work" not in joined
    rw = isolation.bwrap_argv(
        ["/usr/bin/true"], isolation.Path("/x/job"), RUN_LIMITS, writable_job=True
    )
    assert "--bind /x/job /job" in " ".join(rw)


@pytest.mark.unit
def test_isolation_mode_refuses_non_root_outside_container(monkeypatch):
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(isolation, "in_container", lambda: False)
    with pytest.raises(isolation.IsolationUnavailable, match="refusing to start"):
        isolation.isolation_mode()
    monkeypatch.setattr(isolation, "in_container", lambda: True)
    assert isolation.isolation_mode() == "bwrap+container"


@pytest.mark.integration
def test_service_refuses_to_start_without_bwrap(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path), SMOLSCRIPT_SANDBOX_STATE=str(tmp_path / "s"))
    done = subprocess.run(
        [sys.executable, "-m", "smolscript_sandbox", "serve", "--port", "8799"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "bwrap not found" in done.stderr and "refusing to start" in done.stderr


@pytest.mark.unit
def test_container_path_reports_missing_engine(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(ContainerEngineUnavailable, match="no container engine reachable"):
        start_container("smolscript-sandbox:0.1.0", wait_s=1)


@pytest.mark.unit
def test_missing_toolchain_binary_is_reported():
    with pytest.raises(ToolchainMissing, match="/opt/nothing/rustc"):
        check_binary("/opt/nothing/rustc")
    with pytest.raises(ValueError, match="unknown program language"):
        build_program("cobol", "", None, None)


@pytest.mark.unit
async def test_client_raises_infra_error_when_service_is_down():
    with socket.socket() as probe:  # a port that nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with SandboxClient(f"http://127.0.0.1:{port}") as client:
        with pytest.raises(SandboxInfraError, match="unreachable"):
            await client.health()


@pytest.mark.unit
async def test_client_raises_infra_error_on_infra_reply():
    def reply(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/program":
            return httpx.Response(
                200,
                json={
                    "status": "ok",
                    "tests": [{"status": "ok"}, {"status": "infra_error", "stderr": "slot died"}],
                },
            )
        return httpx.Response(500, text="boom")

    async with SandboxClient("http://sandbox", transport=httpx.MockTransport(reply)) as client:
        with pytest.raises(SandboxInfraError, match="slot died"):
            await client.run_program("python", "print(1)", ["", ""])
        with pytest.raises(SandboxInfraError, match="HTTP 500"):
            await client.run_browser_job({"kind": "html"})


BROKEN = {
    "python": "def solve(n):\n    return (n\n",
    "javascript": "function solve(n) {\n  return n +;\n}\n",
    "cpp": "int solve(int n) {\n    return n +;\n}\n",
    "c": "int solve(int n) {\n    return n +;\n}\n",
    "lua": "local function solve(n)\n  return n +\nend\n",
    "csharp": "public static class Solution {\n"
    "    public static int Solve(int n) { return n +; }\n}\n",
    "rust": "fn solve(n: i32) -> i32 {\n    n +\n}\n",
}


@pytest.mark.integration
async def test_compile_errors_are_reported_per_language():
    ensure_service()
    signature = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
    async with SandboxClient(TEST_URL) as client:
        for language, source in BROKEN.items():
            result = await client.run_program(
                language,
                source,
                ["1\n"],
                entry_point=LANGUAGES[language].entry_point,
                signature=signature,
            )
            assert result["status"] == "compile_error", (language, result)
            assert result["compile"]["status"] == "compile_error"
            assert result["compile"]["stderr"], language
        with pytest.raises(SandboxJobError, match="unknown program language"):
            await client.run_program("cobol", "x", ["1\n"])
