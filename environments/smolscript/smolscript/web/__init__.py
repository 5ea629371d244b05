"""Browser tasks of smolscript (HTML, CSS, JavaScript DOM/event), on the host side.

- `compare` / `score_browser_result`: the comparator of service observations with the hidden
  expected values (semantic equivalences: whitespace, colours, numbers, class tokens, ...).
- `run_browser_job`: the probe executor the scoring service runs against a warm browser.
"""

from .compare import compare, score_browser_result
from .errors import InfraError, JobError, WebError
from .executor import launch_chromium, run_browser_job
from .syntax import check_css_syntax, check_html_syntax

__all__ = ["InfraError", "JobError", "WebError", "check_css_syntax", "check_html_syntax",
           "compare", "launch_chromium", "run_browser_job", "score_browser_result"]
