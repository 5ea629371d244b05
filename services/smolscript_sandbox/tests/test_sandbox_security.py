"""Security of the scoring service against a hostile job author (issue 18: one test per hole).

Each test attacks the real service through its own HTTP API, the way a candidate program (or a
hostile client) would, and checks that the hole is closed: per-job memory and CPU, answer keys
out of reach, socket families, nested namespaces and dangerous syscalls, the service's own
bounds (body, disconnects, queue, job time, idle connections, stream caps, 422s, state folder)
and what a job can read about the host.

The suite runs against the service at $SMOLSCRIPT_SANDBOX_svc.url (started here when none
answers), so it can run against the host service or the container image alike. Checks that
need the host's side of the service (planting a decoy answer key, the service's memory) run
only when the service is a process on this machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest
from smolscript_sandbox import control
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import config_for

from tests.support.ports import free_port
from tests.support.sandbox_targets import REPLY_TIMEOUT_S, Target, own_host_target

# exclusive: its tests time the service's own bounds (a CPU hog beside a job, the CPU cost of a
# stderr flood, idle and job bounds), and under the other xdist worker's load the one-slot
# container answered nothing for over 360 s once in four two-worker CI rehearsals
# (2026-12-05: the flood test and the next one each hit the 180 s reply timeout; alone, the
# same sequence takes 0.1 s): the suite runs after the two workers, alone.
pytestmark = [pytest.mark.integration, pytest.mark.exclusive]

GIB = 1 << 30
MIB = 1 << 20
# What a job may see of the host's /etc and /opt (the toolchains' own files, nothing else).
ETC_ALLOWED = {"alternatives", "fonts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "mono",
               "localtime"}
ANSWER_KEY_NAMES = ("hidden.jsonl", "solutions.jsonl", "smolscript.jsonl", "private_tests",
                    "smolscript_builder")


@pytest.fixture(scope="module")
def host_target() -> Target:
    """This module's own host service (one per xdist worker), in place of the shared one at
    TEST_URL: its tests fill every slot and the queue (503 for anyone else meanwhile) and
    time the next job, which the other worker's jobs on a shared service would break."""
    yield from own_host_target(browsers=True)


@pytest.fixture(scope="module", params=["host", "container"])
def svc(request) -> Target:
    """The service under test: this module's own host service, then the image in a one-slot
    container, the production layout."""
    return request.getfixturevalue(
        "host_target" if request.param == "host" else "container_slot_target"
    )


@pytest.fixture(scope="module")
def health(svc: Target) -> dict:
    """The health record of the service under test."""
    return svc.health


def local_pid(svc: Target) -> int | None:
    """The service's pid when it is a process on this machine (not a container), else None."""
    pid = svc.health.get("pid")
    if svc.name != "host" or not pid:
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return pid if b"smolscript_sandbox" in fh.read() else None
    except OSError:
        return None


async def run_python(url: str, source: str, stdins: list[str] | None = None) -> dict:
    """Run `source` as a complete Python program, once per stdin, at `url`; the reply as JSON."""
    async with SandboxClient(url, timeout_s=REPLY_TIMEOUT_S) as client:
        reply = await client.run_program("python", {"main.py": source}, stdins or ["\n"])
    return reply.model_dump()


def only_test(reply: dict) -> dict:
    assert reply["status"] == "ok", reply
    return reply["tests"][0]


# ---------------------------------------------------------------------------------------------
# 1. Memory per job: read-only root, and one limit over every process and tmpfs of a job.


async def test_sandbox_root_and_dev_are_read_only(health, svc):
    source = (
        "import os\n"
        "wrote = []\n"
        "for path in ('/big', '/usr/big', '/dev/big', '/job/big'):\n"
        "    try:\n"
        "        with open(path, 'wb') as fh:\n"
        "            fh.write(b'x' * (8 << 20))\n"
        "        wrote.append(path)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(wrote)\n"
    )
    test = only_test(await run_python(svc.url, source))
    assert test["status"] == "ok", test
    assert test["stdout"] == "[]", test


