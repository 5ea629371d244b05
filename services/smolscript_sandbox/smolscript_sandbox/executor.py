"""Probe executor: run one browser job in a fresh Playwright context and return observations.

The browser pool (`browser.py`) calls `run_browser_job` with a warm `playwright` Browser; it adds
the per-scenario wall limit and the supervisor. This module owns what happens inside one job:

- html: document scripts disabled; the candidate markup is loaded as the page.
- css: scripts disabled; the trusted fixture is loaded, then the candidate stylesheet is
  inserted synchronously as a `<style>` element (its text set through the DOM, never spliced
  into markup).
- dom: scripts enabled; the fixture is loaded, the candidate script is syntax-checked with
  `new Function` and, only if it parses, run as a `<script>` followed by `setup(document)`.

Every network request is aborted for all kinds. Probes are evaluated in a CDP isolated world:
they share the DOM with the page but not its JavaScript globals, so a candidate script cannot
fake an observation by patching `querySelector` or `getComputedStyle`. Each operation has a
3 s timeout that grows by the host's CPU stall time while it runs, up to 30 s (`stall.py`:
load never cuts a page short); a candidate-phase timeout keeps the completed observations and
stops, a failure of trusted setup is reported as `infra_error`. `progress["phase"]` says how
far a job got (setup, candidate, teardown), for the supervisor. Expected values never reach
this module.
"""

from __future__ import annotations

import json
import os
import time
from functools import cache
from importlib import resources
from typing import Any

from .errors import JobRejected, SandboxInfraError
from .stall import bounded
from .syntax import check_css_syntax, check_html_syntax

OP_TIMEOUT_S = 3.0
# Each step's bound grows by the host's CPU stall time while it runs (`stall.py`), up to this
# many times its base: under load a correct page is not cut short (issue 43, item 4), and a
# page that hangs still ends.
LOAD_STRETCH = 10.0
KINDS = ("html", "css", "dom")
OBSERVE_OPS = {"count", "attr", "has_attr", "classes", "text", "own_text", "tags", "visible",
               "style", "rect", "prop"}
ACTION_OPS = {"click", "input", "key"}
_WORLD = "smolscript-probes"
_INSERT_STYLE = """(css) => { const s = document.createElement("style");
  s.setAttribute("data-candidate", ""); s.textContent = css;
  (document.head || document.documentElement).appendChild(s); return true; }"""
_JS_SYNTAX = """(src) => { try { new Function(src); return null; }
  catch (e) { return String(e && e.message || e); } }"""
_RUN_SCRIPT = """(src) => { const s = document.createElement("script");
  s.textContent = src + "\\n;setup(document);\\n"; document.body.appendChild(s); return true; }"""
# Launch flags for Debian's Chromium on machines without a network (see python.md notes).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
# Preferred first: Chromium's headless shell (Debian's chromium-headless-shell; Playwright uses
# the same build for headless runs). It has the full browser's Blink, so observations are the
# same (checked on all 148 browser checks of the default edition), and it spends about a
# quarter of the full browser's CPU per fresh context and page (0.08 vs 0.34 CPU-s per job,
# benchmarks/bench_smolscript_browser.py). The full browser is the fallback.
CHROMIUM_PATHS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/lib/chromium/chromium",
                  "/usr/bin/chromium")


def find_chromium() -> str | None:
    """The first executable of CHROMIUM_PATHS (the headless shell first), or None."""
    return next((p for p in CHROMIUM_PATHS if os.access(p, os.X_OK)), None)


@cache
def _observe_source() -> str:
    """observe.js with shown.js (the `rendered` visibility test) inlined at `__SHOWN__`."""
    files = resources.files(__package__)
    shown = files.joinpath("shown.js").read_text(encoding="utf-8").strip()
    return files.joinpath("observe.js").read_text(encoding="utf-8").replace("__SHOWN__", shown)


