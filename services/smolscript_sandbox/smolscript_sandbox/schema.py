"""The one job and reply schema of the scoring service, shared by the service and its client.

Pydantic models, importable without the service's own dependencies (FastAPI, Playwright,
Docker): the service validates what it receives and answers with these models; the client
validates what it sends and parses what it gets back into them.

A program job is a set of complete files plus tests: the service knows languages only as
runtimes (`smolscript_sandbox.runtimes`: which file to compile, the compile and run commands,
the limits). Whoever sends a job (smolscript's scoring) renders any harness into the files.
A browser job is a candidate source, a trusted fixture page and the probes to observe.
Expected values never reach the service: it reports what ran and what was observed.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

MAX_SOURCE = 256 * 1024  # characters of one candidate source (browser jobs)
MAX_FILE = 320 * 1024  # characters of one job file (a candidate source plus its harness)
MAX_FILES = 8
MAX_TESTS = 512
MAX_STDIN = 256 * 1024
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")

RUN_STATUSES = ("ok", "compile_error", "runtime_error", "timeout", "memory_limit",
                "output_limit", "infra_error")
RunStatus = Literal["ok", "compile_error", "runtime_error", "timeout", "memory_limit",
                    "output_limit", "infra_error"]


def utf8_text(text: str | None) -> str | None:
    """Refuse text that has no UTF-8 form (a lone surrogate, which JSON can carry; pydantic
    refuses it in plain string fields, not in the values of `files`). Raises ValueError."""
    if text is not None:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text holds a lone surrogate (not valid Unicode)") from None
    return text


class JobTest(BaseModel):
    """One test of a program job: the text given to the program on stdin."""

    stdin: str = Field("", max_length=MAX_STDIN)


class ProgramJob(BaseModel):
    """Compile (when the runtime has a compile step) then run once per test, in one slot.

    `files` maps plain file names to their complete text; it must hold the runtime's main file.
    """

    runtime: str
    files: dict[str, str]
    tests: list[JobTest] = Field(max_length=MAX_TESTS)

    @field_validator("files")
    @classmethod
    def _plain_files(cls, files: dict[str, str]) -> dict[str, str]:
        if not 1 <= len(files) <= MAX_FILES:
            raise ValueError(f"a job has 1 to {MAX_FILES} files, got {len(files)}")
        for name, text in files.items():
            if not FILE_NAME.fullmatch(name) or name in (".", ".."):
                raise ValueError(f"bad file name {name!r} (letters, digits, '_', '.', '-')")
            if len(text) > MAX_FILE:
                raise ValueError(f"file {name} has {len(text)} characters (at most {MAX_FILE})")
            utf8_text(text)
        return files


class CompileResult(BaseModel):
    """The compile step: `ok`, `compile_error` (`reason`: the step's own status, e.g.
    `timeout`) or `infra_error`; `stderr` holds the compiler's output (warnings included, also
    when it compiled); `truncated` when that output went over the kept head."""

    status: Literal["ok", "compile_error", "infra_error"]
    stderr: str = ""
    time_s: float = 0.0
    reason: str | None = None
    truncated: bool = False


class RunResult(BaseModel):
    """One test run. `stdout` is the program's output (invalid UTF-8 replaced, one final
    newline stripped, nothing else changed: CR and CRLF stay); `truncated` when stdout or
    stderr went over the kept head. `time_s` is elapsed seconds; `cpu_s` the CPU seconds of
    all its processes that the CPU limit judged (the slot's cpuacct count, read while it ran
    and once at its end; without one, last sampled while it ran: 0 when it ended before the
    first sample, 0.1 s in);
    `sandbox_cpu_s` the exact CPU seconds of the whole run, sandbox start-up included (the
    slot's cpuacct cgroup; None where the host has none)."""

    status: RunStatus
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    time_s: float = 0.0
    cpu_s: float = 0.0
    truncated: bool = False
    sandbox_cpu_s: float | None = None


class StageTimes(BaseModel):
    """Where one program job's time went, in seconds (optional in replies: absent from older
    services). `*_s` are elapsed times; `*_cpu_s` are CPU times: `compile_cpu_s` and
    `run_cpu_s` are the exact CPU of every process the compile / the test runs started,
    sandbox start-up included (the slot's cpuacct cgroup; None where the host has none),
    `setup_cpu_s` / `cleanup_cpu_s` the service thread's own CPU preparing and sweeping the
    slot. `sandboxes` counts the sandboxed processes started (compile + test runs)."""

    slot_wait_s: float = 0.0
    setup_s: float = 0.0
    setup_cpu_s: float = 0.0
    compile_s: float = 0.0
    compile_cpu_s: float | None = None
    run_s: float = 0.0
    run_cpu_s: float | None = None
    cleanup_s: float = 0.0
    cleanup_cpu_s: float = 0.0
    sandboxes: int = 0


class ProgramReply(BaseModel):
    """The reply to a program job. `status` is `ok` (compiled; every test carries its own
    status), `compile_error` (no tests ran) or `infra_error` (`error` says why). `toolchain`
    maps each binary the runtime used to its version line (`gcc (Debian 12.2.0-14) 12.2.0`)."""

    status: Literal["ok", "compile_error", "infra_error"]
    compile: CompileResult | None = None
    tests: list[RunResult] = Field(default_factory=list)
    error: str | None = None
    toolchain: dict[str, str] = Field(default_factory=dict)
    stages: StageTimes | None = None

    def infra_detail(self) -> str | None:
        """Why the job, or one of its tests, is an `infra_error`; None when none is."""
        failed = next((t for t in self.tests if t.status == "infra_error"), None)
        if self.status != "infra_error" and failed is None:
            return None
        return self.error or (failed.stderr if failed is not None else "unknown")


class BrowserJob(BaseModel):
    """A browser job: `kind` html (the source is the page), css (the source is inserted into
    the fixture as a stylesheet) or dom (the source is a script run on the fixture, then
    `setup(document)`); `probes` say what to observe, in order, per viewport."""

    kind: Literal["html", "css", "dom"]
    source: str = Field(max_length=MAX_SOURCE)
    fixture: str | None = Field(None, max_length=MAX_SOURCE)
    viewports: list[dict[str, int]] = Field(
        default_factory=lambda: [{"width": 800, "height": 600}])
    probes: list[dict[str, Any]] = Field(max_length=MAX_TESTS)
    timeout_s: float = Field(3.0, gt=0, le=60)


class BrowserReply(BaseModel):
    """The reply to a browser job: `observations` maps probe id to `{"ok": true, "value": ...}`
    or `{"ok": false, "error": ...}` (a missing id: the probe was not reached); `status` is
    `ok`, `timeout` (the candidate overran; observations made before it are kept) or
    `infra_error`."""

    status: Literal["ok", "timeout", "infra_error"]
    syntax_ok: bool = False
    syntax_errors: list[str] = Field(default_factory=list)
    observations: dict[str, Any] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