async def test_memory_limit_covers_every_process_and_memfd_of_a_job(health, svc):
    """Three processes hold memory in anonymous pages and a memfd (not counted by RLIMIT_AS):
    together they must not get past the slot's memory limit."""
    limit = health.get("memory", {}).get("slot_limit_bytes") or 2 * GIB
    # Three holders of a third of the limit each, plus 600 MB of memfd pages: 1.3 x the limit.
    share = limit // 3
    source = (
        "import os, time\n"
        f"SHARE = {share}\n"
        "def hold_memfds(count=40, block=b'm' * (15 << 20)):\n"
        "    fds = []\n"  # memfd pages count against no address-space limit
        "    for _ in range(count):\n"
        "        fd = os.memfd_create('hold')\n"
        "        os.write(fd, block)\n"
        "        fds.append(fd)\n"
        "    return fds\n"
        "def hold_anon():\n"
        "    return b'a' * SHARE\n"  # written, so resident
        "r, w = os.pipe()\n"  # children say 'held' on w
        "release_r, release_w = os.pipe()\n"  # they keep holding until it closes
        "kids = []\n"
        "for k in range(2):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.close(release_w)\n"
        "        keep = hold_anon()\n"
        "        os.write(w, b'k')\n"
        "        os.read(release_r, 1)\n"
        "        os._exit(0)\n"
        "    kids.append(pid)\n"
        "os.close(w)\n"
        "keep = hold_anon(), hold_memfds()\n"
        "got = b''\n"
        "while len(got) < 2:\n"
        "    chunk = os.read(r, 2)\n"
        "    if not chunk:\n"
        "        break\n"
        "    got += chunk\n"
        "os.close(release_w)\n"  # the parent holds its share; the children still theirs
        "alive = all(os.waitpid(pid, 0)[1] == 0 for pid in kids)\n"  # none killed meanwhile
        "print('held', len(got) if alive else 0, flush=True)\n"
        "os._exit(0 if alive and len(got) == 2 else 3)\n"  # a holder was killed: fail loudly
    )
    test = only_test(await run_python(svc.url, source))
    assert "held 2" not in test["stdout"], test
    # timeout: a holder waited for one the OOM killer took (or, on a loaded host, the 4 s
    # wall limit came first); either way the three never held their memory at once.
    assert test["status"] in ("memory_limit", "timeout"), test
    assert health["memory"]["per_job"] is True, health["memory"]


# ---------------------------------------------------------------------------------------------
# 2. CPU: one job's processes cannot starve the job in the other slot.

CPU_HOG = r"""
#include <stdio.h>
#include <unistd.h>
#include <sys/types.h>
int main(void) {
    for (int i = 0; i < 60; i++) {
        if (fork() == 0) {
            setsid();
            volatile unsigned long x = 0;
            for (;;) x++;
        }
    }
    sleep(3);
    puts("hogged");
    return 0;
}
"""
# About 0.25 s of CPU: far inside the 3 s limit when the job gets its fair share.
VICTIM = "n = 0\nfor i in range(3_000_000):\n    n += i\nprint(n)\n"


async def test_cpu_hog_in_one_slot_cannot_time_out_the_other(svc, request):
    """On the host: the two slots of one service. Containers run one slot each, so there: two
    replicas behind one client, which sends the victim to the idle one."""
    url = svc.url
    if svc.name == "container":
        url += "," + request.getfixturevalue("container_peer_url")
    async with SandboxClient(url, max_concurrency=4, timeout_s=REPLY_TIMEOUT_S) as client:
        assert (await client.health())["slots"] >= 2, "needs two program slots"
        # Three tests of 3 s each: the hog's 60 processes spin for about 9 s, at least 6 s of
        # them beside the victim (three tests of about 0.25 s of CPU each, 3 s limit).
        hog = asyncio.create_task(client.run_program("c", {"main.c": CPU_HOG}, ["\n"] * 3))
        await asyncio.sleep(2.5)  # compiled, and its 60 busy processes are running
        assert not hog.done(), "the hog ended before the victim ran"
        victim = await client.run_program("python", {"main.py": VICTIM}, ["\n"] * 3)
        await hog
    statuses = [t["status"] for t in victim.model_dump()["tests"]]
    assert statuses == ["ok", "ok", "ok"], victim


# ---------------------------------------------------------------------------------------------
# 3. Answer keys: no dataset, references, hidden tests or generator visible or importable.

