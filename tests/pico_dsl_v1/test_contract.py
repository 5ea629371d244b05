"""pico-dsl-v1's own README tables (argument defaults, slices, levels) and vf-eval defaults.

The contract every environment shares (metadata, argument and metric names, offline load,
weights, failure policy) is tests/workspace/test_environment_contract.py."""

from __future__ import annotations

import inspect

import pytest
from pico_dsl_v1 import load_environment
from pico_dsl_v1.spec import LEVEL_SPECS, SLICES

from tests.support.markdown import table_first_column

from .conftest import REPO

pytestmark = pytest.mark.unit
PACKAGE = REPO / "environments" / "pico_dsl_v1"


@pytest.fixture(scope="module")
def readme() -> str:
    return (PACKAGE / "README.md").read_text()


def test_arguments_table_shows_the_defaults(readme: str) -> None:
    signature = inspect.signature(load_environment)
    expected = [n for n, p in signature.parameters.items() if p.kind is p.POSITIONAL_OR_KEYWORD]
    section = readme.split("### Environment Arguments", 1)[1]
    for name in expected:
        default = signature.parameters[name].default
        shown = (
            "null" if default is None else (f'"{default}"' if isinstance(default, str) else default)
        )
        assert f"| `{name}` |" in section and f"`{shown}`" in section


def test_slice_and_level_tables(readme: str) -> None:
    assert table_first_column(readme, "Slices") == list(SLICES)
    assert table_first_column(readme, "Complexity levels") == list(LEVEL_SPECS)
    for level, spec in LEVEL_SPECS.items():
        low, high = spec.source_length
        assert f"| `{level}` | {low}-{high} |" in readme
