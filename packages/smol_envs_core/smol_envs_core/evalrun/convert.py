"""A Hugging Face checkpoint folder to GGUF, once, with llama.cpp's own converter.

The converter is `convert_hf_to_gguf.py` from the llama.cpp sources vendored in the
llama-cpp-python sdist the workspace builds (0.3.36, `LLAMA_CPP_SDIST_VERSION`): found in uv's
source-distribution cache, else fetched with `pip download llama-cpp-python==0.3.36
--no-binary :all: --no-deps` into the model cache and unpacked. No converter of our own.

It needs torch, transformers and llama.cpp's gguf-py, which the workspace does not: they go
into a venv of their own under the model cache (`converter-venv`, made once with the system
Python's venv and pip, so that pip's own configuration, e.g. a find-links folder holding a CPU
torch wheel, applies). The result is cached by the folder's content hash (sha256 over every
file's relative path and bytes): `<cache>/converted/<hash>.<outtype>.gguf`, written to a
temporary name and renamed once the converter succeeded, under a file lock.

Failures raise `InfrastructureError` (component "model converter") with the converter's output
tail.
"""

from __future__ import annotations

import glob
import hashlib
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from filelock import FileLock

from ..errors import InfrastructureError
from ..server.model_files import cache_dir

COMPONENT = "model converter"
LLAMA_CPP_SDIST_VERSION = "0.3.36"
OUTTYPE = "f32"  # exact for any checkpoint saved in fp32 or dequantized from a GGUF
# What convert_hf_to_gguf.py imports (its requirements file in the same sdist), gguf-py aside.
# torch: $SMOL_ENVS_CONVERTER_TORCH when set (e.g. "torch==2.13.0+cpu" where pip's find-links
# hold that CPU wheel: PyPI's default torch pulls the CUDA libraries, gigabytes the converter
# never uses).
TORCH_VAR = "SMOL_ENVS_CONVERTER_TORCH"
CONVERTER_REQUIREMENTS = ("transformers==4.57.6", "sentencepiece>=0.1.98,<0.3.0",
                          "numpy~=2.2.6", "safetensors", "protobuf>=4.21.0,<5.0.0")
SCRIPT = "vendor/llama.cpp/convert_hf_to_gguf.py"


def folder_sha256(folder: Path) -> str:
    """sha256 over every file under `folder` (relative path, NUL, bytes; sorted by path)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _run(argv: list[str], what: str, timeout_s: float = 3600) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InfrastructureError(COMPONENT, f"{what} failed: {exc}") from None
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-1500:]
        raise InfrastructureError(COMPONENT, f"{what} exited {done.returncode}: {tail}")


def sdist_root() -> Path:
    """The unpacked llama-cpp-python sdist holding the converter: uv's cache, else downloaded
    once into the model cache."""
    uv_cache = Path(os.environ.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    pattern = str(uv_cache / "sdists-v*" / "pypi" / "llama-cpp-python" /
                  LLAMA_CPP_SDIST_VERSION / "*" / "src" / SCRIPT)
    for found in sorted(glob.glob(pattern)):
        return Path(found).parents[2]
    target = cache_dir() / f"llama-cpp-python-{LLAMA_CPP_SDIST_VERSION}"
    if (target / SCRIPT).is_file():
        return target
    download = cache_dir() / "sdist"
    _run([sys.executable, "-m", "pip", "download", f"llama-cpp-python=={LLAMA_CPP_SDIST_VERSION}",
          "--no-binary", ":all:", "--no-deps", "-d", str(download)], "pip download of the sdist")
    archive = next(download.glob("llama_cpp_python-*.tar.gz"), None)
    if archive is None:
        raise InfrastructureError(COMPONENT, f"no llama-cpp-python sdist in {download}")
    with tarfile.open(archive) as tar:
        tar.extractall(download, filter="data")
    next(download.glob("llama_cpp_python-*/")).rename(target)
    return target


def converter_python(sdist: Path) -> Path:
    """The converter venv's python (made once: torch, transformers, gguf-py from `sdist`)."""
    venv = cache_dir() / "converter-venv"
    python = venv / "bin" / "python"
    stamp = venv / ".smol-envs-ready"
    if stamp.is_file():
        return python
    _run(["python3", "-m", "venv", str(venv)], "creating the converter venv")
    torch = os.environ.get(TORCH_VAR) or "torch"
    _run([str(python), "-m", "pip", "install", "-q", torch, *CONVERTER_REQUIREMENTS,
          str(sdist / "vendor" / "llama.cpp" / "gguf-py")], "installing the converter's needs")
    stamp.write_text("ok\n")
    return python


def to_gguf(folder: Path, outtype: str = OUTTYPE) -> Path:
    """The GGUF of the Hugging Face checkpoint `folder` (converted on first use, then cached
    by content hash). Raises InfrastructureError when conversion fails."""
    folder = Path(folder).resolve()
    target = cache_dir() / "converted" / f"{folder_sha256(folder)}.{outtype}.gguf"
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if target.is_file():
            return target
        sdist = sdist_root()
        python = converter_python(sdist)
        partial = target.with_suffix(".partial")
        print(f"smol-envs eval: converting {folder} to GGUF ({outtype}) with llama.cpp's "
              f"convert_hf_to_gguf.py (once; cached as {target.name})", file=sys.stderr)
        _run([str(python), str(sdist / SCRIPT), str(folder), "--outfile", str(partial),
              "--outtype", outtype], "convert_hf_to_gguf.py")
        partial.replace(target)
    return target