SEARCH = (
    "import json, os, subprocess\n"
    "NAMES = set({names!r})\n"
    "found = []\n"
    "for base, dirs, files in os.walk('/'):\n"
    "    if base == '/':\n"
    "        dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev')]\n"
    "    for name in dirs + files:\n"
    "        if name in NAMES or name.startswith('smolscript-security-decoy'):\n"
    "            found.append(os.path.join(base, name))\n"
    "imp = subprocess.run(['/usr/bin/python3', '-c', 'import smolscript'],\n"
    "                     capture_output=True)\n"
    "opt = sorted(os.listdir('/opt')) if os.path.isdir('/opt') else []\n"
    "print(json.dumps({{'found': found[:20], 'importable': imp.returncode == 0, 'opt': opt}}))\n"
)


@pytest.fixture
def decoy_answer_key(health, svc):
    """A fake installed package with answer keys under /opt, as an image that installs the
    environment there would have; planted only when the service runs on this machine."""
    if local_pid(svc) is None:
        yield None
        return
    root = Path(f"/opt/smolscript-security-decoy-{uuid.uuid4().hex[:8]}")
    data = root / "lib/python3/site-packages/smolscript/data/smolscript"
    (data / "private_tests").mkdir(parents=True)
    (data / "private_tests" / "hidden.jsonl").write_text('{"id": "decoy"}\n')
    root.chmod(0o755)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    try:
        yield root
    finally:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


async def test_answer_keys_and_generator_are_out_of_reach(health, decoy_answer_key, svc):
    source = SEARCH.format(names=ANSWER_KEY_NAMES)
    if local_pid(svc) is not None:
        # The sandbox sees the host's system tree: read its directories once here, so that the
        # test's wall limit measures the sandbox, not a cold disk (about 10,000 entries/s).
        for root in ("/usr", "/opt", "/etc"):
            for _base, _dirs, _files in os.walk(root):
                pass
    async with SandboxClient(svc.url, timeout_s=REPLY_TIMEOUT_S) as client:
        # The walk of the whole tree can outlast the test's wall limit on a loaded machine:
        # such a try saw nothing conclusive and is run again, up to three times.
        for _attempt in range(3):
            reply = await client.run_program("python", {"main.py": source}, ["\n"])
            test = only_test(reply.model_dump())
            if test["status"] != "timeout":
                break
    assert test["status"] == "ok", test
    seen = json.loads(test["stdout"])
    assert seen["found"] == [], seen
    assert seen["importable"] is False, seen
    # Only toolchains under /opt (not the whole tree).
    assert set(seen["opt"]) <= {"rust"}, seen


def test_startup_self_probe_refuses_a_visible_answer_key():
    """The start-up probe runs a real job; a tree with an answer key bound into the sandbox
    makes it refuse (the service then does not start); the real layout passes."""
    import shutil

    from smolscript_sandbox import guard
    from smolscript_sandbox.errors import SandboxInfraError

    # Under /tmp itself: the sandbox uid must be able to reach the folder to bind it.
    root = Path(f"/tmp/smolscript-security-probe-{uuid.uuid4().hex[:8]}")
    try:
        (root / "leak" / "private_tests").mkdir(parents=True)
        (root / "leak" / "private_tests" / "hidden.jsonl").write_text("{}\n")
        (root / "probe").mkdir()
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        with pytest.raises(SandboxInfraError, match="hidden.jsonl"):
            guard.answer_key_probe(root / "probe", extra_ro_binds={str(root / "leak"): "/opt/leak"})
        guard.answer_key_probe(root / "probe")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# 4. Socket families: only AF_UNIX, AF_INET and AF_INET6 (AF_VSOCK is not namespaced).


async def test_only_unix_and_inet_socket_families(health, svc):
    source = (
        "import socket\n"
        "ok = set()\n"
        "for family in range(0, 46):\n"
        "    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW,\n"
        "                 socket.SOCK_SEQPACKET):\n"
        "        try:\n"
        "            socket.socket(family, kind).close()\n"
        "            ok.add(family)\n"
        "        except OSError:\n"
        "            pass\n"
        "print(sorted(ok))\n"
    )
    test = only_test(await run_python(svc.url, source))
    assert test["status"] == "ok", test
    assert set(json.loads(test["stdout"])) <= {1, 2, 10}, test


# ---------------------------------------------------------------------------------------------
# 5. Nested user namespaces and the kernel's riskiest syscalls are denied.

