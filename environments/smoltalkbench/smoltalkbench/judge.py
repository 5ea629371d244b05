"""Pure judge logic of SmolTalkBench: prompt building, pair order, verdict parsing, length penalty.

The judge is a pairwise preference in the manner of AlpacaEval 2.0's weighted annotator
(tatsu-lab/alpaca_eval, Apache-2.0; Dubois et al. 2024, "Length-Controlled AlpacaEval"): the
evaluator sees the instruction and two outputs labelled `m` and `M`, answers with one identifier
token, and the preference is read from the top-5 logprobs of that token, normalised over the two
identifiers. Which output gets which label is a seeded hash of the instruction *and the reply*
(`reply_label`): reproducible, but not a label a policy can learn per prompt (AlpacaEval fixes
its order per instruction, which a policy trained on repeated prompts can learn). With
`both_orders` the reply is judged under each label and the two preferences are averaged
(`combine_orders`; AlpacaEval's and Arena-Hard's remedy for position bias). The length penalty
is WildBench's rule (allenai/WildBench, Lin et al. 2024): a reply more than K characters longer
than the reference is at best a tie.

The prompt text is our own, written to that structure; it lives in `prompts/` beside this module.
It is rendered in one pass over the template (`render`): inserted text is never scanned again,
so a reply holding `{output_M}` shows those characters, not the reference. Each section is
fenced by tags carrying a per-judgement code (`fence_tag`) that model text cannot contain, and
model text is neutralised first (`neutralize.py`: invisible characters, look-alike tags,
prompt-like headings). A verdict is read only where the two labels hold at least
`DEFAULT_MIN_LABEL_MASS` of the judge's probability; otherwise `judge_client` re-asks once and
books the outcome by the rule in the README ("No verdict").
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

from smoltalkbench import neutralize as neutral

IDENTIFIERS = ("m", "M")
DEFAULT_LENGTH_PENALTY_CHARS = 500
TIE = 0.5
# A verdict is read only when P(m) + P(M) among the top logprobs reaches this share: below it
# the judge was more likely doing something else (reasoning, refusing, obeying a reply) than
# answering, and the normalised ratio is an artefact (README, "No verdict").
DEFAULT_MIN_LABEL_MASS = 0.5
# The constrained re-ask: every label token gets this logit bias (OpenAI's documented maximum,
# "should result in exclusive selection"); as both labels get the same bias, the ratio
# P(m) / P(M) is the judge's own.
LABEL_BIAS = 100
REASK_TOP_LOGPROBS = 20  # OpenAI's maximum: find both labels' logprobs under the constraint
SLOTS = ("instruction", "output_m", "output_M", "tag")
_SLOT = re.compile(r"\{([A-Za-z_]+)\}")


@cache
def prompt_templates() -> tuple[str, str]:
    """(system message, user template) read from the package's prompt files."""
    folder = resources.files("smoltalkbench") / "prompts"
    system = (folder / "judge_system.txt").read_text(encoding="utf-8").strip()
    user = (folder / "judge_user.txt").read_text(encoding="utf-8").strip()
    return system, user


@cache
def reask_text() -> str:
    """The user turn of an unconstrained re-ask (`judge_label_bias` "none")."""
    folder = resources.files("smoltalkbench") / "prompts"
    return (folder / "judge_reask.txt").read_text(encoding="utf-8").strip()


def render(template: str, slots: dict[str, str]) -> str:
    """`template` with each `{name}` replaced by `slots[name]`, in one pass over the template.

    Inserted text is never scanned again, so slot names inside values stay literal. Raises
    KeyError for a `{name}` in the template that `slots` lacks. Pure.
    """
    return _SLOT.sub(lambda m: slots[m.group(1)], template)


def fence_tag(instruction: str, seed: int = 0) -> str:
    """The code carried by the section fences of one judgement: 12 hex digits of SHA-256 over
    the seed and the instruction (reproducible; a reply cannot know it in advance)."""
    return hashlib.sha256(f"smoltalkbench-fence:{seed}:{instruction}".encode()).hexdigest()[:12]


def reply_label(instruction: str, seed: int = 0, reply: str = "") -> str:
    """Identifier (`m` or `M`) under which the model's reply is shown.

    The lowest bit of SHA-256 over the seed, the instruction and the reply (the answer as
    passed to `build_prompt`), so that about half the judgements show the reply first, the
    same reply always gets the same label (reproducible verdicts), and a policy cannot learn
    which label its reply will carry for a prompt (each different reply is a new draw). The
    reference gets the other label.
    """
    digest = hashlib.sha256(f"smoltalkbench:{seed}:{instruction}\x00{reply}".encode()).digest()
    return IDENTIFIERS[digest[-1] & 1]