def validate_job(job: dict) -> None:
    """Raise JobRejected unless `job` is a well-formed browser job (see CONTRACT.md)."""
    if job.get("kind") not in KINDS:
        raise JobRejected(f"unknown job kind {job.get('kind')!r}; valid: {KINDS}")
    if not isinstance(job.get("source"), str):
        raise JobRejected("job source must be a string")
    if job["kind"] != "html" and not isinstance(job.get("fixture"), str):
        raise JobRejected(f"{job['kind']} jobs need a fixture page")
    viewports = job.get("viewports") or [{"width": 800, "height": 600}]
    for probe in job.get("probes", []):
        if probe.get("op") not in OBSERVE_OPS | ACTION_OPS:
            raise JobRejected(f"unknown probe op {probe.get('op')!r} in {probe.get('id')!r}")
        if "id" not in probe or "selector" not in probe:
            raise JobRejected(f"probe without id or selector: {probe}")
        if not 0 <= int(probe.get("viewport", 0)) < len(viewports):
            raise JobRejected(f"probe {probe['id']} names a missing viewport")
        if probe["op"] in ACTION_OPS and job["kind"] != "dom":
            raise JobRejected("actions are only allowed in dom jobs")


class _Page:
    """One page plus a CDP session evaluating trusted functions in an isolated world."""

    def __init__(self, page: Any, cdp: Any, op_timeout_s: float):
        self.page, self.cdp, self.op_timeout_s = page, cdp, op_timeout_s

    async def step(self, aw: Any) -> Any:
        """Await one browser step under the load-aware bound of `op_timeout_s`."""
        return await _step(aw, self.op_timeout_s)
        self.context_id: int | None = None

    async def bind_world(self) -> None:
        """Create the page's isolated world for probes and keep its execution context id."""
        tree = await self._send("Page.getFrameTree", {})
        world = await self._send("Page.createIsolatedWorld", {
            "frameId": tree["frameTree"]["frame"]["id"], "worldName": _WORLD,
            "grantUniveralAccess": False})
        self.context_id = world["executionContextId"]

    async def call(self, function: str, arg: Any) -> Any:
        """Call `function(arg)` in the isolated world; return its JSON value or raise."""
        reply = await self._send("Runtime.evaluate", {
            "expression": f"({function})({json.dumps(arg)})", "contextId": self.context_id,
            "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description")
                               or details.get("text"))
        return reply["result"].get("value")

    async def _send(self, method: str, params: dict) -> Any:
        return await self.step(self.cdp.send(method, params))


def _batches(probes: list[dict], kind: str) -> list[list[dict]]:
    """Group probes into evaluate calls: observations of one viewport together, in dom jobs
    every action and every observation alone (a stuck handler then loses only its own probe)."""
    batches: list[list[dict]] = []
    for probe in probes:
        same_view = batches and batches[-1][0].get("viewport", 0) == probe.get("viewport", 0)
        if kind != "dom" and same_view:
            batches[-1].append(probe)
        else:
            batches.append([probe])
    return batches


async def _step(aw: Any, op_timeout_s: float) -> Any:
    """`aw` bounded by `op_timeout_s` plus the host's CPU stall meanwhile (`stall.bounded`)."""
    return await bounded(aw, op_timeout_s, op_timeout_s * LOAD_STRETCH)


async def run_browser_job(browser: Any, job: dict, op_timeout_s: float = OP_TIMEOUT_S,
                          progress: dict | None = None) -> dict:
    """Run one browser job in a fresh context of `browser`; return the observations.

    `job`: {"kind", "source", "fixture", "viewports", "probes", "timeout_s"} (CONTRACT.md).
    Returns {"status": "ok"|"timeout"|"infra_error", "syntax_ok", "syntax_errors",
    "observations": {probe_id: {"ok", "value"|"error"}}, "errors", "timings"}.
    Raises JobRejected for a malformed job. Trusted setup failures give status "infra_error".
    `progress`, when given, holds the phase the job is in ("setup", "candidate", "teardown").
    """
    validate_job(job)
    progress = {} if progress is None else progress
    progress["phase"] = "setup"
    kind, source = job["kind"], job["source"]
    viewports = job.get("viewports") or [{"width": 800, "height": 600}]
    result: dict[str, Any] = {"status": "ok", "syntax_ok": True, "syntax_errors": [],
                              "observations": {}, "errors": [], "timings": {}}
    started = time.perf_counter()
    if kind == "html":
        result["syntax_errors"] = check_html_syntax(source)
    elif kind == "css":
        result["syntax_errors"] = check_css_syntax(source)
    context = None
    try:
        try:
            if not browser.is_connected():
                raise SandboxInfraError("browser is not connected")
            context = await _step(browser.new_context(
                java_script_enabled=kind == "dom", viewport=viewports[0],
                service_workers="block", accept_downloads=False), op_timeout_s)
            page = await _open_page(context, op_timeout_s)
            page_errors: list[str] = []
            page.page.on("pageerror", lambda exc: page_errors.append(str(exc)))
            if kind != "html":
                await page.step(page.page.set_content(
                    job["fixture"], timeout=op_timeout_s * LOAD_STRETCH * 1000))
                await page.bind_world()
        except Exception as exc:  # noqa: BLE001 - every setup failure is infrastructure
            result.update(status="infra_error", syntax_ok=False)
            result["errors"].append(f"setup failed: {type(exc).__name__}: {exc}")
            return result
        result["timings"]["setup_s"] = round(time.perf_counter() - started, 4)
        progress["phase"] = "candidate"
        await _candidate_phase(page, job, viewports, result, page_errors)
        progress["phase"] = "teardown"
        result["errors"].extend(f"page error: {e}" for e in page_errors[:10])
    finally:
        result["syntax_ok"] = not result["syntax_errors"] and result["status"] != "infra_error"
        if context is not None:
            try:
                await _step(context.close(), op_timeout_s)
            except Exception as exc:  # noqa: BLE001
                result["errors"].append(f"context close failed: {exc!r}")
                result["needs_restart"] = True
        result["timings"]["total_s"] = round(time.perf_counter() - started, 4)
    return result


