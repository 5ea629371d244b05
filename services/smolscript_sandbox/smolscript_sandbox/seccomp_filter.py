"""The seccomp filter every sandbox loads (bwrap `--add-seccomp-fd`), built with libseccomp.

Default: allow. Denied, because a test program never needs them and they are where kernel
privilege escalations live (issue 18, item 5; the list follows Docker's default profile and
bubblewrap's own examples): new namespaces (`unshare`, `setns`, namespace flags of `clone`;
`clone3` answers ENOSYS so that glibc falls back to `clone`, whose flags a filter can read),
io_uring, the key-management calls, `userfaultfd`, `perf_event_open`, `ptrace` and cross-process
memory access, `bpf`, mounts, module and kexec loading, and the terminal-injection ioctls.
Sockets: only AF_UNIX, AF_INET and AF_INET6 (AF_VSOCK, AF_NETLINK, AF_PACKET and the rest are
refused with EAFNOSUPPORT); the network namespace already leaves only loopback.

The bindings are libseccomp's own (Debian package python3-seccomp). A uv-managed venv does not
see Debian's dist-packages, so `load_bindings` loads that one extension module by path.
"""

from __future__ import annotations

import errno
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from smolscript_sandbox.errors import SandboxInfraError

# Where Debian's python3-seccomp puts its extension module.
DEBIAN_DIST_PACKAGES = Path("/usr/lib/python3/dist-packages")
DENIED = (
    "unshare", "setns", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "userfaultfd", "perf_event_open", "ptrace",
    "process_vm_readv", "process_vm_writev", "kcmp", "bpf", "mount", "umount2",
    "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fspick", "mount_setattr",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at", "name_to_handle_at", "acct", "swapon", "swapoff", "reboot",
    "syslog", "quotactl", "lookup_dcookie", "iopl", "ioperm", "vhangup", "uselib",
    "fanotify_init",
)
ENOSYS_CALLS = ("clone3",)
# clone's flags that create namespaces (linux/sched.h).
CLONE_NS_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                  0x40000000)
ALLOWED_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
AF_MAX = 46  # one past the highest family this kernel series defines
TIOCSTI, TIOCLINUX = 0x5412, 0x541C


def load_bindings() -> ModuleType:
    """libseccomp's Python module: `import seccomp`, else Debian's extension file by path.

    Raises SandboxInfraError naming the package to install when neither is there.
    """
    try:
        import seccomp  # type: ignore[import-not-found]

        return seccomp
    except ImportError:
        pass
    tag = f"cpython-{sys.version_info.major}{sys.version_info.minor}"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = DEBIAN_DIST_PACKAGES / f"seccomp{suffix}"
        if tag in suffix and path.is_file():
            spec = importlib.util.spec_from_file_location("seccomp", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise SandboxInfraError(
        "libseccomp's Python bindings are missing (apt install python3-seccomp, or run "
        "services/smolscript_sandbox/setup_host.sh); refusing to start without a "
        "syscall filter"
    )


def build_filter() -> object:
    """The filter as a libseccomp `SyscallFilter` (native architecture; other ABIs are
    killed, libseccomp's default). Raises SandboxInfraError when the bindings are missing."""
    sc = load_bindings()
    flt = sc.SyscallFilter(sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    for name in DENIED:
        _add(sc, flt, deny, name)
    for name in ENOSYS_CALLS:
        _add(sc, flt, sc.ERRNO(errno.ENOSYS), name)
    for flag in CLONE_NS_FLAGS:
        flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    refuse = sc.ERRNO(errno.EAFNOSUPPORT)
    for call in ("socket", "socketpair"):
        for family in range(AF_MAX):
            if family not in ALLOWED_FAMILIES:
                flt.add_rule(refuse, call, sc.Arg(0, sc.EQ, family))
        flt.add_rule(refuse, call, sc.Arg(0, sc.GE, AF_MAX))
    for request in (TIOCSTI, TIOCLINUX):
        flt.add_rule(deny, "ioctl", sc.Arg(1, sc.EQ, request))
    return flt


def _add(sc: ModuleType, flt: object, action: int, name: str) -> None:
    """Add an unconditional rule, skipping a syscall this architecture does not have."""
    if sc.resolve_syscall(sc.Arch(), name) < 0:
        return
    flt.add_rule(action, name)


def write_filter(path: Path) -> Path:
    """Compile the filter into `path` as BPF (mode 0644; the launcher opens it for bwrap)."""
    flt = build_filter()
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        flt.export_bpf(out)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path
