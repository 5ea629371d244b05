"""Browser tasks of smolscript (HTML, CSS, JavaScript DOM/event), on the host side.

`compare` / `score_browser_result` turn the scoring service's observations and the hidden
expected values into per-assertion verdicts, with the benchmark's semantic equivalences
(whitespace, colours in any notation, numbers, class tokens, rectangles). The browser that
makes the observations is the service's (`smolscript_sandbox.executor`).
"""

from .compare import compare, score_browser_result

__all__ = ["compare", "score_browser_result"]
