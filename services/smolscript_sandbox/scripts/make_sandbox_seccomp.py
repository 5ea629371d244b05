"""Write the scoring-service container's seccomp profile (smolscript_sandbox/seccomp.json).

The profile is an allowlist (every other system call fails with EPERM) built from the x86-64
system call table of the Linux UAPI headers (`asm/unistd_64.h`, package linux-libc-dev) minus
DENIED: the calls Docker's default profile refuses to a container without capabilities (the
table "Significant syscalls blocked by the default profile" of Docker's seccomp documentation,
plus its later additions such as io_uring), except NAMESPACE_CALLS. Those are what bubblewrap
needs to build each job's sandbox inside the container; the kernel still grants them only
inside a user namespace the caller created (the container itself has no capabilities), and
Docker's default allows them only to containers with CAP_SYS_ADMIN.

    uv run python services/smolscript_sandbox/scripts/make_sandbox_seccomp.py \
        [--table PATH] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
DEFAULT_OUT = REPO / "services/smolscript_sandbox/smolscript_sandbox/seccomp.json"
DEFAULT_TABLE = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")

# What this profile adds to Docker's default for a container without CAP_SYS_ADMIN.
NAMESPACE_CALLS = (
    "clone", "clone3", "unshare", "setns", "mount", "umount2", "pivot_root", "sethostname",
)
# Refused as in Docker's default profile (kernel modules, kexec, keyrings, BPF, perf, clock and
# time setting, swap, reboot, quota, accounting, raw I/O ports, NUMA policy, handle-based opens,
# cross-process memory access and tracing, userfaultfd, io_uring, the new mount API, obsolete
# calls).
DENIED = frozenset({
    "acct", "add_key", "bpf", "clock_adjtime", "clock_settime", "create_module",
    "delete_module", "finit_module", "get_kernel_syms", "get_mempolicy", "init_module",
    "ioperm", "iopl", "kcmp", "kexec_file_load", "kexec_load", "keyctl", "lookup_dcookie",
    "mbind", "move_pages", "name_to_handle_at", "nfsservctl", "open_by_handle_at",
    "perf_event_open", "personality", "process_vm_readv", "process_vm_writev", "ptrace",
    "query_module", "quotactl", "quotactl_fd", "reboot", "request_key", "set_mempolicy",
    "set_mempolicy_home_node", "settimeofday", "swapoff", "swapon", "sysfs", "_sysctl",
    "syslog", "uselib", "userfaultfd", "ustat", "vhangup", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "fsopen", "fsconfig", "fsmount", "fspick",
    "move_mount", "open_tree", "mount_setattr", "setdomainname", "fanotify_init",
    "afs_syscall", "tuxcall", "security", "vserver", "putpmsg", "getpmsg", "epoll_ctl_old",
    "epoll_wait_old", "umount",
})
# personality(2) only with the personas Docker's default allows (PER_LINUX, PER_LINUX32,
# UNAME26, PER_LINUX32|UNAME26, and the query value 0xffffffff).
PERSONAS = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
COMMENT = (
    "smolscript scoring service (written by "
    "services/smolscript_sandbox/scripts/make_sandbox_seccomp.py; do not edit). "
    "Allowlist: every x86-64 system call except those Docker's default profile refuses to a "
    "container without capabilities; personality() only with Docker's allowed personas. "
    "Added to Docker's default: clone with namespace flags, clone3, unshare, setns, mount, "
    "umount2, pivot_root, sethostname, which bubblewrap needs to build each job's user, pid, "
    "mount, net, ipc and uts namespaces inside the container (the kernel grants them only in "
    "a user namespace the caller owns; the container keeps no capabilities)."
)


def syscall_names(table: str) -> list[str]:
    """The system call names defined in a `unistd_64.h` text (`#define __NR_name nr`)."""
    return sorted(set(re.findall(r"^#define __NR_(\w+)\s+\d+", table, flags=re.M)))


def build_profile(names: list[str]) -> dict:
    """The Docker/OCI seccomp profile for `names` (the architecture's call table)."""
    missing = [n for n in NAMESPACE_CALLS if n not in names]
    if missing:
        raise ValueError(f"system call table lacks {missing}: not an x86-64 table?")
    allowed = [n for n in names if n not in DENIED]
    return {
        "comment": COMMENT,
        "defaultAction": "SCMP_ACT_ERRNO",
        "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
        "syscalls": [
            {"names": allowed, "action": "SCMP_ACT_ALLOW"},
            *(
                {
                    "names": ["personality"],
                    "action": "SCMP_ACT_ALLOW",
                    "args": [{"index": 0, "value": value, "op": "SCMP_CMP_EQ"}],
                }
                for value in PERSONAS
            ),
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Read the table, write the profile; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, default=DEFAULT_TABLE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    profile = build_profile(syscall_names(args.table.read_text()))
    args.out.write_text(json.dumps(profile, indent=1) + "\n")
    print(f"{args.out}: {len(profile['syscalls'][0]['names'])} calls allowed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
