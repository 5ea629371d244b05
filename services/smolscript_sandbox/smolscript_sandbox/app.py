"""The FastAPI application: health, program jobs and browser jobs over HTTP.

`create_app(config)` checks isolation before serving (no unisolated fallback): a private state
root, the seccomp filter, per-slot cgroups where the host has them, a real sandbox and the
answer-key self-probe; then it builds the slot pools, registers the service as a child
subreaper and warms the browsers in the background. Requests pass the service's bounds
(`bounds.py`): body cap, cancel on disconnect, bounded queues, 422s that echo nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI, HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse

from smolscript_sandbox import __version__, isolation, prebuilt
from smolscript_sandbox.accounting import setup_meters
from smolscript_sandbox.bounds import (
    Admission,
    BoundedRequests,
    QueueFull,
    safe_text,
    validation_error,
)
from smolscript_sandbox.browser import BrowserPool, make_browser_slots
from smolscript_sandbox.cgroups import SlotLimits, container_cgroups, setup_slot_cgroups
from smolscript_sandbox.config import DEFAULT_SLOT_PIDS, ServiceConfig
from smolscript_sandbox.errors import JobRejected
from smolscript_sandbox.guard import answer_key_probe
from smolscript_sandbox.hostinfo import host_fingerprint, toolchain_versions
from smolscript_sandbox.isolation import in_container, isolation_mode, probe
from smolscript_sandbox.launcher import build as build_launcher
from smolscript_sandbox.limits import RUN_LIMITS
from smolscript_sandbox.programs import run_program_job
from smolscript_sandbox.reaper import REAPER, use_pidfd_watcher
from smolscript_sandbox.runtimes import RUNTIMES, build_program, precompile_specs
from smolscript_sandbox.schema import BrowserJob, BrowserReply, ProgramJob, ProgramReply
from smolscript_sandbox.seccomp_filter import write_filter
from smolscript_sandbox.slots import Slot, SlotPool, lease_uids, make_slots, sweep
from smolscript_sandbox.statedir import describe, secure_dir, secure_state_root, unmount


class Service:
    """Live state of one running service: config, isolation mode, pools, health facts."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.mode = isolation_mode()  # raises SandboxInfraError: refuse to start
        root = prepare_private_state(config)
        self.state = describe(root)
        uids = browser_uids = None
        browser_count = config.browser_slots if config.browsers else 0
        if self.mode == "bwrap+uid":
            uids = lease_uids(config.slots, config.uid_base, root / "uid-leases")
            browser_uids = lease_uids(browser_count, config.browser_uid_base, root / "uid-leases")
            secure_dir(config.jobs_dir.parent, 0o711)  # slot uids traverse it to /job
        self.cgroups, self.memory = setup_slot_cgroups(
            f"smolscript-{config.port}",
            config.slots,
            SlotLimits(config.slot_memory_bytes, DEFAULT_SLOT_PIDS, config.slot_cpus),
        )
        if self.cgroups is None and in_container():
            self.cgroups, self.memory = container_cgroups(config.slots, self.memory["cause"])
        if not self.memory["per_job"]:  # said in /health too; here so that the log shows it
            print(f"smolscript-sandbox: {self.memory['reason']}", file=sys.stderr, flush=True)
        meters = setup_meters(f"smolscript-{config.port}", config.slots)
        self.slots = make_slots(config.slots, config.jobs_dir, self.mode, uids, self.cgroups,
                                meters)
        # Precompiled headers, built fresh by the service into a folder of its own beside the
        # slots (0755, files 0444) and bound read-only into compile sandboxes (prebuilt.py).
        prebuilt.configure(prebuilt.build_all(config.jobs_dir / "prebuilt", precompile_specs()))
        for error in prebuilt.current().errors:
            print(f"smolscript-sandbox: precompiled header left out: {error}", file=sys.stderr,
                  flush=True)
        self_probe(config.jobs_dir / "probe", self.slots[0].identity)
        self.sandbox_start_cpu_s = startup_cpu(config.jobs_dir / "probe", self.slots[0])
        self.pool = SlotPool(self.slots)
        self.browsers = BrowserPool(
            make_browser_slots(browser_count, config.state_dir, self.mode, browser_uids)
        )
        self.admission = {
            "program": Admission(len(self.slots), config.queue_limit),
            "browser": Admission(max(1, browser_count), config.queue_limit),
        }
        self.versions: dict = {}
        self.fingerprint = ""
        self.started = time.monotonic()  # uptime must not move when the wall clock is stepped
        self.jobs = {"program": 0, "browser": 0}

    async def start(self) -> None:
        """Subreaper, child watcher, health facts, browsers (browser failures are reported,
        not fatal)."""
        REAPER.become_subreaper()
        use_pidfd_watcher(asyncio.get_running_loop())
        self._reaper_task = asyncio.create_task(self._reap_forever())
        self.versions = await asyncio.to_thread(toolchain_versions)
        self.fingerprint = host_fingerprint(self.versions)
        if self.config.browsers:
            await self.browsers.start()
        else:
            self.browsers.error = "browsers disabled (SMOLSCRIPT_SANDBOX_BROWSERS=0)"

    async def stop(self) -> None:
        """Close the browsers, kill what the slots still run, unmount job folders, remove
        the slot cgroups and the precompiled headers."""
        await self.browsers.stop()
        for slot in self.slots:
            await asyncio.to_thread(sweep, slot)
            if slot.cgroup is not None:
                slot.cgroup.remove()
            if slot.meter is not None:
                slot.meter.remove()
            unmount(slot.job_dir)
        prebuilt.remove(prebuilt.current())

    async def _reap_forever(self, every_s: float = 1.0) -> None:
        """Reap orphans re-parented to us between jobs (bwrap's monitor can exit after its
        parent)."""
        while True:
            await asyncio.sleep(every_s)
            REAPER.reap_orphans()

    def health(self) -> dict:
        """The health record (see the /health endpoint)."""
        return {
            "status": "ok",
            "service": "smolscript-sandbox",
            "version": __version__,
            "isolation": self.mode,
            "sandbox": {
                "root": "read-only",
                "seccomp": isolation.hardening().seccomp_bpf is not None,
                "nested_userns": "disabled",
                "job_folder": "tmpfs" if self.slots[0].tmpfs else "directory",
            },
            "memory": dict(self.memory),
            "bounds": {
                "max_body_bytes": self.config.max_body_bytes,
                "queue_limit": self.config.queue_limit,
                "job_time_s": self.config.job_time_s,
                "idle_timeout_s": self.config.idle_timeout_s,
                "refused_queue_full": {k: a.refused for k, a in self.admission.items()},
            },
            "state": dict(self.state),
            "subreaper": REAPER.subreaper,
            "slots": len(self.slots),
            "slot_uids": [slot.identity.uid for slot in self.slots],
            "busy": self.pool.busy,
            "browser_slots": len(self.browsers.slots),
            "browser": {
                "version": self.browsers.version,
                "binary": self.browsers.binary,
                "error": self.browsers.error,
                "restarts": sum(slot.restarts for slot in self.browsers.slots),
            },
            "runtimes": {name: {"main_file": r.main_file, "compiled": r.compile_argv is not None}
                         for name, r in sorted(RUNTIMES.items())},
            "prebuilt": prebuilt.current().health(),
            "toolchains": self.versions,
            "fingerprint": self.fingerprint,
            "jobs": dict(self.jobs),
            "uptime_s": round(time.monotonic() - self.started, 1),
            "cpu_s": {
                **cpu_seconds(),
                "browsers": browser_cpu_seconds(
                    {slot.identity.uid for slot in self.browsers.slots} - {None}
                ),
                # every process that ever ran in a program slot (compiles, tests, sandbox
                # start-ups, jobs cancelled half-way): the slots' cpuacct counts; None
                # without CPU meters
                "slots": (round(sum(slot.meter.read() for slot in self.slots), 3)
                          if all(slot.meter is not None for slot in self.slots) else None),
            },
            # CPU seconds of starting one empty sandbox (launcher, uid drop, rlimits, bwrap's
            # namespaces and mounts, seccomp: `/usr/bin/true` inside), measured at start-up on
            # the slot's cpuacct cgroup (median of 5); None without a CPU meter.
            "sandbox_start_cpu_s": self.sandbox_start_cpu_s,
            "pid": os.getpid(),
            "state_dir": str(self.config.state_dir),
            "jobs_dir": str(self.config.jobs_dir),
        }