SYSCALLS = r"""
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    ret = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return 'ok' if ret >= 0 else 'errno %d' % ctypes.get_errno()
buf = ctypes.create_string_buffer(256)
attr = ctypes.create_string_buffer(128)
ctypes.memmove(attr, (1).to_bytes(4, 'little') + (128).to_bytes(4, 'little'), 8)
attr[40] = (1 << 5) | (1 << 6)  # exclude_kernel, exclude_hv
results = {
    'unshare_user': call(272, 0x10000000),
    'unshare_net': call(272, 0x40000000),
    'io_uring_setup': call(425, 4, ctypes.addressof(buf)),
    'keyctl': call(250, 0, -3, 1),
    'add_key': call(248, ctypes.addressof(ctypes.create_string_buffer(b'user')),
                    ctypes.addressof(ctypes.create_string_buffer(b'k')),
                    ctypes.addressof(ctypes.create_string_buffer(b'v')), 1, -2),
    'userfaultfd': call(323, 0o2000000 | 1),
    'perf_event_open': call(298, ctypes.addressof(attr), 0, -1, -1, 0),
    'ptrace_traceme': call(101, 0, 0, 0, 0),
    'bpf': call(321, 0, ctypes.addressof(buf), 128),
}
print(json.dumps(results))
"""


async def test_nested_namespaces_and_risky_syscalls_are_denied(health, svc):
    test = only_test(await run_python(svc.url, SYSCALLS))
    assert test["status"] == "ok", test
    results = json.loads(test["stdout"])
    allowed = {name: r for name, r in results.items() if r == "ok"}
    assert allowed == {}, results


# ---------------------------------------------------------------------------------------------
# 6. The service's own bounds.


async def test_oversized_body_is_refused_before_it_is_read(health, svc):
    cap = health.get("bounds", {}).get("max_body_bytes") or 32 * MIB
    pid = local_pid(svc)
    rss_before = _rss(pid)
    head = b'{"runtime": "python", "tests": [{"stdin": ""}], "files": {"main.py": "'
    body_len = cap + 64 * MIB

    async def body():
        yield head
        sent = len(head)
        chunk = b"a" * MIB
        while sent < body_len - 3:
            yield chunk
            sent += len(chunk)
        yield b'"}}'

    async with httpx.AsyncClient(timeout=60) as client:
        start = time.monotonic()
        try:
            reply = await client.post(
                f"{svc.url}/v1/program",
                content=body(),
                headers={"content-type": "application/json"},
            )
            status = reply.status_code
        except httpx.HTTPError:
            status = None  # the service hung up on the body: also a refusal, checked below
        elapsed = time.monotonic() - start
    assert status in (413, None), status
    assert elapsed < 30, elapsed
    if pid is not None:
        assert _rss(pid) - rss_before < cap + 64 * MIB, (rss_before, _rss(pid))
    info = httpx.get(f"{svc.url}/health", timeout=10).json()
    assert info["status"] == "ok"


def _rss(pid: int | None) -> int:
    if pid is None:
        return 0
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


LONG_JOB = "import time\ntime.sleep(3.5)\n"


async def test_abandoned_jobs_are_cancelled(health, svc):
    """Clients that go away free their slots: the next job does not wait for them."""
    slots = health["slots"]
    job = {"runtime": "python", "files": {"main.py": LONG_JOB},
           "tests": [{"stdin": ""}] * 4}  # ~14 s per job if nobody cancels it
    async with httpx.AsyncClient(timeout=60) as client:
        abandoned = [asyncio.create_task(client.post(f"{svc.url}/v1/program", json=job))
                     for _ in range(slots)]
        await asyncio.sleep(1.5)
        for task in abandoned:
            task.cancel()  # closes the connection: the client went away
        await asyncio.gather(*abandoned, return_exceptions=True)
    start = time.monotonic()
    reply = await run_python(svc.url, "print('next')\n")
    waited = time.monotonic() - start
    assert only_test(reply)["stdout"] == "next"
    assert waited < 6.0, f"the next job waited {waited:.1f} s behind abandoned ones"