def other_label(label: str) -> str:
    """The identifier that is not `label`."""
    if label not in IDENTIFIERS:
        raise ValueError(f"label must be one of {IDENTIFIERS}, got {label!r}")
    return IDENTIFIERS[1 - IDENTIFIERS.index(label)]


def neutralize(text: str, tag: str = "", specials: Sequence[str] = ()) -> str:
    """Model or user text made safe to embed in the judge prompt (`neutralize.neutralize` with
    this prompt's headings): invisible characters and `tag` removed, the `<` of any section tag
    or look-alike of one (`</answer>`, `＜/аnswer>`, ...) replaced by `‹`, chat-template control
    tokens (`<|im_start|>`, `<start_of_turn>`, `[INST]`, ... and `specials`, the skeletons of
    the judge tokenizer's own) broken, headings that imitate the prompt's escaped with a
    backslash. `{` and `}` stay as they are (`render` never re-reads inserted text)."""
    return neutral.neutralize(text, tag, _prompt_titles(), specials)


@cache
def _prompt_titles() -> tuple[str, ...]:
    return neutral.heading_titles(prompt_templates()[1])


@dataclass(frozen=True)
class JudgePrompt:
    """One judgement's request and exactly what the judge sees of each text.

    messages: [system, user] chat messages; label: the reply's identifier; tag: the fence code;
    instruction, reply, reference: the neutralised texts as inserted in their sections (the
    length rule counts `reply` and `reference`).
    """

    messages: list[dict[str, str]]
    label: str
    tag: str
    instruction: str
    reply: str
    reference: str


def build_prompt(instruction: str, reply: str, reference: str, seed: int = 0,
                 label: str | None = None, specials: Sequence[str] = ()) -> JudgePrompt:
    """The judge's request for (instruction, reply, reference): texts neutralised (`specials`:
    the judge tokenizer's special-token skeletons), the reply under `label` (default
    `reply_label(instruction, seed, reply)`), the template rendered in one pass. Pure; raises
    ValueError for a label that is not an identifier."""
    system, template = prompt_templates()
    label = reply_label(instruction, seed, reply) if label is None else label
    other_label(label)  # raises for a bad label
    tag = fence_tag(instruction, seed)
    seen = {name: neutralize(text, tag, specials) for name, text in
            (("instruction", instruction), ("reply", reply), ("reference", reference))}
    outputs = {label: seen["reply"], other_label(label): seen["reference"]}
    user = render(template, {"instruction": seen["instruction"], "output_m": outputs["m"],
                             "output_M": outputs["M"], "tag": tag})
    return JudgePrompt([{"role": "system", "content": system},
                        {"role": "user", "content": user}], label, tag, **seen)


def build_messages(
    instruction: str, reply: str, reference: str, seed: int = 0, label: str | None = None
) -> tuple[list[dict[str, str]], str]:
    """([system, user] chat messages, reply_label) of `build_prompt`."""
    prompt = build_prompt(instruction, reply, reference, seed, label)
    return prompt.messages, prompt.label


# `judge_label_bias` "auto": the ids are read from the judge server's tokenizer
# (`JudgeClient.label_bias`) and the mode becomes `ids_mode(...)`, or "none" without one.
AUTO = "auto"


def label_bias_params(mode: str) -> dict | None:
    """Request fields of the constrained re-ask for a `judge_label_bias` mode.

    "none": None (the re-ask adds a reminder turn instead); "tokens": llama-cpp-python's
    `logit_bias` keyed by the label texts with `logit_bias_type: "tokens"`; "ids:A,B;C,D": the
    OpenAI form, token ids of `m` (A, B) and of `M` (C, D), each biased by LABEL_BIAS. "auto"
    is resolved by the client first (`ids_mode`). Raises ValueError naming the valid forms.
    """
    if mode == "none":
        return None
    if mode == "tokens":
        return {"logit_bias": {label: LABEL_BIAS for label in IDENTIFIERS},
                "logit_bias_type": "tokens"}
    match = re.fullmatch(r"ids:(\d+(?:,\d+)*);(\d+(?:,\d+)*)", mode)
    if match is None:
        raise ValueError(f"judge_label_bias must be 'none', 'tokens', 'auto' or 'ids:<ids of "
                         f"m>;<ids of M>' (comma-separated token ids), got {mode!r}")
    ids = [i for group in match.groups() for i in group.split(",")]
    return {"logit_bias": {i: LABEL_BIAS for i in ids}}


