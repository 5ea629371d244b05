"""Pure judge logic of SmolTalkBench: prompt building, pair order, verdict parsing, length penalty.

The judge is a pairwise preference in the manner of AlpacaEval 2.0's weighted annotator
(tatsu-lab/alpaca_eval, Apache-2.0; Dubois et al. 2024, "Length-Controlled AlpacaEval"): the
evaluator sees the instruction and two outputs labelled `m` and `M`, answers with one identifier
token, and the preference is read from the top-5 logprobs of that token, normalised over the two
identifiers. Which output gets which label is fixed per instruction by a seeded hash, as AlpacaEval
fixes its order per instruction. The length penalty is WildBench's rule (allenai/WildBench,
Lin et al. 2024): a reply more than K characters longer than the reference is at best a tie.

The prompt text is our own, written to that structure; it lives in `prompts/` beside this module.
This module reads no network, clock or environment; `judge_client` does the calling.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources

IDENTIFIERS = ("m", "M")
DEFAULT_LENGTH_PENALTY_CHARS = 500
TIE = 0.5
# Opening or closing tags of the prompt's own sections; model text must not be able to close them.
_DELIMITER = re.compile(r"<(\s*/?\s*)(request|answer)\b", re.IGNORECASE)


@cache
def prompt_templates() -> tuple[str, str]:
    """(system message, user template) read from the package's prompt files."""
    folder = resources.files("smoltalkbench") / "prompts"
    system = (folder / "judge_system.txt").read_text(encoding="utf-8").strip()
    user = (folder / "judge_user.txt").read_text(encoding="utf-8").strip()
    return system, user


def reply_label(instruction: str, seed: int = 0) -> str:
    """Identifier (`m` or `M`) under which the model's reply is shown for this instruction.

    Fixed per (instruction, seed): the lowest bit of SHA-256 over the seed and the instruction,
    so that about half the prompts show the reply first. The reference gets the other label.
    """
    digest = hashlib.sha256(f"smoltalkbench:{seed}:{instruction}".encode()).digest()
    return IDENTIFIERS[digest[-1] & 1]


def other_label(label: str) -> str:
    """The identifier that is not `label`."""
    if label not in IDENTIFIERS:
        raise ValueError(f"label must be one of {IDENTIFIERS}, got {label!r}")
    return IDENTIFIERS[1 - IDENTIFIERS.index(label)]


def neutralize(text: str) -> str:
    """Model or user text made safe to embed: section tags like `</answer>` lose their `<`.

    The `<` of any `<answer`, `</answer`, `<request`, `</request` (any case, spaces allowed) is
    replaced by `‹`, so the text cannot end its section or forge another answer. `{` and `}` are
    left as they are (the template is filled with str.replace, not str.format).
    """
    return _DELIMITER.sub(lambda m: "‹" + m.group(1) + m.group(2), text)


def build_messages(
    instruction: str, reply: str, reference: str, seed: int = 0
) -> tuple[list[dict[str, str]], str]:
    """Chat messages for one judgement and the label the reply was given.

    Returns ([system, user] messages, reply_label). All three texts are neutralised first.
    """
    system, template = prompt_templates()
    label = reply_label(instruction, seed)
    outputs = {label: reply, other_label(label): reference}
    user = (
        template.replace("{instruction}", neutralize(instruction))
        .replace("{output_m}", neutralize(outputs["m"]))
        .replace("{output_M}", neutralize(outputs["M"]))
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}], label


@dataclass(frozen=True)
class IdentifierProbs:
    """Probabilities of the two identifiers among the judge's top logprobs (0.0 when absent)."""

    m: float
    M: float  # noqa: N815 (the identifier itself)

    def normalized(self, label: str) -> float:
        """P(label) / (P(m) + P(M)); requires at least one of them to be positive."""
        total = self.m + self.M
        return (self.m if label == "m" else self.M) / total


# Servers that return raw vocabulary pieces spell whitespace with the tokenizer's own markers:
# byte-level BPE (GPT-2, Llama 3, Qwen, SmolLM) maps space/newline/tab to "Ġ"/"Ċ"/"ĉ";
# SentencePiece (Llama 2, Mistral, Gemma) writes a leading space as "▁" (U+2581) and a newline as
# the byte piece "<0x0A>".
_SPACE_MARKERS = str.maketrans({"\u0120": " ", "\u010a": "\n", "\u0109": "\t", "\u2581": " "})
_BYTE_PIECE = re.compile(r"<0x(?:20|0A|0D|09)>", re.IGNORECASE)
TOP_K = 5


def label_text(token: str) -> str:
    """A judge token as text: tokenizer space markers decoded, surrounding whitespace removed.

    `"ĠM"` (byte-level BPE), `"▁M"` (SentencePiece), `"<0x0A>M"` and `" M"` all give `"M"`.
    Pure.
    """
    return _BYTE_PIECE.sub(" ", token).translate(_SPACE_MARKERS).strip()


