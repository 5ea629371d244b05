"""Precompiled headers for the C++ runtime, built at start-up into a folder no job can write.

Most of a C++ compile is parsing the standard headers the job's file starts with. Each runtime
may name the leading directive blocks its jobs usually start with (`runtimes.Preamble`: the
macros defined before the first include, then the headers, as smolscript's harness renders
them); the service compiles each block once at start-up into a GCC precompiled header, with
the runtime's own compile flags, into `<jobs dir>/prebuilt` (owned by the service, mode 0755,
files 0444; the slot uids cannot write it), and binds that folder read-only at /prebuilt in
compile sandboxes only.

A job uses a precompiled header only when its main file opens with exactly that block
(`leading_block`: `//` comments and blank lines aside, the same `#define` lines and then the
same `#include <...>` lines in the same order, nothing else before the first other line);
its compile then gets `-I /prebuilt/<block>`, where GCC finds `<first header>.gch` at the
first include. GCC itself checks the header against the compile (flags, compiler, the macros
defined before it) and falls back to the text headers when anything differs. What the
compiler then sees is the same sequence of definitions as without it, so the binary is the
same, byte for byte (start-up checks this on a probe; `benchmarks/bench_smolscript_compile.py`
on every C++ source of the validation). Only the "In file included from" notes of a
diagnostic that points into a standard header name the precompiled block instead of the
job's line.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from smolscript_sandbox.errors import SandboxInfraError

PREBUILT_MOUNT = "/prebuilt"
BUILD_TIMEOUT_S = 120
_DEFINE = re.compile(r"#define ([A-Za-z_][A-Za-z0-9_]*) ([A-Za-z_][A-Za-z0-9_]*)")
_INCLUDE = re.compile(r"#include <([A-Za-z0-9_./+-]+)>")
# Characters a line of the leading block may hold: printable ASCII and tab, without the
# backslash (a line continuation would join the next line to a comment or a directive) and
# without `?` (a trigraph `??/` is a backslash where trigraphs are on).
_PLAIN_LINE = re.compile(r"[\t !-/0-9:-=>@-\[\]-~]*")


@dataclass(frozen=True)
class Preamble:
    """A leading directive block: macros (name, replacement) defined first, then headers
    included in this order."""

    defines: tuple[tuple[str, str], ...]
    headers: tuple[str, ...]

    @property
    def key(self) -> str:
        """A stable name for the block (a digest of its lines)."""
        return hashlib.sha256(repr((self.defines, self.headers)).encode()).hexdigest()[:16]


def leading_block(text: str) -> Preamble | None:
    """The directive block `text` opens with, or None when its first lines are anything but
    `//` comments, blank lines, `#define NAME NAME` lines and then `#include <header>` lines
    (at least one) in plain ASCII. Pure."""
    defines: list[tuple[str, str]] = []
    headers: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        define = _DEFINE.fullmatch(stripped)
        include = _INCLUDE.fullmatch(stripped)
        in_block = (not stripped or stripped.startswith("//") or include is not None
                    or (define is not None and not headers))
        if not in_block:
            break
        if not _PLAIN_LINE.fullmatch(line):
            return None
        if define is not None:
            defines.append((define.group(1), define.group(2)))
        elif include is not None:
            headers.append(include.group(1))
    if not headers:
        return None
    return Preamble(tuple(defines), tuple(headers))


@dataclass(frozen=True)
class Built:
    """One precompiled header: its folder (host path), the name of its sandbox folder and the
    sha256 of the header file."""

    runtime: str
    preamble: Preamble
    folder: Path
    sha256: str


@dataclass
class PrebuiltSet:
    """The precompiled headers in force (empty: none) and their host folder."""

    root: Path | None = None
    built: dict[tuple[str, Preamble], Built] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def compile_args(self, runtime: str, main_text: str) -> tuple[str, ...]:
        """Extra compiler arguments for a job of `runtime` whose main file is `main_text`:
        `-I /prebuilt/<folder>` when the file opens with a precompiled block, else none."""
        if not self.built:
            return ()
        block = leading_block(main_text)
        found = self.built.get((runtime, block)) if block is not None else None
        if found is None:
            return ()
        return ("-I", f"{PREBUILT_MOUNT}/{found.folder.name}")

    def binds(self) -> dict[str, str]:
        """Read-only binds of compile sandboxes (host path -> sandbox path)."""
        return {str(self.root): PREBUILT_MOUNT} if self.built and self.root else {}

    def health(self) -> dict:
        """What /health reports."""
        return {
            "folder": str(self.root) if self.root else None,
            "mount": PREBUILT_MOUNT,
            "headers": [
                {"runtime": b.runtime, "defines": [list(d) for d in b.preamble.defines],
                 "headers": list(b.preamble.headers), "sha256": b.sha256}
                for b in self.built.values()
            ],
            "errors": list(self.errors),
        }


_PREBUILT = [PrebuiltSet()]


def configure(prebuilt: PrebuiltSet) -> None:
    """Set the service-wide precompiled headers (once, at start-up)."""
    _PREBUILT[0] = prebuilt


def current() -> PrebuiltSet:
    """The precompiled headers in force (none before start-up)."""
    return _PREBUILT[0]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _run(argv: list[str], what: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=BUILD_TIMEOUT_S, check=False,
                              cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxInfraError(f"{what}: {exc}") from exc
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()[-1000:]
        raise SandboxInfraError(f"{what} failed: {detail}")
    return done


def build_one(compiler: str, flags: tuple[str, ...], runtime: str, preamble: Preamble,
              root: Path) -> Built:
    """Compile `preamble` into `root/<runtime>-<key>/<first header>.gch` with `flags` (the
    runtime's own), then prove it: a probe compiled with it must use it (`-H` marks it `!`)
    and give the same binary as without it. Raises SandboxInfraError otherwise."""
    folder = root / f"{runtime}-{preamble.key}"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    # The macros defined before the first include are the header's starting state (-D), its
    # text is the includes; named relative to `root`, so that a diagnostic's "included from"
    # note names `<runtime>-<key>/preamble.h`, never a host path.
    source = folder / "preamble.h"
    source.write_text("".join(f"#include <{h}>\n" for h in preamble.headers), encoding="utf-8")
    os.chmod(source, 0o444)
    defines = [f"-D{name}={value}" for name, value in preamble.defines]
    target = folder / f"{preamble.headers[0]}.gch"
    relative = str(source.relative_to(root))
    _run([compiler, *flags, *defines, "-x", "c++-header", "-o", str(target), relative],
         f"precompiling {runtime} {preamble.headers}", cwd=root)
    os.chmod(target, 0o444)
    with tempfile.TemporaryDirectory(prefix="pch-probe-") as tmp:
        probe = Path(tmp) / "probe.cpp"
        probe.write_text(
            "".join(f"#define {n} {v}\n" for n, v in preamble.defines)
            + "".join(f"#include <{h}>\n" for h in preamble.headers)
            + "".join(f"#undef {n}\n" for n, _ in preamble.defines)
            + "int main() { return 0; }\n",
            encoding="utf-8",
        )
        plain, with_pch = Path(tmp) / "plain", Path(tmp) / "pch"
        _run([compiler, *flags, "-o", str(plain), str(probe)], "the plain probe compile")
        done = _run([compiler, *flags, "-H", "-I", str(folder), "-o", str(with_pch), str(probe)],
                    "the precompiled-header probe compile")
        if f"! {target}".encode() not in done.stderr:
            raise SandboxInfraError(f"{target}: the compiler does not use it")
        if plain.read_bytes() != with_pch.read_bytes():
            raise SandboxInfraError(f"{target}: the probe's binary differs from the plain one")
    return Built(runtime, preamble, folder, _sha256(target))


def remove(prebuilt: PrebuiltSet) -> None:
    """Remove the service's precompiled headers (at stop: they live on /run, in memory)."""
    if prebuilt.root is not None:
        shutil.rmtree(prebuilt.root, ignore_errors=True)
    configure(PrebuiltSet())


def build_all(root: Path, specs: dict[str, tuple[str, tuple[str, ...], tuple[Preamble, ...]]]
              ) -> PrebuiltSet:
    """Build every runtime's preambles (`specs`: runtime -> (compiler, flags, preambles)) into a
    fresh `root` (anything there before is removed first: nothing from an earlier run is
    trusted). A preamble that fails is left out and named in `errors` (its jobs compile
    without it, as before); the service starts either way."""
    if root.is_symlink() or root.exists():
        if root.is_symlink() or not root.is_dir():
            root.unlink()
        else:
            shutil.rmtree(root)
    root.mkdir(mode=0o755)
    os.chmod(root, 0o755)
    result = PrebuiltSet(root=root)
    for runtime, (compiler, flags, preambles) in specs.items():
        for preamble in preambles:
            try:
                built = build_one(compiler, flags, runtime, preamble, root)
            except SandboxInfraError as exc:
                result.errors.append(exc.reason)
                continue
            result.built[(runtime, preamble)] = built
    return result
