"""Model and user text made safe to embed in the judge's prompt (pure; used by `judge`).

A reply must not be able to end its own section, forge the other answer or forge a verdict,
whatever characters it uses. Three steps, in order:

1. invisible characters are removed: every format character (Unicode category Cf: zero-width
   space, word joiner, soft hyphen, bidi controls, tag characters that smuggle ASCII) and every
   other Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt: the combining
   grapheme joiner, Hangul fillers, variation selectors). The judge sees the text without them.
2. the per-judgement fence tag (`judge.fence_tag`) is removed wherever it appears, so only the
   prompt's own fences carry it.
3. look-alikes are neutralised on a *skeleton* of the text: each character NFKC-normalised,
   lower-cased and mapped to the ASCII character it can be confused with (Unicode's
   confusables.txt, UTS #39, as shipped by the `confusable-homoglyphs` package). Where the
   skeleton spells a section tag (`<answer`, `</request`, with any suffix or spaces), the
   character standing for `<` becomes `‹`; where a line is a markdown heading at the prompt's
   own level (`#`, `##`, outside fenced code) or a heading of any level whose title holds one
   of the prompt's own headings ("Your verdict", ...), the heading gets a backslash in front.
   The judge sees the original characters otherwise (NFKC is only used to find look-alikes:
   `x²` stays `x²`).

The result is idempotent: neutralising neutralised text changes nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache

NEUTRAL_LT = "\u2039"  # ‹ : what a `<` (or a look-alike) of a section tag becomes
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
    """The skeleton of one character: NFKC, lower case, ASCII look-alike where one exists.

    May be longer than one character (`"ﬁ"` gives `"fi"`) or empty.
    """
    if char < "\x80":
        return char.lower()
    table = _ascii_lookalikes()
    return "".join(c.lower() if c < "\x80" else table.get(c, c.casefold())
                   for c in unicodedata.normalize("NFKC", char))


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


def neutralize(text: str, tag: str = "", titles: Iterable[str] = ()) -> str:
    """`text` made safe to embed: invisibles removed, `tag` removed, look-alike section tags and
    prompt-like headings neutralised (see the module docstring). Pure; never raises.

    Args:
        text: model or user text.
        tag: the judgement's fence tag (lower-case letters and digits); "" for none.
        titles: heading keys of the prompt (`heading_titles`); headings holding one are escaped
            at any level, other headings at levels 1 and 2.
    """
    text = _remove(strip_invisible(text), tag.lower())
    skel, owners = skeleton(text)
    chars = list(text)
    for match in _TAG.finditer(skel):
        chars[owners[match.start()]] = NEUTRAL_LT
    lines = "".join(chars).split("\n")
    for n in _heading_fixes(lines, titles):
        stripped = lines[n].lstrip(" \t")
        if stripped.startswith("\\"):
            continue  # already escaped
        lines[n] = lines[n][: len(lines[n]) - len(stripped)] + "\\" + stripped
    return "\n".join(lines)
