"""Bubblewrap command lines for one sandboxed process, and the start-up isolation check.

Order of privilege drop (services/smolscript_sandbox/README.md, "Isolation"): the launcher
(`launcher.c`, compiled at start-up) runs as root, moves itself into the slot's cgroups and
opens the files bwrap reads from descriptors (the seccomp filter), switches to the slot's
unprivileged uid (no groups, no capabilities), lowers the rlimits and execs `bwrap`, which
builds the namespaces as that uid. bwrap is never run as root with a uid option (that would map
the sandbox to real uid 0).

What a job sees (issue 18): a read-only root with /usr (less /usr/local), the toolchain trees
under /opt that a runtime needs (`TOOLCHAIN_TREES`, not all of /opt), a few named files of /etc
(`ETC_ENTRIES`), a read-only /dev, size-capped tmpfs /tmp and /dev/shm, and the job folder at
/job; no user namespace of its own (`--disable-userns`) and a seccomp filter
(`seccomp_filter.py`) against the syscalls and socket families a job never needs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.launcher import default_launcher
from smolscript_sandbox.limits import Limits

JOB_MOUNT = "/job"
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
# Read-only system trees visible to jobs; /root, /home, /work, /var and /tmp never are.
RO_TREES = ("/usr",)
# Hidden under /usr: what a local pip/npm install would put there (never a runtime's need).
HIDDEN_TREES = ("/usr/local",)
# Toolchains outside /usr, bound one by one (never all of /opt: an image may install more there).
TOOLCHAIN_TREES = ("/opt/rust",)
# What of /etc the runtimes read: the dynamic linker's cache, alternatives symlinks, Mono's
# configuration, fontconfig (Chromium) and the time zone.
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "mono", "fonts",
               "localtime")
TOP_LEVEL_LINKS = ("/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin")
# bwrap options of this form (an absolute path after the mark, before bwrap's own `--`) are
# opened by the launcher (as root) and replaced by the descriptor number; the job's command
# line never is.
OPEN_MARK = "@open:"
# Where the launcher is copied inside a sandbox whose start is reported (`bwrap_argv`'s
# `exec_mark_fd`): it runs there in mark mode, between bwrap and the job.
MARK_EXEC = "/.exec-mark"
MARK_KEY = "payload-exec"  # the mark line is {"payload-exec": true} (launcher.c's MARK_LINE)


@dataclass(frozen=True)
class Identity:
    """Who a slot's processes run as: a uid/gid to switch to (None keeps the service's), and
    the cgroup v1 `cgroup.procs` files they join (empty: no per-slot cgroup)."""

    uid: int | None
    gid: int | None
    cgroup_procs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hardening:
    """Service-wide sandbox options set once at start-up (`configure`): the compiled seccomp
    filter every sandbox loads (None: none, as before start-up) and the launcher binary
    (None: `launcher.default_launcher()`, built on first use)."""

    seccomp_bpf: str | None = None
    launcher: str | None = None


_HARDENING = [Hardening()]


def configure(hardening: Hardening) -> None:
    """Set the service-wide sandbox options (called once, before the first sandbox)."""
    _HARDENING[0] = hardening


def hardening() -> Hardening:
    """The service-wide sandbox options in force."""
    return _HARDENING[0]


def launcher_path() -> str:
    """The launcher binary in force: the configured one, else `launcher.default_launcher()`
    (built on first use; raises SandboxInfraError when it cannot be)."""
    return hardening().launcher or str(default_launcher())


def is_mark(status: object) -> bool:
    """Whether one parsed JSON line of a status pipe is the launcher's mark line."""
    return isinstance(status, dict) and status.get(MARK_KEY) is True


