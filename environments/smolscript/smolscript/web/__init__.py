"""Web tasks of smolscript: HTML, CSS and JavaScript DOM/event tasks checked in Chromium.

- `generate_web_tasks` / `web_capacity`: the pure task generator (called by the data part).
- `run_browser_job`: the probe executor the scoring service runs against a warm browser.
- `compare` / `score_browser_result`: the host-side comparator with semantic equivalences.
"""

from .compare import compare, score_browser_result
from .errors import InfraError, JobError, WebError
from .executor import launch_chromium, run_browser_job
from .generator import generate_web_tasks, web_capacity
from .records import build_browser_job, spec_key
from .syntax import check_css_syntax, check_html_syntax

__all__ = ["InfraError", "JobError", "WebError", "build_browser_job", "check_css_syntax",
           "check_html_syntax", "compare", "generate_web_tasks", "launch_chromium",
           "run_browser_job", "score_browser_result", "spec_key", "web_capacity"]
