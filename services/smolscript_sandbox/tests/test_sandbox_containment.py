"""Containment of hostile programs by the real scoring service (bwrap, uid drop, prlimit).

Each case runs a complete stdin/stdout program (no harness) through the HTTP API and checks its
status, that the service still serves, and that no zombie or slot process remains. The whole
suite runs twice: against the host service and against the service's container image
(`target` fixture, tests/support/sandbox_targets.py), with the same expected verdicts.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.limits import RUN_LIMITS
from smolscript_sandbox.runtimes import RUNTIMES

from tests.support.sandbox_targets import REPLY_TIMEOUT_S, Target, own_host_target

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def host_target() -> Target:
    """This module's own host service (one per xdist worker), in place of the shared one at
    TEST_URL: its fork bombs and the processes it holds as a slot uid would fail the other
    worker's jobs there ("bwrap: Can't fork for pid 1"), and its stray checks over every slot
    uid would see that worker's running jobs."""
    yield from own_host_target()

C_NULL_CRASH = """#include <stdio.h>
int main(void) { volatile int *p = 0; *p = 1; return 0; }
"""
C_BIG_FILE = """#include <stdio.h>
#include <string.h>
int main(void) {
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    FILE *f = fopen("/tmp/big", "wb");
    for (int i = 0; i < 100; i++) fwrite(block, 1, sizeof block, f);
    fclose(f);
    puts("wrote");
    return 0;
}
"""
# What bwrap prints when it fails inside the namespaces, after it reported the child's pid;
# a program that prints it itself is still the program's failure.
BWRAP_FORK_FAILURE = "bwrap: Can't fork for pid 1: Resource temporarily unavailable"
C_FORGED_BWRAP_FAILURE = f"""#include <stdio.h>
int main(void) {{ fputs("{BWRAP_FORK_FAILURE}\\n", stderr); return 1; }}
"""
PYTHON_FORGED_BWRAP_FAILURE = (
    f"import sys\nsys.stderr.write({BWRAP_FORK_FAILURE + chr(10)!r})\nsys.exit(1)\n"
)


def _forged_bwrap_failure(test: dict) -> bool:
    """The forged message reached the record as the program's own stderr, exit code 1."""
    return test["exit_code"] == 1 and test["stderr"] == BWRAP_FORK_FAILURE + "\n"


# (name, language, source, expected status, check on the test record)
CASES = [
    ("fork_bomb", "python", "import os\nwhile True:\n    os.fork()\n", "runtime_error", None),
    (
        "fork_bomb_retrying",
        "python",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        "timeout",
        None,
    ),
    ("infinite_loop", "python", "while True:\n    pass\n", "timeout", None),
    ("sleep", "python", "import time\ntime.sleep(60)\n", "timeout", None),
    ("alloc_4gb", "python", "x = bytearray(4 * 2**30)\nprint(len(x))\n", "memory_limit", None),
    (
        "file_100mb_python",
        "python",
        "open('/tmp/big', 'wb').write(b'x' * 100_000_000)\nprint('wrote')\n",
        "output_limit",
        lambda t: "wrote" not in t["stdout"],
    ),
    ("file_100mb_c", "c", C_BIG_FILE, "output_limit", lambda t: "wrote" not in t["stdout"]),
    (
        "write_etc",
        "python",
        "open('/etc/smolscript_escape', 'w').write('x')\nprint('escaped')\n",
        "runtime_error",
        lambda t: not os.path.exists("/etc/smolscript_escape") and "escaped" not in t["stdout"],
    ),
    (
        "read_host_file",
        "python",
        f"print(open({os.path.abspath(__file__)!r}).read())\n",
        "runtime_error",
        lambda t: "Containment" not in t["stdout"],
    ),
    (
        "flood",
        "python",
        "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n",
        "output_limit",
        lambda t: t["truncated"] and set(t["stdout"]) == {"y"} and len(t["stdout"]) <= 256 * 1024,
    ),
    (
        "byte_ff",
        "python",
        "import sys\nsys.stdout.buffer.write(b'a\\xffb\\n')\n",
        "ok",
        lambda t: t["stdout"] == "a\ufffdb",
    ),
    (
        "crash_empty_output",
        "c",
        C_NULL_CRASH,
        "runtime_error",
        lambda t: t["stdout"] == "" and t["exit_code"] != 0,
    ),
    (
        "crlf",
        "python",
        "import sys\nsys.stdout.buffer.write(b'1\\r\\n2\\r\\n')\n",
        "ok",
        # stdout as the program wrote it, one final LF stripped: a CR is never folded away
        # (exact string results, issue 25)
        lambda t: t["stdout"] == "1\r\n2\r",
    ),
    # Never infra_error: that would let a policy turn its own failures into dropped rollouts.
    ("forged_bwrap_failure_c", "c", C_FORGED_BWRAP_FAILURE, "runtime_error",
     _forged_bwrap_failure),
    ("forged_bwrap_failure_python", "python", PYTHON_FORGED_BWRAP_FAILURE, "runtime_error",
     _forged_bwrap_failure),
]


