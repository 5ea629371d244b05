"""The scoring service as a container: the production settings as the engine applied them, the
limits the kernel enforces, an image without dataset, the CLI start/stop path, and a stratified
sample of the default validation through the container. (The containment and load suites run
against the container too: their `target` fixture.)"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from smolscript import data
from smolscript.errors import EvaluationError
from smolscript.evaluate import evaluate_predictions
from smolscript_builder.validate import validate_full
from smolscript_sandbox.client import SandboxClient

from tests.support.sandbox_targets import CONTAINER_PORT, IMAGE, docker_or_skip
from tests.support.smolscript_sample import stratified_ids

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
GIB = 1024**3


def test_container_runs_with_production_settings(container_target):
    client = docker_or_skip()
    name = f"smolscript-sandbox-{CONTAINER_PORT}"
    info = client.api.inspect_container(name)
    host = info["HostConfig"]
    assert info["Config"]["User"] == "1000:1000"
    assert host["Privileged"] is False
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
    assert "no-new-privileges" in host["SecurityOpt"]
    seccomp = [o for o in host["SecurityOpt"] if o.startswith("seccomp=")]
    assert len(seccomp) == 1 and "pivot_root" in seccomp[0] and "kexec_load" not in seccomp[0]
    assert host["Memory"] == 2 * GIB and host["MemorySwap"] == 2 * GIB
    assert host["NanoCpus"] == 1_000_000_000
    assert host["PidsLimit"] == 512
    assert set(host["Tmpfs"]) == {"/tmp", "/run/smolscript"}
    assert host["MaskedPaths"] == [] and host["ReadonlyPaths"] == []
    # The kernel's view (cgroup v1 here): the limits are really set on the container's cgroup.
    cid = info["Id"]
    memory = Path(f"/sys/fs/cgroup/memory/docker/{cid}/memory.limit_in_bytes")
    pids = Path(f"/sys/fs/cgroup/pids/docker/{cid}/pids.max")
    if memory.exists():
        assert int(memory.read_text()) == 2 * GIB
        assert pids.read_text().strip() == "512"
    # The service inside runs as uid 1000, in container isolation, and names its image by id.
    image_id = client.api.inspect_image(IMAGE)["Id"]
    assert image_id.startswith("sha256:")
    health = container_target.health
    assert health["isolation"] == "bwrap+container"
    assert health["fingerprint"] == f"image:{image_id}"
    status = Path(f"/proc/{info['State']['Pid']}/status").read_text()
    assert "\nUid:\t1000\t1000\t1000\t1000\n" in status


def test_image_holds_only_the_service_and_toolchains():
    """No smolscript package, builder, dataset, reference or hidden test inside the image."""
    client = docker_or_skip()
    script = (
        "import importlib.util as u, os, json\n"
        "mods = [m for m in ('smolscript', 'smolscript_builder', 'verifiers')"
        " if u.find_spec(m)]\n"
        "names = {'smolscript.jsonl', 'solutions.jsonl', 'hidden.jsonl', 'private_tests',"
        " 'selection_manifest.json', 'validation_report.json', 'smolscript_builder',"
        " 'smolscript'}\n"
        "hits = [os.path.join(b, n) for root in ('/opt', '/usr/local', '/srv', '/home', '/tmp',"
        " '/root', '/var') for b, ds, fs in os.walk(root) for n in ds + fs if n in names]\n"
        "hits.remove('/opt/smolscript')\n"  # the service's virtual environment
        "import smolscript_sandbox\n"
        "print(json.dumps({'mods': mods, 'hits': hits}))\n"
    )
    out = client.containers.run(
        IMAGE, entrypoint=["/opt/smolscript/bin/python", "-c", script], network_mode="none",
        user="1000:1000", remove=True,
    )
    assert json.loads(out) == {"mods": [], "hits": []}


def test_cli_starts_and_stops_the_container():
    docker_or_skip()
    port = CONTAINER_PORT + 4
    cli = [sys.executable, "-m", "smolscript_sandbox"]
    started = subprocess.run([*cli, "start", "--container", IMAGE, "--port", str(port)],
                             capture_output=True, text=True, timeout=300, check=False)
    try:
        assert started.returncode == 0, started.stderr
        assert f"http://127.0.0.1:{port}" in started.stdout
        assert "image=sha256:" in started.stdout
        health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).json()
        assert health["fingerprint"] == "image:" + started.stdout.split("image=")[1].strip()
    finally:
        stopped = subprocess.run([*cli, "stop", "--container", "--port", str(port)],
                                 capture_output=True, text=True, timeout=120, check=False)
    assert stopped.stdout.strip() == "stopped"
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)


def test_default_edition_validation_in_container(container_target):
    """The stratified sample of the default edition that the host's
    tests/smolscript/test_sandbox_validation.py validates (one task of every language x
    modality x difficulty, near-miss tasks first: every toolchain, every check role;
    `tests.support.smolscript_sample`), scored by the container with one CPU: every reference
    passes, every negative control, near miss and mutant fails, as on the host. (The whole
    edition took 272 s of the suite here; the full run is
    benchmarks/bench_smolscript_validation.py with `--url` at a container.)"""
    task_ids = set(stratified_ids(data.load_tasks("default"), data.load_references("default")))
    summary = asyncio.run(validate_full(REPO / "data" / "smolscript", url=container_target.url,
                                        start_service=False, task_ids=task_ids))
    assert summary.status == "passed", summary.failure
    assert summary.by_role["reference"] == len(task_ids) == 30
    assert summary.by_role["negative_control"] == len(task_ids)
    assert summary.checks_run == summary.checks_planned
    assert summary.service["fingerprint"] == container_target.health["fingerprint"]
    languages = {t["language"] for t in data.load_tasks("default") if t["id"] in task_ids}
    assert len(languages) == 9  # every language of the edition


def test_resume_refuses_another_scorer(host_target, container_target, tmp_path):
    """A run started on the host service cannot be resumed through the container (and the
    container's run records its image id as the scorer)."""
    refs = data.load_references("default")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": i, "code": r["reference_solution"]}) + "\n"
                             for i, r in refs.items()))
    out = tmp_path / "results.json"

    def stop_after_two(done, _total):
        if done == 2:
            raise KeyboardInterrupt

    def run(url, **kw):
        return evaluate_predictions(preds, out, client_factory=lambda: SandboxClient(url),
                                    languages=["python"], difficulties=["easy"], **kw)

    with pytest.raises(KeyboardInterrupt):
        run(host_target.url, progress=stop_after_two)
    partial = json.loads(out.read_text())
    assert partial["run"]["settings"]["scorer"] == host_target.health["fingerprint"]
    with pytest.raises(EvaluationError, match="scorer"):
        run(container_target.url, resume=True)
    out.unlink()
    doc = run(container_target.url)
    assert doc["status"] == "complete"
    assert doc["run"]["settings"]["scorer"] == container_target.health["fingerprint"]
    assert all(r["passed"] for r in doc["results"].values())
