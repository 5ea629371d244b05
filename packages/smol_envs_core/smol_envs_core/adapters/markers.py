"""The one table of end-of-turn and special-token markers, and the function that strips them.

Servers often leave a chat template's end-of-turn marker, or a special token spelled out as
text, after the answer (`...</answer><|im_end|>`). Every environment removes them the same way:
only at the very end of a completion, so that a marker spelled inside an answer or inside code
(`</s>` is HTML's strikethrough close tag) is never cut. Pure.
"""

from __future__ import annotations

from collections.abc import Collection

# Marker -> the tokenizer families that emit it as text (from their tokenizer configs).
END_OF_TURN_MARKERS: dict[str, str] = {
    "<|im_end|>": "ChatML end of turn (SmolLM2, Qwen, many fine-tunes)",
    "<|im_start|>": "ChatML start of the next turn",
    "<|endoftext|>": "GPT-2 / SmolLM / Qwen / StarCoder end of text",
    "<|eot_id|>": "Llama 3 end of turn",
    "<|eom_id|>": "Llama 3 end of message (tool call follows)",
    "<|end_of_text|>": "Llama 3 end of text",
    "<|end|>": "Phi-3 end of turn; OpenAI harmony end of message",
    "<|return|>": "OpenAI harmony end of final answer",
    "<|file_separator|>": "CodeGemma file separator",
    "<|fim_pad|>": "Qwen2.5-Coder FIM padding",
    "<end_of_turn>": "Gemma end of turn",
    "<eos>": "Gemma end of sequence",
    "<|END_OF_TURN_TOKEN|>": "Cohere Command-R end of turn",
    "<\uff5cend\u2581of\u2581sentence\uff5c>": "DeepSeek end of sentence",
    "</s>": "Llama 2 / Mistral / T5 end of sequence (also HTML's strikethrough close tag)",
}

# Markers of the `<|...|>` kinds can be cut short by a token budget (`...<|im_e`): a trailing
# proper prefix of one of them (two characters or more) is removed too. Other markers are removed
# only whole, since `</` or `<e` may be the start of markup or code.
_PARTIAL_OK = tuple(m for m in END_OF_TURN_MARKERS if m.startswith(("<|", "<\uff5c")))


_LONGEST = max(map(len, END_OF_TURN_MARKERS))
# Last character -> the markers ending with it, in table order (a lookup, not a scan).
_BY_LAST: dict[str, tuple[str, ...]] = {
    end: tuple(m for m in END_OF_TURN_MARKERS if m.endswith(end))
    for end in {marker[-1] for marker in END_OF_TURN_MARKERS}
}
# Proper prefix (>= 2 chars) -> the `<|...|>` markers it begins.
_PREFIX_OF: dict[str, tuple[str, ...]] = {}
for _marker in _PARTIAL_OK:
    for _size in range(2, len(_marker)):
        _PREFIX_OF.setdefault(_marker[:_size], ())
        _PREFIX_OF[_marker[:_size]] += (_marker,)


def _partial_suffix(text: str, keep: Collection[str]) -> int:
    """Length of a trailing proper prefix (>= 2 chars) of a `<|...|>` marker, else 0."""
    start = text.rfind("<", max(0, len(text) - _LONGEST))
    if start < 0:
        return 0
    markers = _PREFIX_OF.get(text[start:], ())
    return len(text) - start if any(m not in keep for m in markers) else 0


def strip_end_of_turn(text: str, keep: Collection[str] = ()) -> str:
    """Remove end-of-turn markers (and whitespace between them) from the very end of `text`.

    Args:
        text: a completion's text.
        keep: markers that are legal text in the task's language (for HTML: `</s>`); they are
            never removed.

    Returns:
        `text` without its trailing run of markers; the whitespace before the first removed
        marker is kept, markers anywhere else are kept. `"a</answer>\\n<|im_end|>"` gives
        `"a</answer>\\n"`; `"a<|im_end|>b"` is returned unchanged.
    """
    end = len(text)
    while True:
        body = text[:end].rstrip()
        if "<" not in body[-_LONGEST:]:
            return text[:end]  # no marker, whole or partial, can end here
        for marker in _BY_LAST.get(body[-1:], ()):
            if marker not in keep and body.endswith(marker):
                end = len(body) - len(marker)
                break
        else:
            size = _partial_suffix(body, keep)
            if not size:
                return text[:end]
            end = len(body) - size
