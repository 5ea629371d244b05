"""The client of the scoring service: the one module that talks to it over HTTP.

An async client with connection reuse and bounded concurrency. It needs only httpx and
pydantic (the service's FastAPI, Playwright and Docker are never imported), validates each job
with the shared schema before sending it and parses each reply into the schema's models.

Every infrastructure failure (service down, HTTP 5xx, a job or test reported as infra_error)
raises `SandboxInfraError`, so that callers stop instead of scoring it as a model failure;
a malformed job raises `JobRejected` (also when the service answers 422). Candidate failures
(compile_error, runtime_error, timeout, ...) are plain statuses in the reply.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from smolscript_sandbox.errors import JobRejected, SandboxInfraError
from smolscript_sandbox.schema import (
    BrowserJob,
    BrowserReply,
    CompileResult,
    ProgramJob,
    ProgramReply,
    RunResult,
    StageTimes,
)

DEFAULT_URL = "http://127.0.0.1:8790"
URL_ENV = "SMOLSCRIPT_SANDBOX_URL"
RECHECK_S = 5.0  # a replica found down is health-checked again after this many seconds


def default_url() -> str:
    """The service URL(s): $SMOLSCRIPT_SANDBOX_URL (comma-separated for several replicas),
    else the address the service itself starts at: http://$SMOLSCRIPT_SANDBOX_HOST:
    $SMOLSCRIPT_SANDBOX_PORT (default http://127.0.0.1:8790)."""
    if os.environ.get(URL_ENV):
        return os.environ[URL_ENV].rstrip("/")
    host = os.environ.get("SMOLSCRIPT_SANDBOX_HOST", "127.0.0.1")
    port = os.environ.get("SMOLSCRIPT_SANDBOX_PORT", "")
    return f"http://{host}:{port}" if port else DEFAULT_URL


def split_urls(base_url: str | Sequence[str]) -> list[str]:
    """The replica URLs of `base_url` ("http://a:1,http://b:2" or a list), without trailing
    slashes and duplicates; raises ValueError when none is given."""
    parts = base_url.split(",") if isinstance(base_url, str) else list(base_url)
    urls = list(dict.fromkeys(p.strip().rstrip("/") for p in parts if p and p.strip()))
    if not urls:
        raise ValueError(f"no service URL in {base_url!r}")
    return urls


class _Replicas:
    """Process-wide view of every replica URL: jobs in flight and when it was found down.

    Shared by all clients of the process (the verifiers environment opens one client per
    rollout), so that least-busy-first holds across them.
    """

    def __init__(self) -> None:
        self.in_flight: dict[str, int] = {}
        self.down_since: dict[str, float] = {}

    def pick(self, urls: Sequence[str], exclude: set[str]) -> str | None:
        """The up replica (not in `exclude`) with the fewest jobs in flight, ties to the
        first in `urls`; None when none is up."""
        up = [u for u in urls if u not in exclude and u not in self.down_since]
        if not up:
            return None
        return min(up, key=lambda u: (self.in_flight.get(u, 0), urls.index(u)))

    def due_for_recheck(self, urls: Sequence[str], now: float) -> list[str]:
        """Down replicas whose last failure is at least RECHECK_S old."""
        return [u for u in urls if now - self.down_since.get(u, now) >= RECHECK_S]


REPLICAS = _Replicas()


def _validated(model: type[BaseModel], job: BaseModel | Mapping[str, Any]) -> BaseModel:
    if isinstance(job, model):
        return job
    try:
        return model.model_validate(dict(job))
    except ValidationError as exc:
        raise JobRejected(f"malformed {model.__name__}: {exc}") from exc


def _stopped_stages(stages: StageTimes | None, tests: Sequence[RunResult]) -> StageTimes | None:
    """The stage times of a job stopped early, as far as its events tell: the service's
    stages up to the compile, the run CPU of the tests heard (each test's exact
    `sandbox_cpu_s`; the test cancelled after them and the sweep are not counted)."""
    if stages is None:
        return None
    cpu = [t.sandbox_cpu_s for t in tests]
    return stages.model_copy(update={
        "run_s": round(sum(t.time_s for t in tests), 4),
        "run_cpu_s": None if None in cpu else round(sum(cpu), 4),
        "sandboxes": stages.sandboxes + len(tests)})


class _NoReply(Exception):
    """A replica gave no HTTP reply (refused, reset, timed out): the job may be retried."""

    def __init__(self, url: str, cause: httpx.HTTPError) -> None:
        super().__init__(f"{url}: {type(cause).__name__}: {cause}")
        self.url = url


class SandboxClient:
    """Async client of one service or of several replicas; `async with SandboxClient() as
    client:` or call `aclose()`.

    `base_url`: one URL, several comma-separated, or a list. With several, each job goes to
    the replica with the fewest jobs in flight that passed its health check (checked before
    the first job and, once a replica failed, again every RECHECK_S seconds); a job whose
    replica gives no reply (died, refused, timed out) is retried on another replica exactly
    once, so a lost replica costs no job, and a job is never run twice on purpose (an HTTP
    reply, even 5xx, is final). `max_concurrency` bounds the jobs this client has in flight
    over all replicas (each service queues the rest on its slots); `timeout_s` bounds one
    request, queueing included. `stats` counts jobs per replica and retries.
    """

    def __init__(
        self,
        base_url: str | Sequence[str] | None = None,
        *,
        max_concurrency: int = 16,
        timeout_s: float = 900.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        self.urls = split_urls(base_url or default_url())
        self.base_url = ",".join(self.urls)
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._checked = False
        self._check_lock = asyncio.Lock()
        self.stats: dict[str, Any] = {"jobs": dict.fromkeys(self.urls, 0), "retried": 0}
        self._http = {
            url: httpx.AsyncClient(
                base_url=url,
                timeout=httpx.Timeout(timeout_s, connect=10.0),
                limits=httpx.Limits(
                    max_connections=max_concurrency, max_keepalive_connections=max_concurrency
                ),
                transport=transport,
            )
            for url in self.urls
        }

    async def __aenter__(self) -> SandboxClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the pooled connections."""
        for http in self._http.values():
            await http.aclose()

    async def _probe(self, url: str) -> dict | None:
        """The replica's health record, or None (then it is marked down)."""
        try:
            reply = await self._http[url].get("/health", timeout=5.0)
            if reply.status_code == 200:
                REPLICAS.down_since.pop(url, None)
                return reply.json()
        except httpx.HTTPError:
            pass
        REPLICAS.down_since[url] = time.monotonic()
        return None

    async def _check_replicas(self) -> None:
        """Health-check every replica before the first job (several URLs only), then the
        down ones whose recheck is due."""
        if len(self.urls) == 1:
            return
        async with self._check_lock:
            now = time.monotonic()
            due = self.urls if not self._checked else REPLICAS.due_for_recheck(self.urls, now)
            if all(u in REPLICAS.down_since for u in self.urls):
                due = self.urls  # none up: look again now rather than fail on old news
            self._checked = True
            if due:
                await asyncio.gather(*(self._probe(url) for url in due))

    async def _send(self, url: str, method: str, path: str, payload: Any) -> httpx.Response:
        REPLICAS.in_flight[url] = REPLICAS.in_flight.get(url, 0) + 1
        try:
            return await self._http[url].request(method, path, json=payload)
        except httpx.HTTPError as exc:
            if len(self.urls) > 1:
                REPLICAS.down_since.setdefault(url, time.monotonic())
            raise _NoReply(url, exc) from exc
        finally:
            REPLICAS.in_flight[url] -= 1

    async def _request(self, method: str, path: str, payload: Any = None) -> Any:
        async with self._semaphore:
            await self._check_replicas()
            reply, failures = await self._attempts(method, path, payload)
        if reply is None:
            why = "; ".join(failures) or "no replica passed its health check"
            raise SandboxInfraError(
                f"unreachable: {why} (start it with `python -m smolscript_sandbox start`)",
                self.base_url,
            )
        if reply.status_code == 422:
            raise JobRejected(f"service rejected the job: {reply.text[:2000]}")
        if reply.status_code != 200:
            raise SandboxInfraError(f"HTTP {reply.status_code}: {reply.text[:2000]}",
                                    str(reply.request.url.copy_with(path="")))
        return reply.json()

    async def _attempts(self, method: str, path: str,
                        payload: Any) -> tuple[httpx.Response | None, list[str]]:
        """(the reply, or None after the first attempt and at most one retry on another
        replica gave none; why each attempt failed)."""
        tried: set[str] = set()
        failures: list[str] = []
        while len(tried) < 2:
            url = REPLICAS.pick(self.urls, tried) if len(self.urls) > 1 \
                else (self.urls[0] if not tried else None)
            if url is None:
                break
            tried.add(url)
            try:
                reply = await self._send(url, method, path, payload)
            except _NoReply as exc:
                failures.append(str(exc))
                continue
            self.stats["jobs"][url] += 1
            self.stats["retried"] += len(tried) - 1
            return reply, failures
        return None, failures

    def _parse(self, model: type[BaseModel], data: Any) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise SandboxInfraError(f"malformed {model.__name__} from the service: {exc}",
                                    self.base_url) from exc

    async def health(self) -> dict:
        """The service's health record (isolation mode, slots, runtimes, toolchains,
        fingerprint). With several replicas: the up ones' records under "replicas" (URL ->
        record, None when down), "slots"/"browser_slots"/"busy" summed, and "isolation",
        "version" and "fingerprint" of the replicas, which must agree (results record one
        scorer). Raises SandboxInfraError when none is up or they disagree."""
        if len(self.urls) == 1:
            return await self._request("GET", "/health")
        records = dict(zip(self.urls, await asyncio.gather(*map(self._probe, self.urls)),
                           strict=True))
        up = [r for r in records.values() if r is not None]
        if not up:
            raise SandboxInfraError("no replica answers /health", self.base_url)
        merged: dict[str, Any] = {"status": "ok", "replicas": records}
        for key in ("isolation", "version", "fingerprint"):
            values = sorted({str(r.get(key)) for r in up})
            if len(values) > 1:
                raise SandboxInfraError(f"replicas disagree on {key}: {values}", self.base_url)
            merged[key] = up[0].get(key)
        for key in ("slots", "browser_slots", "busy"):
            merged[key] = sum(int(r.get(key) or 0) for r in up)
        return merged

    async def run_program_job(self, job: ProgramJob | Mapping[str, Any]) -> ProgramReply:
        """Run a program job; raises SandboxInfraError when it, or a test, is infra_error."""
        job = _validated(ProgramJob, job)
        reply = self._parse(ProgramReply, await self._request(
            "POST", "/v1/program", job.model_dump()))
        detail = reply.infra_detail()
        if detail is not None:
            raise SandboxInfraError(f"infra_error ({job.runtime}): {detail}", self.base_url)
        return reply

    async def run_program_job_until(
        self, job: ProgramJob | Mapping[str, Any], keep_going: Callable[[int, RunResult], bool]
    ) -> tuple[ProgramReply, bool]:
        """Run a program job through `/v1/program/stream`, hearing each test as it ends, and
        stop it at the first test for which `keep_going(index, result)` is false (the
        service then cancels the job: the tests after it never run).

        Returns (reply, stopped): when not stopped, the service's full reply (the same as
        `run_program_job`'s); when stopped, a reply whose `tests` are the tests run up to and
        including the one that stopped it. Raises SandboxInfraError as `run_program_job`
        does (a dropped stream included; a streamed job is never retried on another
        replica); JobRejected for a malformed job.
        """
        job = _validated(ProgramJob, job)
        async with self._semaphore:
            await self._check_replicas()
            url = REPLICAS.pick(self.urls, set()) if len(self.urls) > 1 else self.urls[0]
            if url is None:
                raise SandboxInfraError("no replica passed its health check", self.base_url)
            REPLICAS.in_flight[url] = REPLICAS.in_flight.get(url, 0) + 1
            try:
                reply, stopped = await self._stream(url, job, keep_going)
            except httpx.HTTPError as exc:
                if len(self.urls) > 1:
                    REPLICAS.down_since.setdefault(url, time.monotonic())
                raise SandboxInfraError(f"stream broke: {type(exc).__name__}: {exc}",
                                        url) from exc
            finally:
                REPLICAS.in_flight[url] -= 1
            self.stats["jobs"][url] += 1
        detail = reply.infra_detail()
        if detail is not None:
            raise SandboxInfraError(f"infra_error ({job.runtime}): {detail}", self.base_url)
        return reply, stopped

    async def _stream(self, url: str, job: ProgramJob,
                      keep_going: Callable[[int, RunResult], bool]) -> tuple[ProgramReply, bool]:
        """Read one job's NDJSON events (see `run_program_job_until`)."""
        compiled: CompileResult | None = None
        stages: StageTimes | None = None
        toolchain: dict[str, str] = {}
        tests: list[RunResult] = []
        async with self._http[url].stream("POST", "/v1/program/stream",
                                          json=job.model_dump()) as response:
            if response.status_code == 422:
                raise JobRejected(f"service rejected the job: {(await response.aread())[:2000]!r}")
            if response.status_code != 200:
                raise SandboxInfraError(
                    f"HTTP {response.status_code}: {(await response.aread())[:2000]!r}", url)
            async for line in response.aiter_lines():
                if not line.strip():
                    continue
                event = self._event(json.loads(line), url)
                if "reply" in event:
                    return self._parse(ProgramReply, event["reply"]), False
                if "compile" in event:
                    compiled = self._parse(CompileResult, event["compile"])
                    toolchain = dict(event.get("toolchain") or {})
                    if event.get("stages") is not None:
                        stages = self._parse(StageTimes, event["stages"])
                elif "test" in event:
                    result = self._parse(RunResult, event["result"])
                    if int(event["test"]) != len(tests):
                        raise SandboxInfraError(f"stream out of order: test {event['test']} "
                                                f"after {len(tests)} tests", url)
                    tests.append(result)
                    if result.status != "infra_error" and not keep_going(len(tests) - 1,
                                                                         result):
                        # Leaving the stream unread closes the connection: the job is
                        # cancelled on the service.
                        return ProgramReply(status="ok", compile=compiled, tests=tests,
                                            toolchain=toolchain,
                                            stages=_stopped_stages(stages, tests)), True
        raise SandboxInfraError("the stream ended without the job's reply", url)

    @staticmethod
    def _event(event: Any, url: str) -> dict[str, Any]:
        if not isinstance(event, dict):
            raise SandboxInfraError(f"malformed stream event: {str(event)[:200]}", url)
        if "error" in event:
            raise SandboxInfraError(str(event["error"])[:2000], url)
        return event

    async def run_program(self, runtime: str, files: Mapping[str, str],
                          stdins: Sequence[str]) -> ProgramReply:
        """Convenience wrapper: build the job from its parts and run it."""
        return await self.run_program_job(
            ProgramJob(runtime=runtime, files=dict(files), tests=[{"stdin": s} for s in stdins]))

    async def run_browser_job(self, job: BrowserJob | Mapping[str, Any]) -> BrowserReply:
        """Run a browser job; raises SandboxInfraError on infra_error."""
        job = _validated(BrowserJob, job)
        reply = self._parse(BrowserReply, await self._request(
            "POST", "/v1/browser", job.model_dump()))
        if reply.status == "infra_error":
            raise SandboxInfraError(f"browser infra_error: {reply.errors}", self.base_url)
        return reply