def launch_argv(identity: Identity, limits: Limits, *, cpu_rlimit: bool = True) -> list[str]:
    """Command prefix: the launcher with the identity's cgroups, its uid/gid (unless it keeps
    the service's) and `limits` as rlimits (CPU seconds unless `cpu_rlimit` is False), then
    `--`. The rest of the command line (`bwrap_argv`) runs as that uid under those limits.

    A command line rather than subprocess's user=/group= keeps the spawn cheap: CPython can
    only vfork when it does not change ids itself (measured here: 0.26 ms instead of 4.6 ms
    of service CPU per process). Raises SandboxInfraError when no launcher was configured
    and none can be built (`launcher.build`: no gcc, a failed compile).
    """
    argv = [launcher_path()]
    for procs in identity.cgroup_procs:
        argv += ["--cgroup", procs]
    if identity.uid is not None:
        argv += ["--uid", str(identity.uid), "--gid", str(identity.gid)]
    rlimits = {
        "cpu": f"{limits.rlimit_cpu_s}:{limits.rlimit_cpu_s + 1}",
        "as": f"{limits.address_space}:{limits.address_space}",
        "fsize": f"{limits.fsize}:{limits.fsize}",
        "nofile": f"{limits.nofile}:{limits.nofile}",
        "core": "0:0",
    }
    if not cpu_rlimit:
        del rlimits["cpu"]
    # RLIMIT_NPROC counts the tasks of a real uid in each user namespace up the chain, the
    # outermost limit being the one in force when the namespace was made. With one uid per slot
    # (bwrap+uid) it is set here, before bwrap. In a container every slot, the service and
    # Chromium share one uid: set here it would count all of them, so `bwrap_argv` sets it
    # inside the sandbox instead, where it counts only this job's user namespace (the
    # container's pids limit bounds the whole).
    if not shared_uid():
        rlimits["nproc"] = f"{limits.nproc}:{limits.nproc}"
    for name, value in rlimits.items():
        argv += ["--rlimit", f"{name}={value}"]
    return [*argv, "--"]


