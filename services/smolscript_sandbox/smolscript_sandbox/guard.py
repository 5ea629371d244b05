"""The start-up self-probe: a real sandboxed job looks for answer keys, and the service refuses
to start when it finds any (issue 18, item 3).

Expected outputs stay on the scoring side; the service image and its install location must
hold no dataset, references, hidden tests or task generator. The probe checks what a job can
actually reach: every visible path (but /proc, /sys, /dev) is searched for the names of the
dataset's files and packages, and the sandbox's Python is asked to import them with its
default path (site-packages included).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.isolation import Identity, sandbox_argv
from smolscript_sandbox.limits import RUN_LIMITS

# File and folder names of the smolscript dataset (data/smolscript: the task rows, the
# references, the hidden tests) and of the packages that hold or rebuild them.
ANSWER_KEY_NAMES = ("hidden.jsonl", "solutions.jsonl", "smolscript.jsonl", "private_tests",
                    "smolscript_builder")
PACKAGES = ("smolscript", "smolscript_builder")
PROBE_TIMEOUT_S = 60

_SEARCH = """
import json, os, subprocess, sys
names, packages = set(json.loads(sys.argv[1])), json.loads(sys.argv[2])
found = []
for base, dirs, files in os.walk('/'):
    if base == '/':
        dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev')]
    for name in dirs + files:
        if name in names:
            found.append(os.path.join(base, name))
for package in packages:
    code = 'import importlib.util, sys; sys.exit(importlib.util.find_spec(%r) is None)' % package
    if subprocess.run(['/usr/bin/python3', '-c', code]).returncode == 0:
        found.append('importable: ' + package)
print(json.dumps(found))
"""


def answer_key_probe(
    job_dir: Path,
    identity: Identity | None = None,
    extra_ro_binds: dict[str, str] | None = None,
) -> None:
    """Run the search in a sandbox as `identity` (default: nobody, 65534) with `job_dir` at
    /job; `extra_ro_binds` adds host trees (to test the probe itself).

    Raises SandboxInfraError listing what a job could reach, or when the probe cannot run.
    """
    identity = identity or Identity(65534, 65534)
    limits = replace(RUN_LIMITS, cpu_s=30, wall_s=60.0)  # a walk over all of /usr
    argv = [
        "/usr/bin/python3", "-I", "-S", "-c", _SEARCH,
        json.dumps(ANSWER_KEY_NAMES), json.dumps(PACKAGES),
    ]
    cmd = sandbox_argv(identity, argv, job_dir, limits, writable_job=False,
                       extra_ro_binds=extra_ro_binds)
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxInfraError(f"answer-key probe could not run: {exc}") from exc
    try:
        found = json.loads(done.stdout)
    except json.JSONDecodeError:
        detail = done.stderr.decode("utf-8", "replace").strip()[-500:]
        raise SandboxInfraError(f"answer-key probe failed: {detail}") from None
    if found:
        raise SandboxInfraError(
            "a job can reach answer keys or the task generator: "
            + ", ".join(found[:10])
            + "; refusing to start (install the service without the smolscript package)"
        )
