"""Browser jobs: one warm Chromium per browser slot, a fresh context per job, a supervisor.

Chromium runs inside bubblewrap as the browser slot's own uid (no network namespace, read-only
system, private /tmp) through a per-slot wrapper script given to Playwright as
`executable_path`; Debian's Chromium is used and nothing is ever downloaded. The probe executor
(`executor.run_browser_job`) creates the context, runs the scenario and keeps
completed observations on a candidate timeout. The supervisor here bounds the whole job; when
the executor overruns, or the browser dies, it kills the browser and starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smolscript_sandbox.executor import CHROMIUM_PATHS, LOAD_STRETCH, find_chromium
from smolscript_sandbox.isolation import Identity, sandbox_argv
from smolscript_sandbox.limits import GIB, MIB, Limits
from smolscript_sandbox.reaper import kill_uid
from smolscript_sandbox.stall import bounded

log = logging.getLogger(__name__)

LAUNCH_TIMEOUT_S = 20.0
CLOSE_TIMEOUT_S = 5.0
# Extra seconds the supervisor allows above the scenario wall limit for trusted setup/teardown.
SUPERVISOR_GRACE_S = 10.0
# Trusted setup (context, page, fixture) may time out on an overloaded host: retry it on a
# fresh browser; the candidate has not run yet, so a retry cannot change its verdict.
SETUP_ATTEMPTS = 3

BROWSER_LIMITS = Limits(
    cpu_s=100_000,  # a long-lived browser: CPU is bounded per job by the wall limit instead
    wall_s=0.0,
    address_space=1 << 44,  # Chromium reserves terabytes of virtual space; memory is not capped
    nproc=512,
    fsize=64 * MIB,
    nofile=4096,
    tmpfs_bytes=GIB // 2,
    stdout_bytes=0,
    stderr_bytes=0,
)


def scenario_wall_s(timeout_s: float) -> float:
    """The per-scenario wall limit: max(6, 3 x the task's timeout) seconds."""
    return max(6.0, 3.0 * float(timeout_s))


def write_wrapper(path: Path, identity: Identity, pidfile: Path, binary: str) -> None:
    """Write the executable that Playwright launches: the launcher (cgroups, uid drop,
    rlimits), bwrap, Chromium.

    The wrapper records its pid (bwrap's, after exec) so the supervisor can kill the browser;
    bwrap's --die-with-parent then takes every Chromium process with it.
    """
    # Chromium needs no job folder (it runs from /tmp) and no CPU-seconds limit.
    argv = sandbox_argv(identity, [binary, "--no-sandbox"], None, BROWSER_LIMITS,
                        cpu_rlimit=False, writable_job=False)
    command = " ".join(shlex.quote(part) for part in argv)
    path.write_text(f'#!/bin/sh\necho $$ > {shlex.quote(str(pidfile))}\nexec {command} "$@"\n')
    os.chmod(path, 0o755)


@dataclass
class BrowserSlot:
    """One warm browser: its identity, wrapper, and the live Playwright Browser (or None)."""

    index: int
    identity: Identity
    root: Path
    browser: Any = None
    restarts: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def pidfile(self) -> Path:
        """The file holding the slot's browser process id."""
        return self.root / "browser.pid"

    @property
    def wrapper(self) -> Path:
        """The slot's launch script for Chromium."""
        return self.root / "chromium.sh"


class BrowserPool:
    """Warm browsers, one per slot; `run(job)` executes a browser job on a free one."""

    def __init__(self, slots: list[BrowserSlot]) -> None:
        self.slots = slots
        self._free: asyncio.Queue[BrowserSlot] = asyncio.Queue()
        for slot in slots:
            self._free.put_nowait(slot)
        self._playwright = None
        self.version: str | None = None
        self.binary: str | None = None
        self.error: str | None = None

    async def start(self) -> None:
        """Start Playwright and launch every slot's browser; records an error instead of raising."""
        from playwright.async_api import async_playwright

        try:
            self.binary = find_chromium()
            if self.binary is None:
                raise FileNotFoundError(f"Chromium not found at {CHROMIUM_PATHS} "
                                        "(apt install chromium-headless-shell)")
            if not self.binary.endswith("headless-shell"):
                log.warning("Chromium's headless shell is not installed: using %s, about 4x the "
                            "CPU per browser job (apt install chromium-headless-shell)",
                            self.binary)
            self._playwright = await async_playwright().start()
            for slot in self.slots:
                slot.root.mkdir(parents=True, exist_ok=True)
                write_wrapper(slot.wrapper, slot.identity, slot.pidfile, self.binary)
                await self._launch(slot)
            self.version = self.slots[0].browser.version if self.slots else None
            self.error = None
        except Exception as exc:  # noqa: BLE001 - reported by health and as infra_error
            self.error = f"browser start failed: {type(exc).__name__}: {exc}"
            log.error(self.error)

    async def _launch(self, slot: BrowserSlot) -> None:
        from smolscript_sandbox.executor import CHROMIUM_ARGS

        slot.browser = await self._playwright.chromium.launch(
            executable_path=str(slot.wrapper),
            args=[a for a in CHROMIUM_ARGS if a not in ("--headless", "--no-sandbox")],
            headless=True,
            timeout=LAUNCH_TIMEOUT_S * 1000,
        )

    def _kill(self, slot: BrowserSlot) -> None:
        """Kill the slot's browser process tree without asking Playwright."""
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(slot.pidfile.read_text().strip()), signal.SIGKILL)
        if slot.identity.uid is not None:
            kill_uid(slot.identity.uid)

    async def restart(self, slot: BrowserSlot) -> None:
        """Kill and relaunch the slot's browser (the supervisor's remedy for a stuck one)."""
        old, slot.browser = slot.browser, None
        self._kill(slot)
        if old is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(old.close(), CLOSE_TIMEOUT_S)
        slot.restarts += 1
        await self._launch(slot)

    async def stop(self) -> None:
        """Close every browser and Playwright (bounded; kills what does not close)."""
        for slot in self.slots:
            if slot.browser is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(slot.browser.close(), CLOSE_TIMEOUT_S)
            self._kill(slot)
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._playwright.stop(), CLOSE_TIMEOUT_S)

    async def run(self, job: dict) -> dict:
        """Run one browser job through the web part's executor under the supervisor.

        Returns the executor's reply; an executor exception or an unavailable browser is an
        infra_error; overrunning the supervisor deadline kills and restarts the browser and
        returns a candidate timeout with no observations.
        """
        from smolscript_sandbox.executor import run_browser_job

        if self.error is not None:
            return infra_reply(self.error)
        slot = await self._free.get()
        try:
            if slot.browser is None or not slot.browser.is_connected():
                try:
                    await self.restart(slot)
                except Exception as exc:  # noqa: BLE001
                    return infra_reply(f"browser relaunch failed: {exc}")
            for attempt in range(1, SETUP_ATTEMPTS + 1):
                result = await self._supervised(slot, job, run_browser_job)
                if result.get("needs_restart"):  # the executor could not close its context
                    await self._restart_quietly(slot)
                if not _setup_failed(result) or attempt == SETUP_ATTEMPTS:
                    return result
                # Trusted setup failed before any candidate code ran: safe to retry afresh.
                log.warning(
                    "browser slot %d setup failed (%s); retrying", slot.index, result.get("errors")
                )
                await self._restart_quietly(slot)
            return result
        finally:
            self._free.put_nowait(slot)

    async def _supervised(self, slot: BrowserSlot, job: dict, executor: Any) -> dict:
        """One executor run under the supervisor deadline; overrun kills the browser.

        The deadline grows by the host's CPU stall time like each step's (`stall.bounded`).
        An overrun before the candidate ran (trusted setup) is infrastructure, retried by
        `run` like any setup failure; only an overrun in the candidate phase is its timeout.
        """
        deadline = scenario_wall_s(job.get("timeout_s", 2)) + SUPERVISOR_GRACE_S
        progress: dict = {}
        try:
            return await bounded(executor(slot.browser, job, progress=progress), deadline,
                                 deadline * LOAD_STRETCH)
        except TimeoutError:
            await self._restart_quietly(slot)
            phase = progress.get("phase", "setup")
            message = f"supervisor: job exceeded {deadline:.0f} s in {phase}; browser restarted"
            if phase == "setup":
                return infra_reply(f"setup failed: {message}")
            if phase == "teardown":
                return infra_reply(message)
            return {"status": "timeout", "syntax_ok": False, "observations": {},
                    "errors": [message]}
        except Exception as exc:  # noqa: BLE001 - a failure of trusted code
            await self._restart_quietly(slot)
            return infra_reply(f"browser executor failed: {type(exc).__name__}: {exc}")

    async def _restart_quietly(self, slot: BrowserSlot) -> None:
        try:
            await self.restart(slot)
        except Exception as exc:  # noqa: BLE001 - next job retries the launch
            log.error("browser slot %d relaunch failed: %s", slot.index, exc)


def _setup_failed(result: dict) -> bool:
    """True for the executor's infra_error of trusted setup (before the candidate ran)."""
    return result.get("status") == "infra_error" and any(
        str(e).startswith("setup failed") for e in result.get("errors") or []
    )


def infra_reply(message: str) -> dict:
    """A browser-job reply for an infrastructure failure."""
    return {"status": "infra_error", "syntax_ok": False, "observations": {}, "errors": [message]}


def make_browser_slots(
    count: int, state_dir: Path, mode: str, uids: list[int] | None
) -> list[BrowserSlot]:
    """`count` browser slots under state_dir/browser; their own (leased) uids in bwrap+uid
    mode, the service's identity otherwise."""
    slots = []
    for i in range(count):
        uid = uids[i] if mode == "bwrap+uid" and uids else None
        root = state_dir / "browser" / f"slot{i}"
        slots.append(BrowserSlot(index=i, identity=Identity(uid, uid), root=root))
    return slots