def _root_layout() -> list[str]:
    """Read-only binds of the system trees, the toolchains and the named /etc entries,
    recreating /bin-style symlinks as symlinks; /usr/local hidden under an empty tmpfs."""
    args: list[str] = []
    for tree in RO_TREES + TOOLCHAIN_TREES:
        if os.path.isdir(tree):
            args += ["--ro-bind", tree, tree]
    for tree in HIDDEN_TREES:
        if os.path.isdir(tree):
            args += ["--size", "4096", "--tmpfs", tree, "--remount-ro", tree]
    for name in ETC_ENTRIES:
        path = f"/etc/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    for top in TOP_LEVEL_LINKS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def bwrap_argv(
    argv: list[str],
    job_dir: Path | None,
    limits: Limits,
    *,
    writable_job: bool,
    status_fd: int | None = None,
    exec_mark_fd: int | None = None,
    extra_env: dict[str, str] | None = None,
    extra_ro_binds: dict[str, str] | None = None,
) -> list[str]:
    """The command line after the launcher (`launch_argv`): bwrap, then `argv` in the sandbox.

    `job_dir` is bound at /job (read-write for compiling, read-only for test runs so that
    one test cannot leave state for the next); None binds nothing there (the browsers).
    `status_fd`, when given, receives bwrap's JSON status lines (child-pid first, exit-code
    last); a missing child-pid means setup failed. `exec_mark_fd`, when given (an inheritable
    descriptor), receives the line `{"payload-exec": true}` once bwrap's setup inside the
    namespaces has succeeded, just before `argv` is exec'd: bwrap runs the launcher, copied
    read-only to MARK_EXEC, in mark mode (`launcher.c`), which writes the line, closes the
    descriptor and execs `argv` unchanged (argv, environment, rlimits, seccomp filter). bwrap
    can fail after child-pid (pid 1's fork, a mount): no line then means an infrastructure
    failure, and since the job never holds the descriptor nothing it does can write or undo
    the line. `extra_ro_binds` (host path -> sandbox path) is for the start-up probes and
    for compiles' precompiled headers (`prebuilt.py`). Needs `launch_argv` in front (it
    opens the seccomp filter and the launcher copied in, and sets the rlimits; with a shared
    uid the process limit is set inside, here, before the mark).
    """
    if exec_mark_fd is not None:
        argv = [MARK_EXEC, "--mark", str(exec_mark_fd), "--", *argv]
    if shared_uid():
        argv = ["/usr/bin/prlimit", f"--nproc={limits.nproc}", "--", *argv]
    bwrap = [
        "bwrap",
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--hostname",
        "sandbox",
        *_root_layout(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(limits.tmpfs_bytes),
        "--tmpfs",
        "/tmp",
        "--size",
        str(limits.tmpfs_bytes),
        "--tmpfs",
        "/dev/shm",
    ]
    if job_dir is not None:
        bwrap += ["--bind" if writable_job else "--ro-bind", str(job_dir), JOB_MOUNT]
    for source, target in sorted((extra_ro_binds or {}).items()):
        bwrap += ["--ro-bind", source, target]
    if exec_mark_fd is not None:
        bwrap += ["--perms", "0555", "--ro-bind-data", OPEN_MARK + launcher_path(), MARK_EXEC]
    bwrap += [
        # Nothing but /tmp, /dev/shm and a writable /job takes writes: the root tmpfs and
        # /dev would otherwise be uncapped memory.
        "--remount-ro",
        "/",
        "--remount-ro",
        "/dev",
        "--chdir",
        JOB_MOUNT if job_dir is not None else "/tmp",
        "--clearenv",
        "--setenv",
        "PATH",
        SANDBOX_PATH,
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
    ]
    for key, value in sorted((extra_env or {}).items()):
        bwrap += ["--setenv", key, value]
    if status_fd is not None:
        bwrap += ["--json-status-fd", str(status_fd)]
    seccomp = hardening().seccomp_bpf
    if seccomp is not None:
        bwrap += ["--add-seccomp-fd", OPEN_MARK + seccomp]
    return [*bwrap, "--", *argv]


def sandbox_argv(identity: Identity, argv: list[str], job_dir: Path | None, limits: Limits,
                 *, cpu_rlimit: bool = True, **bwrap_options) -> list[str]:
    """The whole command line of one sandboxed process: `launch_argv` then `bwrap_argv`
    (`bwrap_options`: its keyword options)."""
    return launch_argv(identity, limits, cpu_rlimit=cpu_rlimit) + bwrap_argv(
        argv, job_dir, limits, **bwrap_options)


def in_container() -> bool:
    """True inside a Docker/Podman container (the image's outer isolation boundary)."""
    return (
        os.path.exists("/.dockerenv")
        or os.path.exists("/run/.containerenv")
        or os.environ.get("SMOLSCRIPT_IN_CONTAINER") == "1"
    )


def shared_uid() -> bool:
    """True when slots run as the service's own uid (`bwrap+container`: non-root in a
    container), so that per-uid limits cannot tell jobs apart."""
    return os.geteuid() != 0 and in_container()


def isolation_mode() -> str:
    """`bwrap+uid` as root (one uid per slot), `bwrap+container` as a non-root container user.

    Raises SandboxInfraError when neither holds: a non-root service outside a container
    cannot give slots distinct uids, and there is no unisolated fallback.
    """
    for tool in ("bwrap", "prlimit", "setpriv"):
        if shutil.which(tool) is None:
            raise SandboxInfraError(
                f"{tool} not found: install bubblewrap and util-linux "
                "(services/smolscript_sandbox/setup_host.sh); refusing to start"
            )
    if os.geteuid() == 0:
        return "bwrap+uid"
    if in_container():
        return "bwrap+container"
    raise SandboxInfraError(
        "the service must run as root (to drop each slot to its own uid) or inside its "
        "container image; refusing to start without isolation"
    )


def probe(identity: Identity, job_dir: Path, limits: Limits) -> None:
    """Run `true` in a real sandbox as `identity` (cgroups, seccomp filter, the launcher's
    mark line and all, as every test runs); raise SandboxInfraError if it fails."""
    mark_r, mark_w = os.pipe()
    marks = b""
    try:
        argv = sandbox_argv(identity, ["/usr/bin/true"], job_dir, limits, writable_job=False,
                            exec_mark_fd=mark_w)
        done = subprocess.run(argv, capture_output=True, timeout=20, check=False,
                              pass_fds=(mark_w,))
        os.set_blocking(mark_r, False)  # the write end is still open here: no EOF
        with contextlib.suppress(BlockingIOError):
            marks = os.read(mark_r, 4096)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxInfraError(f"bwrap probe failed: {exc}") from exc
    finally:
        os.close(mark_r)
        os.close(mark_w)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()
        raise SandboxInfraError(f"bwrap cannot create a sandbox here: {detail}")
    try:
        marked = any(is_mark(json.loads(line)) for line in marks.splitlines())
    except ValueError:  # not JSON, not UTF-8
        marked = False
    if not marked:
        raise SandboxInfraError(f"the sandbox launcher's mark line never came: {marks!r}")