async def test_full_queue_answers_503(health, svc):
    bounds = health.get("bounds", {})
    queue = bounds.get("queue_limit") or 512
    slots = health["slots"]
    blocker = {"runtime": "python", "files": {"main.py": LONG_JOB}, "tests": [{"stdin": ""}] * 3}
    small = {"runtime": "python", "files": {"main.py": "print(1)\n"}, "tests": [{"stdin": ""}]}
    limits = httpx.Limits(max_connections=queue + slots + 8)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        running = [asyncio.create_task(client.post(f"{svc.url}/v1/program", json=blocker))
                   for _ in range(slots)]
        await asyncio.sleep(1.0)
        waiting = [asyncio.create_task(client.post(f"{svc.url}/v1/program", json=small))
                   for _ in range(queue)]
        await asyncio.sleep(3.0)
        try:
            extra = await asyncio.wait_for(
                client.post(f"{svc.url}/v1/program", json=small), timeout=5.0
            )
            status = extra.status_code
        except (TimeoutError, httpx.HTTPError):
            status = None  # it waited in the queue: no bound
        finally:
            for task in running + waiting:
                task.cancel()
            await asyncio.gather(*running, *waiting, return_exceptions=True)
    assert status == 503, status
    assert httpx.get(f"{svc.url}/health", timeout=10).json()["status"] == "ok"


# The job and idle bounds on a second host service of its own (port, state folder, sandbox
# uids), so that they are exercised in seconds, not the production 120 s and 10 s; both are
# the service's own timers, the same code in the container.
SHORT_JOB_S = 15.0
SHORT_IDLE_S = 3.0


@pytest.fixture(scope="module")
def short_job_service() -> dict:
    """The health record of a one-slot host service with a SHORT_JOB_S job bound and a
    SHORT_IDLE_S idle bound, started for this module and stopped after it, with its base
    URL added (`url`)."""
    # The service process reads its bounds and sandbox uids from the environment.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SMOLSCRIPT_SANDBOX_JOB_TIME_S", str(SHORT_JOB_S))
        env.setenv("SMOLSCRIPT_SANDBOX_IDLE_S", str(SHORT_IDLE_S))
        env.setenv("SMOLSCRIPT_SANDBOX_UID_BASE", "63000")
        env.setenv("SMOLSCRIPT_SANDBOX_BROWSER_UID_BASE", "63500")
        # A free port: each xdist worker that runs a test of this module starts its own.
        config = config_for(f"http://127.0.0.1:{free_port()}", slots=1, browsers=False)
        info, started = control.start_owned(config)
    assert started, f"something else already answers at {config.base_url}"
    try:
        yield {**info, "url": config.base_url}
    finally:
        control.stop(config)


async def test_total_job_time_is_bounded(short_job_service):
    job_s = short_job_service["bounds"]["job_time_s"]
    assert job_s == SHORT_JOB_S
    count = int(job_s / 3.5) + 3
    start = time.monotonic()
    async with SandboxClient(short_job_service["url"], timeout_s=job_s + 120) as client:
        reply = await client.run_program("python", {"main.py": LONG_JOB}, ["\n"] * count)
    elapsed = time.monotonic() - start
    tests = reply.model_dump()["tests"]
    assert len(tests) == count
    assert elapsed < job_s + 10, f"{count} tests took {elapsed:.0f} s (job bound {job_s} s)"
    assert tests[-1]["status"] == "timeout" and "job time" in tests[-1]["stderr"], tests[-1]


def test_idle_connections_are_closed(short_job_service):
    idle_s = short_job_service["bounds"]["idle_timeout_s"]
    assert idle_s == SHORT_IDLE_S
    parsed = urlparse(short_job_service["url"])
    closed = []
    for first in (b"", b"POST /v1/program HTTP/1.1\r\nHost: x\r\n"):  # silent; slow headers
        with socket.create_connection((parsed.hostname, parsed.port), timeout=5) as conn:
            if first:
                conn.sendall(first)
            conn.settimeout(idle_s + 5)
            start = time.monotonic()
            try:
                data = conn.recv(4096)
                while data and not data.endswith(b"\r\n\r\n") and b"HTTP/1.1" not in data:
                    data = conn.recv(4096)
                closed.append(time.monotonic() - start)
            except TimeoutError:
                closed.append(None)
    assert all(c is not None and c <= idle_s + 2 for c in closed), closed


