"""The scoring service's pieces: verdict taxonomy, bwrap command line, refusal to start without
isolation, the container path without an engine, the runtime table, compile errors per
language, the shared schema, and the client's infrastructure errors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import httpx
import pytest
from smol_envs_core.errors import InfrastructureError
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES, render_job_files
from smolscript_sandbox import isolation
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.container import start_container
from smolscript_sandbox.errors import JobRejected, SandboxInfraError
from smolscript_sandbox.limits import RUN_LIMITS
from smolscript_sandbox.process import RawRun
from smolscript_sandbox.runtimes import RUNTIMES, build_program, check_binary, expand_argv
from smolscript_sandbox.schema import ProgramJob, ProgramReply
from smolscript_sandbox.testing import TEST_URL, ensure_service
from smolscript_sandbox.verdict import STATUSES, classify, normalize_stdout


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
    (raw(started=False, exit_code=1), "infra_error", "bwrap failed before the job's exec"),
    (raw(exit_code=1), "runtime_error", "non-zero exit"),
    (raw(exit_code=139), "runtime_error", "SIGSEGV"),
    (raw(exit_code=128 + 24, time_s=3.0), "timeout", "SIGXCPU at the soft CPU limit"),
    (raw(exit_code=137, time_s=6.0), "timeout", "SIGKILL at the hard CPU rlimit (backstop)"),
    (raw(exit_code=137, time_s=4.0), "runtime_error", "SIGKILL below the backstop: no timeout"),
    (raw(exit_code=137, cpu_timeout=True, time_s=9.0), "timeout", "watchdog: exact CPU limit"),
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
    assert argv[0] == "bwrap"
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
    isolation.configure(isolation.Hardening(launcher="/state/launcher-x"))
    try:
        launch = isolation.launch_argv(
            isolation.Identity(61000, 61000, ("/cg/slot0/cgroup.procs",)), RUN_LIMITS
        )
        plain = isolation.launch_argv(isolation.Identity(None, None), RUN_LIMITS, cpu_rlimit=False)
    finally:
        isolation.configure(isolation.Hardening())
    pairs = " ".join(launch)
    assert launch[0] == "/state/launcher-x" and launch[-1] == "--"
    for pair in ("--cgroup /cg/slot0/cgroup.procs", "--uid 61000 --gid 61000",
                 "--rlimit cpu=5:6", "--rlimit nproc=64:64", "--rlimit core=0:0"):
        assert pair in pairs, pair
    assert "--uid" not in plain and not any(a.startswith("cpu=") for a in plain)
    assert "/root" not in joined and "/work" not in joined
    rw = isolation.bwrap_argv(
        ["/usr/bin/true"], isolation.Path("/x/job"), RUN_LIMITS, writable_job=True
    )
    assert "--bind /x/job /job" in " ".join(rw)


@pytest.mark.unit
@pytest.mark.parametrize("shared", [False, True], ids=["slot-uid", "shared-uid"])
def test_the_mark_runs_last_before_the_job(monkeypatch, shared):
    """With a mark descriptor the launcher, copied in read-only, runs in mark mode right
    before the job's argv (after the container's prlimit, whose failure is bwrap's setup's)."""
    monkeypatch.setattr(isolation, "shared_uid", lambda: shared)
    isolation.configure(isolation.Hardening(launcher="/state/launcher-x"))
    try:
        argv = isolation.bwrap_argv(["/usr/bin/python3", "main.py"], isolation.Path("/x/job"),
                                    RUN_LIMITS, writable_job=False, status_fd=5, exec_mark_fd=6)
    finally:
        isolation.configure(isolation.Hardening())
    job = argv[argv.index("--") + 1:]
    assert job[-6:] == [isolation.MARK_EXEC, "--mark", "6", "--", "/usr/bin/python3", "main.py"]
    assert job[:-6] == (["/usr/bin/prlimit", "--nproc=64", "--"] if shared else [])
    assert (f"--perms 0555 --ro-bind-data @open:/state/launcher-x {isolation.MARK_EXEC}"
            in " ".join(argv))
    assert isolation.MARK_EXEC not in isolation.bwrap_argv(
        ["/usr/bin/true"], isolation.Path("/x/job"), RUN_LIMITS, writable_job=False)


@pytest.mark.unit
def test_isolation_mode_refuses_non_root_outside_container(monkeypatch):
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(isolation, "in_container", lambda: False)
    with pytest.raises(SandboxInfraError, match="refusing to start"):
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


@pytest.mark.integration  # connects to a (missing) engine socket
def test_container_path_reports_missing_engine(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(SandboxInfraError, match="no container engine reachable"):
        start_container("smolscript-sandbox:0.1.0", wait_s=1)


@pytest.mark.unit
def test_missing_toolchain_binary_is_reported():
    with pytest.raises(SandboxInfraError, match="/opt/nothing/rustc"):
        check_binary("/opt/nothing/rustc")
    with pytest.raises(JobRejected, match="unknown runtime"):
        build_program(ProgramJob(runtime="cobol", files={"main.cob": ""}, tests=[]))
    with pytest.raises(JobRejected, match="main file 'main.py'"):
        build_program(ProgramJob(runtime="python", files={"other.py": ""}, tests=[]))
    assert issubclass(SandboxInfraError, InfrastructureError)  # the failure policy's class


@pytest.mark.unit
def test_runtimes_use_sandbox_paths_and_match_the_language_table():
    """The service knows languages only as runtimes; smolscript's job file is the runtime's
    main file, and commands only name binaries visible inside the sandbox."""
    assert sorted(RUNTIMES) == sorted(PROGRAM_LANGUAGES)
    for name, runtime in RUNTIMES.items():
        assert LANGUAGES[name].source_name == runtime.main_file
        for argv in (runtime.compile_argv or (), runtime.run_argv):
            assert argv and (argv[0].startswith(("/usr/bin/", "/opt/")) or argv[0] == "{dir}/main")
            assert "/root" not in " ".join(argv)
        assert "{dir}" in " ".join(runtime.run_argv)
        assert expand_argv(runtime.run_argv, "/job")[-1].startswith("/job/")
    assert RUNTIMES["rust"].compile_argv[0] == "/opt/rust/bin/rustc"


@pytest.mark.unit
def test_schema_rejects_unsafe_file_names_and_normalizes_stdout():
    for bad in ("../x.py", "a/b.py", "", ".."):
        with pytest.raises(ValueError, match="file name"):
            ProgramJob(runtime="python", files={bad: ""}, tests=[])
    with pytest.raises(ValueError, match="1 to 8 files"):
        ProgramJob(runtime="python", files={}, tests=[])
    reply = ProgramReply.model_validate({"status": "ok", "tests": [
        {"status": "ok"}, {"status": "infra_error", "stderr": "slot died"}]})
    assert reply.infra_detail() == "slot died"
    assert normalize_stdout(b"1 2\r\n") == "1 2\r"  # CR stays: the host compares exactly
    assert normalize_stdout(b"1 2\n") == "1 2"
    assert normalize_stdout("x\n\n") == "x\n"
    assert normalize_stdout(b"\xff") == "\ufffd"


@pytest.mark.integration  # a fresh interpreter
def test_client_imports_without_the_service_dependencies():
    code = ("import sys, smolscript_sandbox.client, smolscript_sandbox.schema; "
            "heavy = {'fastapi', 'uvicorn', 'playwright', 'docker', 'html5lib', 'smolscript'}; "
            "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.integration  # a real connection attempt
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
            await client.run_program("python", {"main.py": "print(1)"}, ["", ""])
        with pytest.raises(SandboxInfraError, match="HTTP 500"):
            await client.run_browser_job({"kind": "html", "source": "", "probes": []})
        with pytest.raises(JobRejected, match="BrowserJob"):  # checked before it is sent
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
            files = render_job_files(language, source, signature)
            result = await client.run_program(language, files, ["1\n"])
            assert result.status == "compile_error", (language, result)
            assert result.compile.status == "compile_error"
            assert result.compile.stderr, language
        with pytest.raises(JobRejected, match="unknown runtime"):
            await client.run_program("cobol", {"main.cob": "x"}, ["1\n"])
        with pytest.raises(JobRejected, match="main file"):
            await client.run_program("python", {"x.py": "print(1)"}, ["1\n"])
