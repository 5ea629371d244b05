"""Syntax flags for browser tasks (html5lib for HTML, tinycss2 for CSS).

Syntax is reported beside behaviour and never gates it for HTML and CSS: a page the browser
recovers from may still pass every assertion while its syntax flag is false. JavaScript syntax
for DOM tasks is checked inside the browser by the executor (`new Function`), because a script
that does not parse cannot run at all.
"""

from __future__ import annotations

import re

import html5lib
import tinycss2

_DOCUMENT_START = re.compile(r"^\s*(?:<!--.*?-->\s*)*<(?:!doctype|html[\s>])", re.I | re.S)


def check_html_syntax(source: str) -> list[str]:
    """Return html5lib parse-error codes for `source` (empty list: syntactically clean).

    A source with a doctype or an `<html>` start tag is parsed as a document; anything else as
    a fragment in a `<body>` context, so a bare fragment is not faulted for lacking a doctype.
    """
    parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
    if _DOCUMENT_START.match(source):
        parser.parse(source)
    else:
        parser.parseFragment(source, container="body")
    return [f"{code} at {pos[0]}:{pos[1]}" for pos, code, _ in parser.errors]


def check_css_syntax(source: str) -> list[str]:
    """Return CSS syntax errors found by tinycss2 (rules, declarations, unclosed blocks)."""
    errors: list[str] = []
    rules = tinycss2.parse_stylesheet(source, skip_comments=True, skip_whitespace=True)
    _collect_rule_errors(rules, errors)
    components = tinycss2.parse_component_value_list(source, skip_comments=True)
    unclosed = _unclosed_depth(components) - _trailing_closers(source)
    if unclosed > 0:
        errors.append(f"{unclosed} block(s) not closed before end of input")
    return errors


def _collect_rule_errors(rules: list, errors: list[str]) -> None:
    for rule in rules:
        if rule.type == "error":
            errors.append(f"{rule.kind}: {rule.message} at {rule.source_line}:{rule.source_column}")
        elif rule.type == "qualified-rule":
            _collect_declaration_errors(rule.content, errors)
        elif rule.type == "at-rule" and rule.content is not None:
            if rule.lower_at_keyword in {"media", "supports", "container", "layer"}:
                nested = tinycss2.parse_rule_list(rule.content, skip_comments=True,
                                                  skip_whitespace=True)
                _collect_rule_errors(nested, errors)
            else:
                _collect_declaration_errors(rule.content, errors)


def _collect_declaration_errors(content: list, errors: list[str]) -> None:
    for item in tinycss2.parse_blocks_contents(content, skip_comments=True,
                                               skip_whitespace=True):
        if item.type == "error":
            errors.append(f"{item.kind}: {item.message} at {item.source_line}:"
                          f"{item.source_column}")
        elif item.type == "qualified-rule":  # CSS nesting
            _collect_declaration_errors(item.content, errors)


def _meaningful(components: list) -> list:
    return [c for c in components if c.type not in {"whitespace", "comment"}]


def _unclosed_depth(components: list) -> int:
    """Count the chain of blocks that run to the end of input (each the last item of its parent).

    Only these can be unclosed: tinycss2 closes blocks silently at EOF, as CSS specifies.
    """
    depth = 0
    items = _meaningful(components)
    while items and items[-1].type in {"{} block", "[] block", "() block", "function"}:
        depth += 1
        items = _meaningful(items[-1].content if items[-1].type != "function"
                            else items[-1].arguments)
    return depth


def _trailing_closers(source: str) -> int:
    """Count the closing brackets that end `source` (ignoring whitespace and comments)."""
    count = 0
    text = source
    while True:
        text = _strip_tail(text)
        if text and text[-1] in "}])":
            count += 1
            text = text[:-1]
        else:
            return count


def _strip_tail(text: str) -> str:
    text = text.rstrip()
    while text.endswith("*/"):
        start = text.rfind("/*", 0, len(text) - 2)
        if start < 0:
            break
        text = text[:start].rstrip()
    return text
