"""The README's tables agree with the code: metric names and environment arguments."""

import inspect
import re
from pathlib import Path

import pytest
from smoltalkbench.env import METRICS, load_environment

pytestmark = pytest.mark.unit

README = Path(__file__).resolve().parents[2] / "environments" / "smoltalkbench" / "README.md"


def table_first_column(heading: str) -> list[str]:
    section = README.read_text().split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [re.match(r"\| `([^`]+)`", line).group(1) for line in rows]


def test_metrics_table_matches_rubric():
    assert table_first_column("Metrics") == [f.__name__ for f in METRICS]


def test_arguments_table_matches_signature():
    params = [p for p in inspect.signature(load_environment).parameters if p != "kwargs"]
    assert table_first_column("Environment Arguments") == params
