"""The opt-in shaped reward of pico-dsl-v1, for curricula: partial credit for running the tape.

Exact match (the benchmark's score) is 0 for nearly every reply of a 135M model, which gives a
policy gradient nothing to follow. `shaped_line_similarity` gives partial credit, but only for
the part of the task that is work:

- Lines 1 and 2 (S and reverse(S)) need only the input, and the *copy answer*
  `S, reverse(S), reverse(S), S` is close to gold lines 3 and 4 whenever the tape changes
  little (it earned 0.79 of the earlier mean-similarity reward). So only lines 3 and 4 are
  paid.
- Each is paid relative to the best *tape-blind* answer for it: the copy line, or the copy line
  under a whole-line case change or with every character doubled (`oracle.blind_outputs`;
  line 4's are their reverses), the answers a policy can give without reading the tape. With
  `sim` the predicted line's similarity to the gold line (`metrics.line_similarity`: 1 - Levenshtein
  distance / longer length; a missing line 0) and `base` the best tape-blind answer's,
  `work = max(0, sim - base) / (1 - base)`: 1.0 for the gold line, 0 for anything no closer
  than a tape-blind answer. When a tape-blind answer equals the gold line (`base` = 1; the
  validator keeps such rows out of the packaged benchmark and the generated rows), the line's
  work is 1.0 for the gold line exactly, else 0.
- The reward is the mean work of lines 3 and 4, times 1.0 when the reply has the benchmark's
  form (a trailing `<answer>` block of exactly four lines whose lines 1 and 2 are right), and
  times FORM_FACTOR (0.9) otherwise: the form is never paid on its own, it only scales the
  work's credit.

The lines read are the block's when the reply ends with an `<answer>` block, else the non-empty
lines (stripped) after any reasoning trace, so that a reply without the block still earns credit
for its work; nothing is read from inside a trace, and a trace that never closed earns 0.
Pure; in [0, 1]; 1.0 exactly when `metrics.score_answer` gives exact_match 1.0 (a block of
exactly the four gold lines): four gold lines followed by extra lines, or without the block,
earn FORM_FACTOR. Never reported as the benchmark's score.
"""

from __future__ import annotations

from collections.abc import Sequence

from smol_envs_core.adapters.reasoning import split_reasoning

from .metrics import LINE_COUNT, line_similarity
from .oracle import blind_outputs
from .parse import ParsedAnswer

# Share of the work's credit kept by a reply without the benchmark's form.
FORM_FACTOR = 0.9


def line_work(predicted: str | None, target: str, blind: Sequence[str]) -> float:
    """How far `predicted` goes beyond the best tape-blind answer towards the gold line.

    Args:
        predicted: the reply's line, or None when it is missing.
        target: the gold line.
        blind: the tape-blind answers for this line (non-empty).

    Returns:
        max(0, sim(predicted) - base) / (1 - base) in [0, 1], where sim is the similarity to
        `target` (`metrics.line_similarity`) and base the best sim among `blind`; when a blind
        answer equals `target`, 1.0 if `predicted == target` else 0.0.
    """
    if target in blind:
        return float(predicted == target)
    base = max(line_similarity(answer, target) for answer in blind)
    return max(0.0, line_similarity(predicted, target) - base) / (1.0 - base)


def reply_lines(parsed: ParsedAnswer) -> list[str]:
    """The block's lines, or, without a block, the non-empty lines (stripped) of the reply's
    answer: by the collection's reasoning-trace rule (`smol_envs_core.adapters.reasoning`) nothing
    inside a trace is read, so a trace that never closed gives no lines at all."""
    if parsed.lines is not None:
        return list(parsed.lines)
    answer = split_reasoning(parsed.visible_text).answer
    if answer is None:
        return []
    return [line.strip() for line in answer.split("\n") if line.strip()]


def shaped_line_similarity(parsed: ParsedAnswer, targets: Sequence[str]) -> float:
    """The shaped reward in [0, 1] (see the module docstring): mean work of lines 3 and 4 beyond
    the tape-blind answers, times FORM_FACTOR unless the reply has the benchmark's form.

    Args:
        parsed: output of parse.parse_answer.
        targets: the four gold lines (S, reverse(S), line 3, line 4).

    Raises:
        ValueError: `targets` does not hold four lines.
    """
    if len(targets) != LINE_COUNT:
        raise ValueError(f"expected {LINE_COUNT} target lines, got {len(targets)}")
    lines = reply_lines(parsed)
    predicted = [lines[k] if k < len(lines) else None for k in range(LINE_COUNT)]
    blind3 = blind_outputs(targets[1])
    blind4 = tuple(answer[::-1] for answer in blind3)
    work = (line_work(predicted[2], targets[2], blind3)
            + line_work(predicted[3], targets[3], blind4)) / 2
    has_form = (parsed.has_block and len(lines) == LINE_COUNT
                and predicted[0] == targets[0] and predicted[1] == targets[1])
    return work * (1.0 if has_form else FORM_FACTOR)
