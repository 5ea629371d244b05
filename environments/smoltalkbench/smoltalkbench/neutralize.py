"""Model and user text made safe to embed in the judge's prompt (pure; used by `judge`).

A reply must not be able to end its own section, forge the other answer or forge a verdict,
whatever characters it uses. Three steps, in order:

1. invisible characters are removed: every format character (Unicode category Cf: zero-width
   space, word joiner, soft hyphen, bidi controls, tag characters that smuggle ASCII) and every
   other Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt: the combining
   grapheme joiner, Hangul fillers, variation selectors). The judge sees the text without them.
2. the per-judgement fence tag (`judge.fence_tag`) is removed wherever it appears, so only the
   prompt's own fences carry it.
3. look-alikes are neutralised on a *skeleton* of the text: each character NFKD-normalised,
   stripped of combining marks (so `<a\u0301nswer` reads `<answer`), lower-cased and mapped to
   the ASCII character it can be confused with (Unicode's confusables.txt, UTS #39, as shipped
   by the `confusable-homoglyphs` package; angle brackets and guillemets of other blocks, which
   it maps elsewhere or not at all, read as `<` and `>`). Where the skeleton spells a section
   tag (`<answer`, `</request`, with any suffix or spaces), the character standing for `<`
   becomes `‹`. Where it spells a chat template's control token (`special_token_spans`: ChatML
   `<|im_start|>`, Llama 3 `<|eot_id|>`, Gemma `<start_of_turn>`, Llama 2 `[INST]`, `<s>`,
   `</s>`, ..., and any spelling the judge's tokenizer reports), its first character becomes
   a look-alike (`‹`, `⁅`), so no tokenizer reads a control token out of model text and the
   reply cannot end its turn or write one for the judge. Where a line is a markdown heading at
   the prompt's own level (`#`, `##`, outside fenced code) or a heading of any level whose
   title holds one of the prompt's own headings ("Your verdict", ...), the heading gets a
   backslash in front. The judge sees the original characters otherwise (NFKD is only used
   to find look-alikes:
   `x²` stays `x²`).

The result is idempotent: neutralising neutralised text changes nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache

NEUTRAL_LT = "\u2039"  # ‹ : what a `<` (or a look-alike) of a section tag becomes
# What the first character of a control-token spelling becomes (by its skeleton character);
# any other first character gets a word joiner after it (removed again on a second pass).
NEUTRAL_FIRST = {"<": NEUTRAL_LT, "[": "\u2045", "{": "\u2983", "|": "\u00a6"}
BREAK = "\u2060"
# Brackets that read as angle brackets but that confusables.txt maps elsewhere or not at all.
_ANGLES = {**dict.fromkeys("\u3008\u27e8\u2329\u276c\u29fc\u227a\u00ab\u300a\u27ea\u2991"
                           "\u29d8\u2770\u276e", "<"),
           **dict.fromkeys("\u3009\u27e9\u232a\u276d\u29fd\u227b\u00bb\u300b\u27eb\u2992"
                           "\u29d9\u2771\u276f", ">")}
# Control tokens of the chat templates the collection can meet, as skeleton patterns (lower
# case): every `<|name|>` (ChatML, Llama 3, Phi, GPT, DeepSeek's full-width bars), the named
# `<name>` tokens of Gemma, Llama 2, GLM, T5 and BERT-like vocabularies, Llama 2 / Mistral's
# `[INST]`-style markers, GLM's `[gMASK]` and `<<SYS>>`.
_SPECIAL = re.compile(
    r"<\|[^<>|\n]{1,64}\|>"
    r"|<\s*/?\s*(?:s|bos|eos|pad|unk|mask|sep|cls|start_of_turn|end_of_turn|start_of_image"
    r"|end_of_image|eot|eom|endoftext|im_start|im_end|turn|bot|eot_id|image_soft_token|sop"
    r"|eop)\s*>"
    r"|<<\s*/?\s*sys\s*>>"
    r"|\[\s*/?\s*(?:inst|sys|system_prompt|available_tools|tool_calls|tool_results|img"
    r"|control_\d+|gmask|smask|mask)\s*\]"
)
# Default_Ignorable_Code_Point outside category Cf (Unicode 15.1 DerivedCoreProperties.txt).
_IGNORABLE = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_TAG = re.compile(r"<\s*/?\s*(?:request|answer)(?![a-z0-9_])")
_ATX = re.compile(r"[ \t]{0,3}(#{1,6})(?:[ \t]|$)(.*)")
_SETEXT = re.compile(r"[ \t]{0,3}(?:=+|-+)[ \t]*")
_CODE_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")


@cache
def _invisible(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char) == "Cf" or any(a <= code <= b for a, b in _IGNORABLE)


def strip_invisible(text: str) -> str:
    """`text` without format characters (Cf) and other default-ignorable code points."""
    return "".join(c for c in text if c < "\x80" or not _invisible(c))


@cache
def _ascii_lookalikes() -> dict[str, str]:
    """{non-ASCII character: the ASCII character it can be confused with}, letters first."""
    from confusable_homoglyphs.confusables import confusables_data  # 900 kB: load on use

    def ascii_glyphs(char: str) -> list[str]:
        glyphs = [g["c"] for g in confusables_data.get(char, ())]
        return sorted((g for g in glyphs if len(g) == 1 and " " < g < "\x7f"),
                      key=lambda g: (not g.isalpha(), g))

    table = {}
    for char, entries in confusables_data.items():
        if len(char) != 1 or char < "\x80":
            continue
        found = ascii_glyphs(char) or [g for e in entries for g in ascii_glyphs(e["c"])]
        if found:
            table[char] = found[0].lower()
    return table


@cache
def skeleton_char(char: str) -> str:
    """The skeleton of one character: NFKD without combining marks, lower case, ASCII
    look-alike where one exists (`_ANGLES` first).

    May be longer than one character (`"ﬁ"` gives `"fi"`) or empty (a combining mark).
    """
    if char < "\x80":
        return char.lower()
    if char in _ANGLES:
        return _ANGLES[char]
    table = _ascii_lookalikes()
    return "".join(c.lower() if c < "\x80" else _ANGLES.get(c) or table.get(c, c.casefold())
                   for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
                   and unicodedata.category(c) not in ("Mn", "Me"))


def skeleton(text: str) -> tuple[str, list[int]]:
    """(skeleton of `text`, index in `text` of the character behind each skeleton position)."""
    parts, owners = [], []
    for index, char in enumerate(text):
        piece = skeleton_char(char)
        parts.append(piece)
        owners.extend([index] * len(piece))
    return "".join(parts), owners


def _title_key(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", skeleton(title)[0])


def heading_titles(template: str) -> tuple[str, ...]:
    """Keys (skeleton letters and digits) of the markdown headings of a prompt template."""
    titles = []
    for line in template.splitlines():
        match = _ATX.fullmatch(line)
        if match and _title_key(match.group(2)):
            titles.append(_title_key(match.group(2)))
    return tuple(titles)


def _remove(text: str, word: str) -> str:
    """`text` without any occurrence of `word` in its skeleton (repeated until none is left)."""
    while word:
        skel, owners = skeleton(text)
        at = skel.find(word)
        if at < 0:
            return text
        drop = set(owners[at: at + len(word)])
        text = "".join(c for i, c in enumerate(text) if i not in drop)
    return text


def _heading_fixes(lines: list[str], titles: Iterable[str]) -> list[int]:
    """Indices of the lines that are headings a reply must not show as headings.

    Inside a fenced code block only headings holding a prompt title count (a `# comment` line
    of Python stays as written).
    """
    titles = tuple(titles)
    fixes, in_code = [], False
    for n, line in enumerate(lines):
        skel = skeleton(line)[0]
        if _CODE_FENCE.match(skel):
            in_code = not in_code
            continue
        atx = _ATX.fullmatch(skel)
        if atx:
            key = _title_key(atx.group(2))
            level_like_prompt = len(atx.group(1)) <= 2 and not in_code
            if level_like_prompt or any(t in key for t in titles if t):
                fixes.append(n)
        elif n and _SETEXT.fullmatch(skel) and lines[n - 1].strip():
            key = _title_key(lines[n - 1])
            if any(t in key for t in titles if t):
                fixes.append(n - 1)
    return fixes


def special_token_spans(skel: str, specials: Iterable[str] = ()) -> list[tuple[int, int]]:
    """(start, end) in the skeleton `skel` of every control-token spelling: the fixed patterns
    (`_SPECIAL`) and each of `specials` (a tokenizer's own special tokens, as skeletons)."""
    spans = [m.span() for m in _SPECIAL.finditer(skel)]
    for word in specials:
        at = skel.find(word) if word else -1
        while at >= 0:
            spans.append((at, at + len(word)))
            at = skel.find(word, at + 1)
    return spans


def special_skeletons(tokens: Iterable[str]) -> tuple[str, ...]:
    """Skeletons of a tokenizer's special-token spellings worth matching: at least two
    characters, not letters or digits only (a token spelled `a` or `the` is ordinary text)."""
    found = {skeleton(t)[0] for t in tokens if isinstance(t, str)}
    return tuple(sorted(t for t in found if len(t) >= 2 and not t.isalnum()))


def neutralize(text: str, tag: str = "", titles: Iterable[str] = (),
               specials: Iterable[str] = ()) -> str:
    """`text` made safe to embed: invisibles removed, `tag` removed, look-alike section tags and
    prompt-like headings neutralised (see the module docstring). Pure; never raises.

    Args:
        text: model or user text.
        tag: the judgement's fence tag (lower-case letters and digits); "" for none.
        titles: heading keys of the prompt (`heading_titles`); headings holding one are escaped
            at any level, other headings at levels 1 and 2.
        specials: the judge tokenizer's special-token skeletons (`special_skeletons`), on top
            of the fixed control-token patterns.
    """
    text = _remove(strip_invisible(text), tag.lower())
    skel, owners = skeleton(text)
    chars = list(text)
    for match in _TAG.finditer(skel):
        chars[owners[match.start()]] = NEUTRAL_LT
    for start, _ in special_token_spans(skel, specials):
        owner = owners[start]
        first = NEUTRAL_FIRST.get(skel[start])
        if first is not None:
            chars[owner] = first
        elif not chars[owner].endswith(BREAK):
            chars[owner] += BREAK
    lines = "".join(chars).split("\n")
    for n in _heading_fixes(lines, titles):
        stripped = lines[n].lstrip(" \t")
        if stripped.startswith("\\"):
            continue  # already escaped
        lines[n] = lines[n][: len(lines[n]) - len(stripped)] + "\\" + stripped
    return "\n".join(lines)