class _JobStream(StreamingResponse):
    """A streamed job's response: however the response ends (a client that closed the
    connection, the middleware's cancel), its lines' generator is closed, which cancels the
    job (Starlette leaves an interrupted body iterator suspended, its job running on)."""

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.body_iterator.aclose()


_RUNNING: set[asyncio.Task] = set()  # cancelled streamed jobs still sweeping their slot


async def stream_program_job(service: Service, job: ProgramJob) -> AsyncIterator[str]:
    """The NDJSON lines of one streamed program job (see `/v1/program/stream`); the job runs
    in a task that is cancelled when the stream is closed early."""
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    async def on_event(event: dict) -> None:
        await lines.put(json.dumps({key: value.model_dump() if hasattr(value, "model_dump")
                                    else value for key, value in event.items()}) + "\n")

    async def run() -> None:
        try:
            with service.admission["program"].admit():
                reply = await run_program_job(service.pool, job, service.config.job_time_s,
                                              on_event=on_event)
            await lines.put(json.dumps({"reply": reply.model_dump()}) + "\n")
        except QueueFull as exc:
            await lines.put(json.dumps({"error": f"HTTP 503: {exc}"}) + "\n")
        finally:
            await lines.put(None)

    task = asyncio.ensure_future(run())
    try:
        while (line := await lines.get()) is not None:
            yield line
    finally:
        # Cancel the job once, and never again: this generator may be cancelled repeatedly
        # while it waits (anyio's cancel scopes), and a second cancel reaching the job would
        # cut its slot's sweep short. The shield keeps it out; `_RUNNING` keeps the task
        # referenced until its sweep is done.
        if not task.done():
            task.cancel()
            _RUNNING.add(task)
            task.add_done_callback(_RUNNING.discard)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)


