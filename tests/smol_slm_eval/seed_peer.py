"""The seed's own slm-eval (PyPI `slm-eval` 0.0.1) in its own virtual environment, for tests.

Its module is `slm_eval`; ours is `smol_slm_eval` (renamed in 0.3.0 so that both can be
installed together: test_coexistence.py), but the seed still gets a venv of its own, so that
its dependency pins never move the workspace's. The venv lives under the user's cache
(`$XDG_CACHE_HOME/smol-envs/seed-slm-eval/0.0.1`, or `$SLM_EVAL_SEED_VENV`), is built once with
pip from PyPI and reused after; one process at a time builds it (a file lock beside it), so
pytest-xdist workers never build it twice at once. `run_seed` drives it offline against a local
completions endpoint on local data files: the seed's task YAMLs are included with
`dataset_path: json` and `data_files`, through `--include_path`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from filelock import FileLock

T = TypeVar("T")

SEED_REQUIREMENT = "slm-eval[api,math]==0.0.1"
# The seed's BFCL tasks read their data from an installed bfcl_eval; its Tier 1 needs none of
# bfcl_eval's (heavy) dependencies, so it is installed without them, at our pinned version.
BFCL_REQUIREMENT = "bfcl-eval==2026.3.23"
SEED_VERSION = "0.0.1"

# Run inside the seed's venv: evaluate the local tasks, write results and samples as JSON.
DRIVER = r"""
import json, sys
from slm_eval import simple_evaluate
from slm_eval.tasks import TaskManager
folder, base_url, model, tasks, out = sys.argv[1:6]
limit = int(sys.argv[6]) if len(sys.argv) > 6 else None
results = simple_evaluate(
    model="local-completions",
    model_args=(f"model={model},base_url={base_url}/completions,tokenizer_backend=remote,"
                "tokenized_requests=False,num_concurrent=1,max_retries=1"),
    tasks=tasks.split(","), task_manager=TaskManager(include_path=folder), log_samples=True,
    batch_size=1, limit=limit)
samples = {t: sorted(s, key=lambda x: x["doc_id"]) for t, s in results["samples"].items()}
keep = {k: results[k] for k in ("results", "configs", "versions", "n-shot") if k in results}
json.dump({"summary": keep, "samples": samples}, open(out, "w"), default=str)
"""


def venv_dir() -> Path:
    """Where the seed's venv lives (created by `seed_python`)."""
    if os.environ.get("SLM_EVAL_SEED_VENV"):
        return Path(os.environ["SLM_EVAL_SEED_VENV"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "smol-envs" / "seed-slm-eval" / SEED_VERSION


def seed_python() -> Path:
    """The seed venv's python, building the venv from PyPI on first use (a few minutes).

    Raises:
        RuntimeError: venv creation or pip failed (the pip output tail is in the message).
        filelock.Timeout: another process held the build lock for 30 minutes.
    """
    folder = venv_dir()
    python = folder / "bin" / "python"
    marker = folder / ".slm-eval-installed"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(folder.parent / f"{folder.name}.lock", timeout=1800):
        if marker.is_file() and python.is_file():
            return python
        steps = [[shutil.which("python3") or sys.executable, "-m", "venv", str(folder)],
                 [str(python), "-m", "pip", "install", "-q", SEED_REQUIREMENT],
                 [str(python), "-m", "pip", "install", "-q", "--no-deps", BFCL_REQUIREMENT]]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                raise RuntimeError(f"building the seed venv failed: {' '.join(step)}\n"
                                   f"{done.stderr[-2000:]}")
        marker.write_text(f"{SEED_REQUIREMENT}\n{BFCL_REQUIREMENT}\n")
    return python


def seed_tasks_dir(python: Path) -> Path:
    """The seed's installed `tasks/slm` folder (its YAMLs and utils.py)."""
    done = subprocess.run([str(python), "-c", "import slm_eval, os; "
                           "print(os.path.dirname(slm_eval.__file__))"],
                          capture_output=True, text=True, check=True, timeout=120)
    return Path(done.stdout.strip()) / "tasks" / "slm"


def local_task_yaml(folder: Path, seed_yaml: Path, task: str, split: str | None = None,
                    data: Path | None = None) -> str:
    """Write `<task>_local.yaml` including the seed's YAML, with local data files when given
    (BFCL's tasks read the installed bfcl_eval themselves); returns the task's name."""
    name = f"{task}_local"
    text = f"include: {seed_yaml}\ntask: {name}\ntag: []\n"
    if data is not None:
        text += (f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n"
                 f"    {split}: {data}\n")
    (folder / f"{name}.yaml").write_text(text)
    return name


def run_seed(python: Path, folder: Path, base_url: str, model: str, tasks: list[str],
             limit: int | None = None) -> dict:
    """Run the seed on `tasks` (local YAML names in `folder`), the first `limit` rows of each
    (all when None); {"summary", "samples"}.

    Raises:
        RuntimeError: the seed's run failed (its stderr tail is in the message).
    """
    driver, out = folder / "seed_driver.py", folder / "seed_out.json"
    driver.write_text(DRIVER)
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(folder / "hf_cache"), "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run([str(python), str(driver), str(folder), base_url, model,
                           ",".join(tasks), str(out), *([str(limit)] if limit else [])],
                          capture_output=True, text=True,
                          timeout=3000, env=env, cwd=folder)
    if done.returncode != 0:
        raise RuntimeError(f"the seed's run failed:\n{done.stderr[-3000:]}")
    return json.loads(out.read_text())


def run_script_beside(python: Path, folder: Path, driver: str, args: list[str],
                      work: Callable[[], T], timeout: float) -> tuple[int, str, T]:
    """Run the script `driver` (text, written to `folder/driver.py`) under the seed venv's
    `python` with `args` while `work()` runs in this process, then wait for it: the two sides of
    a comparison computed at once (on 2 cores, the time of the slower instead of their sum).

    Returns (exit status, stderr tail of at most 3,000 characters, what `work` returned).
    Raises subprocess.TimeoutExpired (after killing the script) when it is still running
    `timeout` seconds after `work` returned; an exception of `work` propagates after the
    script is killed.
    """
    (folder / "driver.py").write_text(driver)
    with open(folder / "driver.err", "w+") as err:
        process = subprocess.Popen([str(python), str(folder / "driver.py"), *args],
                                   stdout=subprocess.DEVNULL, stderr=err, text=True)
        try:
            result = work()
            status = process.wait(timeout=timeout)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        err.seek(0)
        return status, err.read()[-3000:], result