async def _open_page(context: Any, op_timeout_s: float) -> _Page:
    """Abort every request of `context`, open its page and a CDP session on it."""
    # Playwright's own timeouts sit at the ceiling: the load-aware bound decides.
    context.set_default_timeout(op_timeout_s * LOAD_STRETCH * 1000)
    await _step(context.route("**/*", lambda route: route.abort()), op_timeout_s)
    page = await _step(context.new_page(), op_timeout_s)
    cdp = await _step(context.new_cdp_session(page), op_timeout_s)
    return _Page(page, cdp, op_timeout_s)


async def _candidate_phase(page: _Page, job: dict, viewports: list[dict], result: dict,
                           page_errors: list[str]) -> None:
    """Load/insert/run the candidate, then evaluate the probes; record timeouts and errors."""
    kind, source = job["kind"], job["source"]
    timings, started = result["timings"], time.perf_counter()
    try:
        if kind == "html":
            await page.step(page.page.set_content(
                source, timeout=page.op_timeout_s * LOAD_STRETCH * 1000))
            await page.bind_world()
        elif kind == "css":
            await page.call(_INSERT_STYLE, source)
        else:
            message = await page.call(_JS_SYNTAX, source)
            if message is not None:
                result["syntax_errors"].append(message)
                return  # a script that does not parse cannot run: probes stay unreached
            await page.call(_RUN_SCRIPT, source)
        timings["candidate_s"] = round(time.perf_counter() - started, 4)
        current_view = 0
        for batch in _batches(job.get("probes", []), kind):
            view = int(batch[0].get("viewport", 0))
            if view != current_view:
                await page.step(page.page.set_viewport_size(viewports[view]))
                current_view = view
            values = await page.call(_observe_source(), batch)
            for probe, value in zip(batch, values, strict=True):
                result["observations"][probe["id"]] = value
    except Exception as exc:  # noqa: BLE001 - decided below: timeout, candidate fault, dead browser
        browser = page.page.context.browser
        if browser is None or not browser.is_connected():
            result["status"] = "infra_error"
            result["errors"].append(f"browser lost: {type(exc).__name__}: {exc}")
        elif _is_timeout(exc):
            result["status"] = "timeout"
            result["errors"].append("candidate phase timed out; unfinished probes fail")
        else:
            result["errors"].append(f"candidate phase error: {type(exc).__name__}: {exc}")
    finally:
        timings["probes_s"] = round(time.perf_counter() - started, 4)


def _is_timeout(exc: BaseException) -> bool:
    """asyncio's and Playwright's own TimeoutError (the latter is not a builtin subclass)."""
    return isinstance(exc, TimeoutError) or type(exc).__name__ == "TimeoutError"


async def launch_chromium(playwright: Any, executable_path: str | None = None) -> Any:
    """Launch Debian's Chromium (the headless shell when installed) through Playwright, never
    a downloaded browser; `executable_path` overrides the choice.

    Raises SandboxInfraError when no Chromium binary is installed.
    """
    path = executable_path or find_chromium()
    if path is None:
        raise SandboxInfraError(f"Chromium not found at {CHROMIUM_PATHS}; "
                                "apt-get install chromium-headless-shell")
    return await playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS,
                                            headless=True, timeout=20_000)