def prepare_private_state(config: ServiceConfig) -> Path:
    """Check (or create) the private state root and the service's folder in it, compile the
    seccomp filter and the launcher there and switch them on for every sandbox; returns the
    root.

    Raises SandboxInfraError for a foreign or loose state root, without libseccomp or gcc.
    """
    root = secure_state_root(config.state_dir.parent)
    secure_dir(config.state_dir, 0o700)
    bpf = write_filter(config.state_dir / "seccomp.bpf")
    launcher = build_launcher(config.state_dir / "launcher")
    isolation.configure(isolation.Hardening(seccomp_bpf=str(bpf), launcher=str(launcher)))
    return root


def self_probe(probe_dir: Path, identity: isolation.Identity) -> None:
    """A real sandbox must start, and find no answer key; raises SandboxInfraError."""
    probe_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(probe_dir, 0o755)
    probe(identity, probe_dir, RUN_LIMITS)
    answer_key_probe(probe_dir, identity)


def startup_cpu(probe_dir: Path, slot: Slot, runs: int = 5) -> float | None:
    """Median CPU seconds of one empty sandbox on `slot` (its cpuacct meter around `runs`
    start-up probes); None when the slot has no meter. Raises SandboxInfraError as `probe`."""
    if slot.meter is None:
        return None
    used = []
    for _ in range(runs):
        before = slot.meter.read()
        probe(slot.identity, probe_dir, RUN_LIMITS)
        used.append(slot.meter.read() - before)
    return round(statistics.median(used), 5)


def cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system) used so far by the service itself and by its reaped
    children (compilers, sandboxed programs and their bwrap wrappers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "service": round(own.ru_utime + own.ru_stime, 3),
        "children": round(kids.ru_utime + kids.ru_stime, 3),
    }


def browser_cpu_seconds(uids: set[int]) -> float:
    """CPU seconds of the live browser processes of these uids, including what they reaped
    (fields utime, stime, cutime, cstime of /proc/<pid>/stat); 0 without per-slot uids."""
    if not uids:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    with os.scandir("/proc") as entries:
        for entry in entries:
            try:
                if not entry.name.isdigit() or entry.stat().st_uid not in uids:
                    continue
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(f) for f in fields[11:15])
    return round(total / ticks, 3)


def create_app(config: ServiceConfig | None = None) -> FastAPI:
    """Build the app; isolation is checked here, before anything is served.

    Raises SandboxInfraError when bwrap (or the right privileges) is missing.
    """
    service = Service(config or ServiceConfig.from_env())

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        yield
        await service.stop()

    app = FastAPI(title="smolscript sandbox", version=__version__, lifespan=lifespan)
    app.state.service = service
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_middleware(
        BoundedRequests,
        max_body=service.config.max_body_bytes,
        idle_s=service.config.idle_timeout_s,
        # browser jobs end within their supervisor deadline
        cancellable=("/v1/program", "/v1/program/stream"),
    )

    @app.get("/health")
    async def health() -> dict:
        """Toolchain versions, slot count, isolation mode, host fingerprint."""
        return service.health()

    @app.post("/v1/program", response_model=ProgramReply)
    async def program(job: ProgramJob) -> ProgramReply:
        """Run a program job: compile its main file once, then run it once per test."""
        service.jobs["program"] += 1
        try:
            with service.admission["program"].admit():
                return await run_program_job(service.pool, job, service.config.job_time_s)
        except QueueFull as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from exc
        except JobRejected as exc:  # unknown runtime, no main file: the caller's mistake
            raise HTTPException(status_code=422, detail=safe_text(str(exc))) from exc

    @app.post("/v1/program/stream")
    async def program_stream(job: ProgramJob) -> StreamingResponse:
        """Run a program job, sending each event as it happens (NDJSON, one object a line):
        `{"compile": ..., "toolchain": ...}` once compiled, `{"test": i, "result": ...}` as
        each test ends, then `{"reply": ...}` (what /v1/program answers). A client that has
        seen enough closes the connection: the job is cancelled (its processes are killed,
        its slot freed), so a caller that stops at a failing test saves the others' run."""
        service.jobs["program"] += 1
        admission = service.admission["program"]
        if admission.inflight >= admission.limit:
            admission.refused += 1
            raise HTTPException(status_code=503, detail="queue full; retry later")
        try:
            build_program(job)  # a malformed job is a 422 before the stream starts
        except JobRejected as exc:
            raise HTTPException(status_code=422, detail=safe_text(str(exc))) from exc
        except Exception:  # noqa: BLE001 - a missing toolchain: the job's reply says so
            pass
        return _JobStream(stream_program_job(service, job), media_type="application/x-ndjson")

    @app.post("/v1/browser", response_model=BrowserReply)
    async def browser(job: BrowserJob) -> BrowserReply:
        """Run a browser job in a warm browser."""
        from smolscript_sandbox.executor import validate_job

        service.jobs["browser"] += 1
        payload = job.model_dump()
        try:
            validate_job(payload)
            with service.admission["browser"].admit():
                return BrowserReply.model_validate(await service.browsers.run(payload))
        except QueueFull as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from exc
        except JobRejected as exc:
            raise HTTPException(status_code=422, detail=safe_text(str(exc))) from exc

    return app