async def test_stderr_flood_costs_the_service_little(health, svc):
    flood = "import sys\nwhile True:\n    sys.stderr.write('e' * 65536)\n"
    async with SandboxClient(svc.url, timeout_s=REPLY_TIMEOUT_S) as client:
        before = (await client.health())["cpu_s"]["service"]
        reply = await client.run_program("python", {"main.py": flood}, ["\n"])
        after = (await client.health())["cpu_s"]["service"]
    test = only_test(reply.model_dump())
    assert test["truncated"] and len(test["stderr"]) <= 64 * 1024, test["status"]
    assert after - before < 0.4, f"the service spent {after - before:.2f} s of CPU on one flood"


async def test_bad_jobs_get_422_without_echo(health, svc):
    marker = "ECHO" + uuid.uuid4().hex[:8]
    bodies = [
        # a lone surrogate in a source
        '{"runtime": "python", "files": {"main.py": "print(1) # ' + marker + '\\ud800"},'
        ' "tests": [{"stdin": ""}]}',
        # a field of the wrong type
        '{"runtime": "python", "files": "' + marker + '", "tests": []}',
        # not JSON at all
        '{"runtime": "' + marker,
        # a lone surrogate in a browser source
        '{"kind": "html", "source": "' + marker + '\\udfff", "probes": []}',
    ]
    async with httpx.AsyncClient(timeout=30) as client:
        for i, body in enumerate(bodies):
            path = "/v1/browser" if i == 3 else "/v1/program"
            reply = await client.post(f"{svc.url}{path}", content=body.encode(),
                                      headers={"content-type": "application/json"})
            assert reply.status_code == 422, (i, reply.status_code, reply.text[:300])
            assert marker not in reply.text, (i, reply.text[:300])
            assert reply.json()["detail"], reply.text


def test_state_folder_is_private_and_owned(health):
    state = health.get("state", {})
    assert state.get("root_mode") == "0700", state
    assert state.get("root_owner_uid") == state.get("service_uid"), state
    assert state.get("checked") is True, state


def test_state_root_of_another_owner_is_refused(tmp_path):
    from smolscript_sandbox.errors import SandboxInfraError
    from smolscript_sandbox.statedir import secure_state_root

    mine = tmp_path / "mine"
    secure_state_root(mine)
    assert oct(mine.stat().st_mode & 0o777) == "0o700"
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 61999, 61999)
    with pytest.raises(SandboxInfraError, match="owned by uid 61999"):
        secure_state_root(theirs)
    link = tmp_path / "link"
    link.symlink_to(mine)
    with pytest.raises(SandboxInfraError, match="symbolic link"):
        secure_state_root(link)
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    loose.chmod(0o777)
    with pytest.raises(SandboxInfraError, match="0777"):
        secure_state_root(loose)


# ---------------------------------------------------------------------------------------------
# 7. What a job can read about the host: mountinfo, /etc, /opt.


async def test_job_sees_no_host_paths_and_little_of_etc(health, svc):
    source = (
        "import json, os\n"
        "print(json.dumps({'mountinfo': open('/proc/self/mountinfo').read(),\n"
        "                  'etc': sorted(os.listdir('/etc')),\n"
        "                  'opt': sorted(os.listdir('/opt')) if os.path.isdir('/opt') else []}))\n"
    )
    test = only_test(await run_python(svc.url, source))
    assert test["status"] == "ok", test
    seen = json.loads(test["stdout"])
    state_dir = health["state_dir"]
    assert state_dir not in seen["mountinfo"], seen["mountinfo"]
    assert "smolscript" not in seen["mountinfo"], seen["mountinfo"]
    assert set(seen["etc"]) <= ETC_ALLOWED, sorted(set(seen["etc"]) - ETC_ALLOWED)
    assert set(seen["opt"]) <= {"rust"}, seen["opt"]


@pytest.mark.unit
def test_every_runtime_binary_lies_in_a_bound_tree():
    """Binding toolchains one by one must not hide a runtime's compiler or interpreter."""
    from smolscript_sandbox.isolation import RO_TREES, TOOLCHAIN_TREES
    from smolscript_sandbox.runtimes import RUNTIMES, binaries

    trees = RO_TREES + TOOLCHAIN_TREES
    for runtime in RUNTIMES.values():
        for binary in binaries(runtime):
            assert binary.startswith(tuple(f"{t}/" for t in trees)), (runtime.id, binary)
        for entry in runtime.env.get("PATH", "").split(":"):
            if entry and entry not in ("/bin", "/usr/bin"):
                assert entry.startswith(tuple(f"{t}/" for t in trees)), (runtime.id, entry)