async def run(client: SandboxClient, runtime: str, source: str) -> dict:
    """Run `source` as the runtime's complete main file (no harness) once; the reply as JSON."""
    reply = await client.run_program(runtime, {RUNTIMES[runtime].main_file: source}, ["\n"])
    return reply.model_dump()


async def _wait_for_file_with(jobs_dir: Path, needle: str, within_s: float = 60.0) -> Path:
    """The slot job file holding `needle`, once the service has written it (host side)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        for path in jobs_dir.glob("slot*/job/*"):
            try:
                if needle in path.read_text(errors="replace"):
                    return path
            except OSError:
                continue
        await asyncio.sleep(0.05)
    raise AssertionError(f"no slot file under {jobs_dir} holds the holder's secret")


async def wait_clean(target: Target, within_s: float = 3.0) -> tuple[list, list]:
    """Poll until no stray remains (the service reaps orphans every second)."""
    deadline = time.monotonic() + within_s
    while True:
        found = target.strays()
        if not any(found) or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.2)


@pytest.mark.parametrize(
    ("name", "language", "source", "status", "check"), CASES, ids=[c[0] for c in CASES]
)
async def test_hostile_program_is_contained(target, name, language, source, status, check):
    async with SandboxClient(target.url, max_concurrency=2, timeout_s=REPLY_TIMEOUT_S) as client:
        result = await run(client, language, source)
        assert result["status"] == "ok", result  # compiled and ran (the test carries the verdict)
        test = result["tests"][0]
        assert test["status"] == status, (name, test)
        if check is not None:
            assert check(test), (name, test)
        if status == "timeout":
            assert test["time_s"] < 6.0, test  # 3 s CPU + 1 s wall allowance, plus start-up
        health = await client.health()
        assert health["status"] == "ok"
    assert await wait_clean(target) == ([], [])


async def test_bwrap_failing_after_child_pid_is_infra_error_on_host(host_target):
    """bwrap reports the child's pid, then its pid 1 cannot fork the job: the slot uid already
    holds (nearly) its run process limit, in processes this test starts as that uid (the
    compile's limit is higher, so the compile runs). The count at which bwrap fails there,
    not earlier at its clone, varies from one sandbox to the next (61 or 62 of 64 seen here:
    processes of the previous sandbox may still be exiting), so each count gets a job of
    several tests. Every test the streaming client hears (all but infra_error ones) is ok,
    never the program's failure; a job with an infra_error test raises SandboxInfraError
    naming the first one's error, and one of them is bwrap's pid 1 failing to fork."""
    uids = host_target.health["slot_uids"]
    job = {"runtime": "python", "files": {"main.py": "print('ran')\n"},
           "tests": [{"stdin": ""}] * 8}
    heard: list[tuple[int, str, str]] = []  # (processes held, status, stderr) of each test
    raised: list[str] = []  # what each job's SandboxInfraError said

    for held in range(RUN_LIMITS.nproc - 3, RUN_LIMITS.nproc):
        def keep_going(_index: int, result, held=held) -> bool:
            heard.append((held, result.status, result.stderr))
            return True

        sleepers = [subprocess.Popen(["/usr/bin/sleep", "300"], user=uid, group=uid,
                                     extra_groups=[])
                    for uid in uids for _ in range(held)]
        try:
            async with SandboxClient(host_target.url, timeout_s=REPLY_TIMEOUT_S) as client:
                try:
                    await client.run_program_job_until(job, keep_going)
                except SandboxInfraError as exc:
                    raised.append(exc.reason)
        finally:
            for sleeper in sleepers:
                sleeper.kill()
            for sleeper in sleepers:  # reaped here: a zombie counts against the uid's limit
                sleeper.wait()
        if any(BWRAP_FORK_FAILURE in reason for reason in raised):
            break
    assert {status for _, status, _ in heard} <= {"ok"}, heard
    assert any(BWRAP_FORK_FAILURE in reason for reason in raised), (raised, heard)
    assert await wait_clean(host_target) == ([], [])


async def test_connect_to_host_listener_is_refused(target):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    accepted = []

    def accept() -> None:
        try:
            accepted.append(listener.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    source = (
        "import socket\n"
        f"s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        "s.sendall(b'hello')\nprint('connected')\n"
    )
    async with SandboxClient(target.url, timeout_s=REPLY_TIMEOUT_S) as client:
        result = await run(client, "python", source)
    thread.join()
    listener.close()
    test = result["tests"][0]
    assert test["status"] == "runtime_error", test
    assert "connected" not in test["stdout"]
    assert accepted == []
    assert await wait_clean(target) == ([], [])


def _holder_and_seeker(token: str, roots: list[str]) -> tuple[str, str]:
    """A holder that keeps 's3cr3t-<token>' in its source for 3.5 s, and a seeker that
    prints every file under `roots` holding it."""
    # 3.5 s: inside the 4 s wall limit of a test run, long enough to outlast the seeker.
    holder = f"import time\nSECRET = 's3cr3t-{token}'\ntime.sleep(3.5)\n"
    seeker = (  # builds the secret at run time, so its own source never contains it
        "import json, os\n"
        f"needle = 's3cr3t-' + {token!r}\n"
        "found = []\n"
        f"for root in {roots!r}:\n"
        "    for base, _dirs, files in os.walk(root):\n"
        "        for name in files:\n"
        "            path = os.path.join(base, name)\n"
        "            try:\n"
        # /proc/*/fd links to the seeker's own pipes would block a read (in the container the
        # job's uid may open them): skip pipes and sockets, follow every file link.
        "                if os.readlink(path).startswith(('pipe:', 'socket:', 'anon_inode:')):\n"
        "                    continue\n"
        "            except OSError:\n"
        "                pass\n"
        "            try:\n"
        "                with open(path, errors='replace') as fh:\n"
        "                    if needle in fh.read(1 << 20):\n"
        "                        found.append(path)\n"
        "            except OSError:\n"
        "                pass\n"
        "print(json.dumps(found))\n"
    )
    return holder, seeker


async def test_job_cannot_see_another_jobs_folder(target):
    """Job A keeps a secret in its folder while job B (another slot) searches every path.

    Event-based: B is sent only once A's file holds the secret on the host (the service's slot
    folder), and A must still be running when B has finished (the two overlapped)."""
    roots = ["/tmp", "/job", "/proc", target.health["state_dir"], target.health["jobs_dir"],
             "/var", "/root"]
    async with SandboxClient(target.url, timeout_s=REPLY_TIMEOUT_S) as client:
        # On a loaded machine the seeker's walk can outlast the holder: such a try shows
        # nothing (no overlap), so it is run again with a new secret, up to three times.
        for _attempt in range(3):
            token = os.urandom(4).hex()
            holder, seeker = _holder_and_seeker(token, roots)
            hold = asyncio.create_task(run(client, "python", holder))
            await _wait_for_file_with(target.host_jobs_dir, f"s3cr3t-{token}")
            seek = await run(client, "python", seeker)
            overlapped = not hold.done()
            held = await hold
            if overlapped:
                break
        assert overlapped, "the holder ended before the seeker searched, three times: no overlap"
    assert held["tests"][0]["status"] == "ok", held
    assert seek["tests"][0]["status"] == "ok", seek
    assert json.loads(seek["tests"][0]["stdout"]) == []
    assert await wait_clean(target) == ([], [])