def ids_mode(ids_m: Sequence[int], ids_big_m: Sequence[int]) -> str:
    """The "ids:A,B;C,D" mode of the labels' token ids (`m`'s, then `M`'s), as a judge
    server's `/tokenize` gives them. Pure; raises ValueError for an empty or non-integer list
    (a tokenizer that gave no ids cannot be constrained)."""
    groups = []
    for ids in (ids_m, ids_big_m):
        if not ids or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0
                              for i in ids):
            raise ValueError(f"label token ids must be non-empty lists of ids, got {ids!r}")
        groups.append(",".join(str(i) for i in ids))
    return "ids:" + ";".join(groups)


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


def clean_top_logprobs(entries: Sequence[tuple[object, object]] | None, keep: int | None = TOP_K
                       ) -> tuple[list[tuple[str, float]] | None, str | None]:
    """Check the raw (token, logprob) pairs of a judge reply; keep the `keep` most probable
    (all when None).

    Returns (pairs, None), or (None, reason) when the reply is malformed: no entries, a token
    that is missing or not a string, or a logprob that is missing, not a number, NaN or
    positive. An empty token text is a real answer: llama-cpp-python spells a control token
    (`<|im_end|>`) as "" (measured: SmolLM2 shown a reply holding broken ChatML tokens puts its
    top token there); it counts as probability off the labels, never as a judge failure a
    reply could trigger. llama.cpp appends the sampled token when it is outside the top k,
    hence the cut. Never raises.
    """
    if not entries:
        return None, "judge reply has no logprobs"
    pairs = []
    for token, logprob in entries:
        if not isinstance(token, str):
            return None, f"malformed judge logprobs: token {token!r}"
        if isinstance(logprob, bool) or not isinstance(logprob, int | float):
            return None, f"malformed judge logprobs: logprob {logprob!r} for token {token!r}"
        if math.isnan(logprob) or logprob > 1e-6:
            return None, f"malformed judge logprobs: logprob {logprob!r} for token {token!r}"
        pairs.append((token, float(logprob)))
    return sorted(pairs, key=lambda pair: -pair[1])[:keep], None


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
    """Outcome of parsing one judge reply: a preference for the model's reply (raw_win_prob),
    an endpoint failure (`error`: malformed or missing logprobs, an infrastructure failure), or
    an answer without a usable verdict (`no_verdict`: its reason)."""

    raw_win_prob: float | None
    error: str | None = None
    p_m: float = 0.0
    p_M: float = 0.0  # noqa: N815
    no_verdict: str | None = None
    overflow: bool = False
    """The request exceeded the judge's context (`error` says so): the control pair decides
    whether the reply or the judge is to blame."""

    @property
    def label_mass(self) -> float:
        """P(m) + P(M) as read."""
        return self.p_m + self.p_M


def _tokens(pairs: Sequence[tuple[str, float]]) -> str:
    return ", ".join(f"{t!r} {math.exp(lp):.2g}" for t, lp in pairs)


def parse_verdict(top_logprobs: Sequence[tuple[object, object]] | None, label: str,
                  min_label_mass: float = DEFAULT_MIN_LABEL_MASS) -> Verdict:
    """Probability that the reply (shown as `label`) beats the reference, from the top logprobs.

    Normalised over the two identifiers: P(label) / (P(m) + P(M)). When only one identifier is in
    the top 5 the other counts as 0, so the result is 0.0 or 1.0. Returns a Verdict with an
    `error` when the logprobs are missing or malformed (`clean_top_logprobs`), and one with
    `no_verdict` when P(m) + P(M) < min_label_mass (neither identifier present included).
    Never raises.
    """
    top_logprobs, error = clean_top_logprobs(top_logprobs)
    if error:
        return Verdict(raw_win_prob=None, error=error)
    probs = identifier_probs(top_logprobs)
    mass = probs.m + probs.M
    if mass <= 0.0 or mass < min_label_mass:
        return Verdict(raw_win_prob=None, p_m=probs.m, p_M=probs.M, no_verdict=(
            f"label mass {mass:.2g} < {min_label_mass:g} in top logprobs: "
            f"{_tokens(top_logprobs)}"))
    return Verdict(raw_win_prob=probs.normalized(label), p_m=probs.m, p_M=probs.M)


