"""`smolscript evaluate --model FOLDER`: the transformers backend, on a real model folder made
from the bundled SmolLM2-135M-Instruct GGUF (transformers' GGUF loader dequantizes it; the
folder is saved as safetensors), and the real scoring service.

Runs only where torch, transformers, gguf and accelerate are installed (the optional
`smolscript[transformers]` extra plus a torch build for the machine); CI has no torch and
skips it, saying so. Measured on a CPU-only torch 2.13 wheel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (optional)")
transformers = pytest.importorskip("transformers", reason="transformers is not installed")
pytest.importorskip("gguf", reason="gguf (to convert the bundled GGUF) is not installed")
pytest.importorskip("accelerate", reason="accelerate (transformers' GGUF loader) is missing")

from smol_envs_core.server.serve import model_path  # noqa: E402
from smolscript import data  # noqa: E402
from smolscript.backends import TransformersBackend, open_backend  # noqa: E402
from smolscript.evaluate_model import evaluate_model  # noqa: E402
from smolscript.models import resolve_model  # noqa: E402
from smolscript.prompts import build_prompt  # noqa: E402
from smolscript_sandbox.client import SandboxClient  # noqa: E402
from smolscript_sandbox.testing import TEST_URL, ensure_service  # noqa: E402

pytestmark = pytest.mark.integration


def gguf_to_folder(gguf: Path, folder: Path) -> Path:
    """Save the GGUF as a transformers model folder (dequantized weights, its tokenizer)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = loaded.config
    if hasattr(config, "quantization_config"):  # a GGUF-loaded model refuses to be saved
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return gguf_to_folder(model_path(), tmp_path_factory.mktemp("smollm2-hf"))


def test_a_batch_is_decoded_together_with_each_row_cut_at_its_limit(folder):
    backend = TransformersBackend(folder, device="cpu")
    tasks = data.load_tasks("default", ["python"], ["easy"])[:3]
    prompts = [build_prompt(t) for t in tasks]
    made = backend.generate(prompts, [24, 12, 24])
    assert [g.new_tokens for g in made][1] <= 12
    for generation, limit in zip(made, [24, 12, 24], strict=True):
        assert generation.text and generation.new_tokens <= limit
        assert generation.hit_limit == (generation.new_tokens == limit)
    # the same prompts one at a time: greedy, so the same first rows (fp32 on CPU)
    alone = backend.generate(prompts[:1], [24])
    assert alone[0].text == made[0].text
    assert backend.describe()["batching"].startswith("batched")


def test_a_model_folder_is_evaluated_end_to_end(folder, tmp_path):
    ensure_service(TEST_URL)
    ref = resolve_model(str(folder))
    backend = open_backend(ref, device="cpu")
    doc = evaluate_model(backend, ref, tmp_path / "r.json",
                         client_factory=lambda: SandboxClient(TEST_URL),
                         languages=["lua"], difficulties=["moderate"], batch_size=2,
                         max_new_tokens=16)
    tasks = data.load_tasks("default", ["lua"], ["moderate"])
    settings = doc["run"]["settings"]
    assert doc["status"] == "complete" and len(doc["results"]) == len(tasks)
    assert settings["model"] == {"kind": "hf_folder", "name": folder.name, "sha256": ref.sha256}
    assert settings["backend"]["backend"] == "transformers"
    assert settings["budgets"] == "max_new_tokens=16"
    # a budget override is a separate experiment: never the official score
    assert doc["summary"]["smolscript_score"] is None
    totals = doc["generation"]["totals"]
    assert totals["completions"] == len(tasks) and totals["final_batch_size"] == 2
    assert totals["hit_limit"] == sum(g["new_tokens"] == 16 for g in doc["generations"].values())
