"""The service's state folders: a private state root, and the job folders' own tree.

The state root (pid files, logs, uid leases, the seccomp filter, browser wrappers) must be a
directory of the service's own user, mode 0700, and not a symbolic link: a folder that someone
else created first (say in a shared /tmp) is refused instead of being used (issue 18, item 6).
Job folders need a tree the slot uids may traverse (mode 0711, never listable), kept apart from
the state root; each slot's job folder is its own small tmpfs where the service may mount one,
so that a job sees no host path in its mountinfo (item 7).
"""

from __future__ import annotations

import ctypes
import os
import stat
from pathlib import Path

from smolscript_sandbox.errors import SandboxInfraError

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2


def secure_dir(path: Path, mode: int) -> Path:
    """Create `path` (mode `mode`) if missing, then check it: a real directory owned by this
    process's user with exactly `mode`. Raises SandboxInfraError saying what is wrong."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, mode)
        os.chmod(path, mode)  # mkdir applies the umask
    except FileExistsError:
        pass
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise SandboxInfraError(f"state folder {path} is a symbolic link; refusing to use it")
    if not stat.S_ISDIR(info.st_mode):
        raise SandboxInfraError(f"state folder {path} is not a directory")
    if info.st_uid != os.geteuid():
        raise SandboxInfraError(
            f"state folder {path} is owned by uid {info.st_uid}, not by this service's uid "
            f"{os.geteuid()}; refusing to use it (remove it or set SMOLSCRIPT_SANDBOX_STATE)"
        )
    found = stat.S_IMODE(info.st_mode)
    if found != mode:
        raise SandboxInfraError(
            f"state folder {path} has mode {found:04o}, expected {mode:04o}; refusing to use it"
        )
    return path


def secure_state_root(path: Path) -> Path:
    """The private state root: see `secure_dir` (mode 0700)."""
    return secure_dir(path, 0o700)


def describe(path: Path) -> dict:
    """The health record's facts about the state root (mode, owner, the service's uid)."""
    info = os.lstat(path)
    return {
        "root": str(path),
        "root_mode": f"{stat.S_IMODE(info.st_mode):04o}",
        "root_owner_uid": info.st_uid,
        "service_uid": os.geteuid(),
        "checked": True,
    }


def mount_job_tmpfs(path: Path, size: int, uid: int | None) -> bool:
    """Mount a fresh tmpfs of `size` bytes at `path` (mode 0700, owned by `uid`), replacing
    any earlier one; False where this process may not mount (a non-root container)."""
    libc = ctypes.CDLL(None, use_errno=True)
    target = str(path).encode()
    libc.umount2(target, MNT_DETACH)  # the previous job's folder: gone at once, whatever it held
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    options = f"size={size},mode=0700{owner}".encode()
    return libc.mount(b"tmpfs", target, b"tmpfs", MS_NOSUID | MS_NODEV, options) == 0


def unmount(path: Path) -> None:
    """Detach a job tmpfs (service shutdown); nothing when none is mounted."""
    ctypes.CDLL(None, use_errno=True).umount2(str(path).encode(), MNT_DETACH)