def parse_constrained(entries: Sequence[tuple[object, object]] | None, label: str,
                      sampled: str | None) -> Verdict:
    """The verdict of a re-ask constrained by `logit_bias`: read when the sampled token is a
    label (the constraint took effect). Every returned entry counts (top 20 and the sampled
    token's own), so both labels' probabilities are found; servers that report logprobs before
    the bias (llama.cpp, vLLM) and after it give the same ratio. No label mass floor: the
    constraint makes the answer a verdict. Never raises.
    """
    pairs, error = clean_top_logprobs(entries, keep=None)
    if error:
        return Verdict(raw_win_prob=None, error=error)
    if sampled is None or label_text(sampled) not in IDENTIFIERS:
        return Verdict(raw_win_prob=None, no_verdict=(
            f"constrained re-ask answered {sampled!r}: the endpoint ignored logit_bias"))
    probs = identifier_probs(pairs)
    if probs.m + probs.M <= 0.0:
        return Verdict(raw_win_prob=None, no_verdict=f"no label among {_tokens(pairs)}")
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
    no_verdict: bool = False
    """The judge answered but gave no usable verdict, even re-asked: booked as the reply's loss."""
    trace_chars: int = 0
    """Characters of the reply's reasoning trace (never judged nor length-counted)."""

    def to_dict(self) -> dict:
        """JSON-serialisable form, as saved with `vf-eval -C judge`."""
        return asdict(self)


def judgement(verdict: Verdict, label: str, reply: str, reference: str, k: int,
              note: str = "") -> Judgement:
    """Combine a parsed verdict with the length penalty into the sample's Judgement.

    `reply` and `reference` are the texts as the judge saw them (`JudgePrompt.reply`,
    `.reference`): the length rule counts those. A verdict with an error, or without a
    probability, gives judge_error=True and scores of 0.0 that the report excludes; `note` is
    added to the reason ("after a constrained re-ask").
    """
    reply_chars, reference_chars = len(reply), len(reference)
    if verdict.error is not None or verdict.raw_win_prob is None:
        return unscored(verdict.error or verdict.no_verdict or "no verdict", reply, reference)
    score, penalized = length_penalty(verdict.raw_win_prob, reply_chars, reference_chars, k)
    reason = "judged" + note + (
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


def combine_orders(results: Sequence[Judgement], k: int) -> Judgement:
    """One Judgement from the same reply judged under each label (`both_orders`).

    A judge error in either order is the result's (the first such); else a reply's loss in
    either order (no verdict, or a context overflow) is the result's; else the raw preferences
    are averaged (position bias cancels: a reply judged against itself gets 0.5 whatever the
    judge's favourite slot) and the length rule applied to the mean. `reply_label` is "both";
    p_m and p_M are the means. Pure; raises ValueError for an empty sequence.
    """
    if not results:
        raise ValueError("combine_orders needs at least one judgement")
    for failed in ([r for r in results if r.judge_error], [r for r in results if r.reason
                                                           and not r.reason.startswith("judged")]):
        if failed:
            return failed[0]
    first = results[0]
    raw = sum(r.raw_win_prob for r in results) / len(results)
    score, penalized = length_penalty(raw, first.reply_chars, first.reference_chars, k)
    orders = ", ".join(f"as {r.reply_label}: {r.raw_win_prob:.3f}" for r in results)
    return Judgement(
        win_prob=score, raw_win_prob=raw, length_penalized=penalized,
        reply_chars=first.reply_chars, reference_chars=first.reference_chars, judge_error=False,
        reason=f"judged in both orders ({orders}), mean" + (
            f"; capped at a tie: reply exceeds reference by > {k} chars" if penalized else ""),
        reply_label="both", p_m=sum(r.p_m for r in results) / len(results),
        p_M=sum(r.p_M for r in results) / len(results),
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


def lost(reason: str, reply: str, reference: str, *, no_verdict: bool = False,
         trace_chars: int = 0) -> Judgement:
    """A sample booked as the reply's loss (0.0, a model outcome, counted in the reward)."""
    return Judgement(
        win_prob=0.0,
        raw_win_prob=0.0,
        length_penalized=False,
        reply_chars=len(reply),
        reference_chars=len(reference),
        judge_error=False,
        reason=reason,
        no_verdict=no_verdict,
        trace_chars=trace_chars,
    )


def empty_reply(reference: str, trace_chars: int = 0) -> Judgement:
    """An empty model reply loses to the reference without a judge call (a model outcome)."""
    return lost("empty reply: scored 0 without a judge call", "", reference,
                trace_chars=trace_chars)


def no_answer(reference: str, trace_chars: int) -> Judgement:
    """A reply whose reasoning trace never closes gave no answer: its loss, without a judge call."""
    return lost("reasoning trace never closed: no answer, scored 0 without a judge call", "",
                reference, trace_chars=trace_chars)
