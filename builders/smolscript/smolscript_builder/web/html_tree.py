"""A tiny HTML element tree for HTML tasks: serialization, structural specs, probes, mutants.

Builders in `html_tasks.py` describe the target markup as a `Node` tree; this module derives
from it the reference markup, the structural spec, the browser probes with their hidden
expected values, and negative-control mutants. Pure code.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from .records import Checks

INLINE = {"a", "strong", "em", "span", "small", "code", "b", "i", "label", "button", "option",
          "summary", "th", "td", "li", "h1", "h2", "h3", "h4", "p", "figcaption", "caption",
          "pre", "input", "img"}
VOID = {"img", "input", "br", "hr"}


@dataclass
class Attr:
    """An attribute to require. `match`: exact, enum, number, tokens, bool or hidden."""

    name: str
    value: str | bool
    match: str = "exact"
    alternatives: tuple[str, ...] = ()


@dataclass
class Node:
    """An element: tag, attributes, leading text, child elements and trailing text."""

    tag: str
    attrs: list[Attr] = field(default_factory=list)
    text: str | None = None
    children: list[Node] = field(default_factory=list)
    tail: str | None = None

    def text_content(self) -> str:
        """The node's text with all its descendants' text and tails, in document order (as the DOM's
        textContent)."""
        parts = [self.text or ""]
        for child in self.children:
            parts.append(child.text_content())
            parts.append(child.tail or "")
        return "".join(parts)


def el(tag: str, text: str | None = None, *children: Node, attrs: list[Attr] | None = None,
       tail: str | None = None) -> Node:
    """Shorthand constructor for a Node."""
    return Node(tag, list(attrs or []), text, list(children), tail)


def serialize(node: Node, indent: int = 0) -> str:
    """Serialize `node` as readable markup: block elements indented, inline ones on one line."""
    pad = "  " * indent
    attrs = "".join(_attr_markup(a) for a in node.attrs)
    if node.tag in VOID:
        return f"{pad}<{node.tag}{attrs}>"
    blocks = [c for c in node.children if c.tag not in INLINE]
    if node.text and blocks:  # text followed by block children, e.g. a nested list
        inner = "\n".join(serialize(c, indent + 1) for c in node.children)
        return f"{pad}<{node.tag}{attrs}>{node.text}\n{inner}\n{pad}</{node.tag}>"
    if node.tag in INLINE or node.text:
        inner = (node.text or "") + "".join(
            serialize(c).strip() + (c.tail or "") for c in node.children)
        return f"{pad}<{node.tag}{attrs}>{inner}</{node.tag}>"
    inner = "\n".join(serialize(c, indent + 1) for c in node.children)
    return f"{pad}<{node.tag}{attrs}>\n{inner}\n{pad}</{node.tag}>"


def _attr_markup(attr: Attr) -> str:
    if attr.value is True:
        return f" {attr.name}"
    return f' {attr.name}="{attr.value}"'


def structure(node: Node, with_values: bool = True) -> dict:
    """The structural spec of a tree (with or without literal values: spec vs shape)."""
    return {
        "tag": node.tag,
        "attrs": {a.name: (a.value if with_values else a.match) for a in node.attrs},
        "text": node.text if with_values else node.text is not None,
        "children": [structure(c, with_values) for c in node.children],
    }


def _walk(node: Node, path: tuple[str, ...] = ()) -> list[tuple[Node, tuple[str, ...]]]:
    here = path + (node.tag,)
    out = [(node, here)]
    for child in node.children:
        out.extend(_walk(child, here))
    return out


def _matches(path: tuple[str, ...], chain: tuple[str, ...]) -> bool:
    return len(path) >= len(chain) and path[-len(chain):] == chain


def tree_checks(root: Node) -> Checks:
    """Probes and hidden tests that pin down `root`: child tags, text and attributes.

    Each element is addressed by its tag chain from the root (`ul > li > a`) plus its index
    among all matches of that chain in document order, as `querySelectorAll` would count;
    each chain must match exactly as many elements as the tree has (no extra copies), and
    every element must be shown to a reader (`visible` with `rendered`), except one the task
    hides (the `hidden` attribute) and what is inside it.
    """
    checks = Checks()
    nodes = _walk(root)
    hidden = _hidden(root)
    for node, path in nodes:
        selector = " > ".join(path)
        matches = [n for n, p in nodes if _matches(p, path)]
        index = next(i for i, n in enumerate(matches) if n is node)
        where = {"index": index} if index else {}
        label = f"{selector}[{index}]" if index else selector
        checks.count(selector, len(matches))
        if id(node) not in hidden:
            checks.add("visible", selector, "bool", True, f"{label} is shown", rendered=True,
                       **where)
        if node.children:
            checks.add("tags", selector, "exact", [c.tag for c in node.children],
                       f"{label} contains {', '.join(c.tag for c in node.children)}", **where)
        if node.text is not None and any(c.tag not in INLINE for c in node.children):
            checks.add("own_text", selector, "text", node.text, f"{label} own text", **where)
        elif node.text is not None:
            checks.add("text", selector, "text", node.text_content(), f"{label} text", **where)
        for attr in node.attrs:
            _attr_check(checks, attr, selector, label, where)
    return checks


def _hidden(root: Node, inside: bool = False) -> set[int]:
    """ids of the nodes the tree hides: those with a `hidden` attribute and their subtrees."""
    here = inside or any(a.match == "hidden" for a in root.attrs)
    out = {id(root)} if here else set()
    for child in root.children:
        out |= _hidden(child, here)
    return out


def hide(root: Node) -> str:
    """The tree's markup inside a `<div hidden>`: every element and text as asked, none shown
    (a near miss that only visibility checks catch)."""
    return f"<div hidden>\n{serialize(root, 1)}\n</div>"


def _attr_check(checks: Checks, attr: Attr, selector: str, label: str, where: dict) -> None:
    what = f"{label} {attr.name}"
    if attr.match == "tokens":
        checks.add("classes", selector, "tokens", sorted(str(attr.value).split()), what, **where)
    elif attr.match == "bool":
        checks.add("has_attr", selector, "bool", True, what, name=attr.name, **where)
    elif attr.match == "hidden":
        checks.add("visible", selector, "bool", False, f"{label} is hidden", **where)
    elif attr.match == "number":
        checks.add("attr", selector, "number", float(attr.value), what, name=attr.name, **where)
    else:
        checks.add("attr", selector, attr.match, attr.value, what, name=attr.name, **where)


def mutate(root: Node, rng: random.Random, spare_words: list[str]) -> Node:
    """A negative control: a copy of `root` with one probed feature changed.

    Picks one of: drop the last child of an element with several children, change a text,
    change or drop an attribute. Every choice alters something `tree_checks` observes.
    """
    mutant = copy.deepcopy(root)
    nodes = [n for n, _ in _walk(mutant)]
    options = []
    options += [("drop", n) for n in nodes if len(n.children) >= 2]
    options += [("text", n) for n in nodes if n.text and n.text.strip()]
    options += [("attr", n) for n in nodes if n.attrs]
    kind, node = rng.choice(options)
    if kind == "drop":
        node.children.pop()
    elif kind == "text":
        fresh = [w for w in spare_words if w not in node.text_content()]
        node.text = rng.choice(fresh)
    else:
        attr = rng.choice(node.attrs)
        _mutate_attr(node, attr, rng)
    return mutant


def _mutate_attr(node: Node, attr: Attr, rng: random.Random) -> None:
    if attr.match in {"bool", "hidden"}:
        node.attrs.remove(attr)
    elif attr.match == "number":
        attr.value = str(int(float(attr.value)) + rng.choice([1, 2]))
    elif attr.alternatives:
        attr.value = rng.choice([a for a in attr.alternatives
                                 if a.lower() != str(attr.value).lower()])
    elif attr.match == "tokens":
        attr.value = str(attr.value).split()[0] + "-x"
    else:
        attr.value = f"{attr.value}-old"
