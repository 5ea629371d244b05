"""Reading the tables of a README in the verifiers collection style (`### Heading`, then a
markdown table whose first column holds backticked names), for the tests that compare a
README's argument and metric tables with the code."""

from __future__ import annotations

import re


def table_first_column(markdown: str, heading: str) -> list[str]:
    """The backticked first-column entries of the table under `### heading`, in order.

    Raises IndexError when the heading is absent (the README lost a section).
    """
    section = markdown.split(f"### {heading}", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"^\| `([^`]+)`", section, flags=re.MULTILINE)
