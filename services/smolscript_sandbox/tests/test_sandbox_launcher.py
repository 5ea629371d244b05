"""The sandbox launcher (`launcher.c`), compiled with the host's gcc and run for real as root:
the uid drop, the capability sets, the rlimits, the descriptors it opens, its mark mode and its
refusals."""

from __future__ import annotations

import os
import subprocess

import pytest
from smolscript_sandbox import launcher as launcher_module
from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.launcher import build, source

pytestmark = pytest.mark.integration

NOBODY = 65534


@pytest.fixture(scope="module")
def launcher(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("the launcher drops privileges: run as root (as CI and the service do)")
    return str(build(tmp_path_factory.mktemp("launcher")))


def run(launcher: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([launcher, *args], capture_output=True, text=True, timeout=30)


def test_source_compiles_without_warnings(tmp_path):
    done = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-x", "c", "-o",
                           str(tmp_path / "launcher"), "-"], input=source().encode(),
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode()


def test_build_is_cached_by_source(tmp_path):
    first = build(tmp_path / "state")
    assert os.access(first, os.X_OK) and first.name.startswith("launcher-")
    assert (tmp_path / "state").stat().st_mode & 0o777 == 0o700
    mtime = first.stat().st_mtime_ns
    assert build(tmp_path / "state") == first and first.stat().st_mtime_ns == mtime


def test_a_failed_build_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(launcher_module, "source", lambda: "int main( {")
    with pytest.raises(SandboxInfraError, match="does not compile"):
        build(tmp_path / "state")
    assert list((tmp_path / "state").iterdir()) == []


def test_drops_uid_groups_and_capabilities_then_lowers_rlimits(launcher):
    script = "id -u; id -g; id -G; ulimit -n; ulimit -t; ulimit -c; grep ^Cap /proc/self/status"
    done = run(launcher, "--uid", str(NOBODY), "--gid", str(NOBODY),
               "--rlimit", "nofile=32:32", "--rlimit", "cpu=3:4", "--rlimit", "core=0:0",
               "--", "/bin/sh", "-c", script)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert lines[:6] == [str(NOBODY), str(NOBODY), str(NOBODY), "32", "3", "0"]
    caps = dict(line.split(":\t") for line in lines[6:] if line)
    for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):  # bwrap's --cap-drop does CapBnd
        assert caps[name] == "0000000000000000", (name, caps)


def test_opens_marked_files_as_root_for_the_dropped_process(launcher, tmp_path):
    secret = tmp_path / "root-only"
    secret.write_text("read through the descriptor\n")
    secret.chmod(0o600)
    script = 'cat "$0" 2>/dev/null && echo by-path; cat <&"$1"'
    done = run(launcher, "--uid", str(NOBODY), "--gid", str(NOBODY), "--",
               "/bin/sh", "-c", script, str(secret), f"@open:{secret}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "read through the descriptor\n"  # not readable by its path


def test_never_opens_words_of_the_jobs_command_line(launcher, tmp_path):
    secret = tmp_path / "root-only"
    secret.write_text("secret\n")
    secret.chmod(0o600)
    # After the command's own `--` (bwrap's: the job's argv) and relative paths: left as text.
    done = run(launcher, "--", "/bin/echo", "@open:relative", "--", f"@open:{secret}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"@open:relative -- @open:{secret}\n"


MARK_PROBE = """import os, sys
try:
    os.fstat(int(sys.argv[1]))
except OSError:
    print("mark descriptor closed")
print(sys.argv[2:])
print(list(os.environ.items()))
"""


def test_mark_mode_writes_one_line_closes_it_and_execs_the_command_unchanged(launcher):
    read, write = os.pipe()
    try:
        done = subprocess.run(
            [launcher, "--mark", str(write), "--", "/usr/bin/python3", "-I", "-c", MARK_PROBE,
             str(write), "a b", "--", "@open:/etc/hostname", "--mark"],
            env={"ZED": "1", "LANG": "C.UTF-8", "ALPHA": "2"}, pass_fds=(write,),
            capture_output=True, text=True, timeout=30)
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as marks:
        assert marks.read() == b'{"payload-exec": true}\n'  # one line, then EOF: closed
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "mark descriptor closed",
        "['a b', '--', '@open:/etc/hostname', '--mark']",
        "[('ZED', '1'), ('LANG', 'C.UTF-8'), ('ALPHA', '2')]",
    ]


@pytest.mark.parametrize(("args", "message"), [
    (["--mark", "x", "--", "true"], "bad mark descriptor"),
    (["--mark", "9", "--", "true"], "cannot write the mark"),  # not open in the launcher
    (["--mark", "1", "true"], "usage: launcher --mark"),
    (["--mark", "1", "--"], "usage: launcher --mark"),
    (["--rlimit", "stack=1:1", "--", "true"], "unknown rlimit"),
    (["--rlimit", "cpu=x:1", "--", "true"], "bad rlimit"),
    (["--cgroup", "/nonexistent/cgroup.procs", "--", "true"], "cannot join cgroup"),
    (["--uid", "65534", "--", "true"], "usage"),
    (["--", "/bin/does-not-exist"], "cannot exec"),
    (["--", "/bin/true", "@open:/nonexistent"], "cannot open"),
    (["--bogus", "1", "--", "true"], "unknown or repeated option"),
    (["--uid", "-1", "--gid", "-1", "--", "true"], "bad uid"),
    (["--uid", "0", "--gid", "0", "--", "true"], "bad uid"),
    (["--uid", "65534", "--gid", "4294967295", "--", "true"], "bad gid"),
    (["--uid", "65534", "--uid", "65533", "--gid", "65534", "--", "true"], "repeated option"),
    (["--uid", "65534:1", "--gid", "65534", "--", "true"], "bad uid"),
    (["--rlimit", "cpu=5:6:7", "--", "true"], "bad rlimit"),
    (["--cgroup", "--", "true"], "missing value"),
])
def test_refuses_with_exit_125_before_the_command_runs(launcher, args, message):
    done = run(launcher, *args)
    assert done.returncode == 125 and message in done.stderr
