"""Dataset card of SmolTalkBench: the template beside this module, filled by the build script."""

from __future__ import annotations

from importlib import resources
from string import Template

HUB_METADATA = {
    "license": "apache-2.0",
    "language": ["en"],
    "pretty_name": "SmolTalkBench",
    "task_categories": ["text-generation"],
    "tags": ["chat", "evaluation", "llm-judge", "alpaca-eval"],
}


def render_card(**fields: object) -> str:
    """The card's Markdown body with every `$name` of the template filled from `fields`.

    Raises KeyError naming a placeholder that has no value.
    """
    text = (resources.files("smoltalkbench") / "dataset_card.md").read_text(encoding="utf-8")
    return Template(text).substitute({k: str(v) for k, v in fields.items()})