def clean_top_logprobs(entries: Sequence[tuple[object, object]] | None
                       ) -> tuple[list[tuple[str, float]] | None, str | None]:
    """Check the raw (token, logprob) pairs of a judge reply; keep the TOP_K most probable.

    Returns (pairs, None), or (None, reason) when the reply is malformed: no entries, a token
    that is missing, not a string or empty, or a logprob that is missing, not a number, NaN or
    positive. llama.cpp appends the sampled token when it is outside the top k, hence the cut.
    Never raises.
    """
    if not entries:
        return None, "judge reply has no logprobs"
    pairs = []
    for token, logprob in entries:
        if not isinstance(token, str) or not token:
            return None, f"malformed judge logprobs: token {token!r}"
        if isinstance(logprob, bool) or not isinstance(logprob, int | float):
            return None, f"malformed judge logprobs: logprob {logprob!r} for token {token!r}"
        if math.isnan(logprob) or logprob > 1e-6:
            return None, f"malformed judge logprobs: logprob {logprob!r} for token {token!r}"
        pairs.append((token, float(logprob)))
    return sorted(pairs, key=lambda pair: -pair[1])[:TOP_K], None


def identifier_probs(top_logprobs: Sequence[tuple[str, float]]) -> IdentifierProbs:
    """Sum the probability of each identifier over its token spellings in the top logprobs.

    `top_logprobs` is [(token text, natural-log probability)] for the judge's first generated
    token. A token counts for `m` or `M` when `label_text` of it equals the identifier (`"m"`,
    `" m"`, `"\\nM"`, `"ĠM"`, `"▁m"`); case matters. Spellings of the same identifier add up.
    """
    sums = {"m": 0.0, "M": 0.0}
    for token, logprob in top_logprobs:
        key = label_text(token)
        if key in sums and math.isfinite(logprob):
            sums[key] += math.exp(logprob)
    return IdentifierProbs(m=sums["m"], M=sums["M"])


@dataclass(frozen=True)
class Verdict:
    """Outcome of parsing one judge reply: a preference for the model's reply, or an error."""

    raw_win_prob: float | None
    error: str | None = None
    p_m: float = 0.0
    p_M: float = 0.0  # noqa: N815


def parse_verdict(top_logprobs: Sequence[tuple[object, object]] | None, label: str) -> Verdict:
    """Probability that the reply (shown as `label`) beats the reference, from the top logprobs.

    Normalised over the two identifiers: P(label) / (P(m) + P(M)). When only one identifier is in
    the top 5 the other counts as 0, so the result is 0.0 or 1.0. Returns a Verdict with an
    `error` (and no probability) when the logprobs are missing or malformed (`clean_top_logprobs`)
    or neither identifier is present. Never raises.
    """
    top_logprobs, error = clean_top_logprobs(top_logprobs)
    if error:
        return Verdict(raw_win_prob=None, error=error)
    probs = identifier_probs(top_logprobs)
    if probs.m + probs.M <= 0.0:
        tokens = ", ".join(repr(t) for t, _ in top_logprobs)
        return Verdict(raw_win_prob=None, error=f"neither 'm' nor 'M' in top logprobs: {tokens}")
    return Verdict(raw_win_prob=probs.normalized(label), p_m=probs.m, p_M=probs.M)


def length_penalty(
    score: float, reply_chars: int, reference_chars: int, k: int
) -> tuple[float, bool]:
    """WildBench's length rule: (score, penalised) with the score capped at a tie if too long.

    When the reply is more than k characters longer than the reference (difference > k), the
    score becomes min(score, 0.5); a difference of exactly k is not penalised.
    """
    if k < 0:
        raise ValueError(f"length penalty threshold must be >= 0 characters, got {k}")
    if reply_chars - reference_chars > k:
        return min(score, TIE), True
    return score, False


@dataclass(frozen=True)
class Judgement:
    """Everything recorded about one sample's judging (stored in the rollout state as a dict)."""

    win_prob: float
    raw_win_prob: float
    length_penalized: bool
    reply_chars: int
    reference_chars: int
    judge_error: bool
    reason: str
    reply_label: str = ""
    p_m: float = 0.0
    p_M: float = 0.0  # noqa: N815

    def to_dict(self) -> dict:
        """JSON-serialisable form, as saved with `vf-eval -C judge`."""
        return asdict(self)


def judgement(verdict: Verdict, label: str, reply: str, reference: str, k: int) -> Judgement:
    """Combine a parsed verdict with the length penalty into the sample's Judgement.

    A verdict with an error gives judge_error=True and scores of 0.0 that the report excludes.
    """
    reply_chars, reference_chars = len(reply), len(reference)
    if verdict.error is not None or verdict.raw_win_prob is None:
        return unscored(verdict.error or "no verdict", reply, reference)
    score, penalized = length_penalty(verdict.raw_win_prob, reply_chars, reference_chars, k)
    reason = "judged" + (
        f"; capped at a tie: reply exceeds reference by > {k} chars" if penalized else ""
    )
    return Judgement(
        win_prob=score,
        raw_win_prob=verdict.raw_win_prob,
        length_penalized=penalized,
        reply_chars=reply_chars,
        reference_chars=reference_chars,
        judge_error=False,
        reason=reason,
        reply_label=label,
        p_m=verdict.p_m,
        p_M=verdict.p_M,
    )


def unscored(reason: str, reply: str, reference: str) -> Judgement:
    """A sample that could not be judged (judge or rollout failure): judge_error=True."""
    return Judgement(
        win_prob=0.0,
        raw_win_prob=0.0,
        length_penalized=False,
        reply_chars=len(reply),
        reference_chars=len(reference),
        judge_error=True,
        reason=reason,
    )


def empty_reply(reference: str) -> Judgement:
    """An empty model reply loses to the reference without a judge call (a model outcome)."""
    return Judgement(
        win_prob=0.0,
        raw_win_prob=0.0,
        length_penalized=False,
        reply_chars=0,
        reference_chars=len(reference),
        judge_error=False,
        reason="empty reply: scored 0 without a judge call",
    )
