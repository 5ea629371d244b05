"""The web task generator of the smolscript builder: HTML, CSS and JavaScript DOM/event tasks.

`generate_web_tasks` / `web_capacity` are pure: they build task records (prefix, fixture,
probes, hidden tests, reference and negative control) and never touch a browser. The browser
that runs the probes is the scoring service's (`smolscript_sandbox.executor`); the comparator
that judges observations is the runtime's (`smolscript.web`).
"""

from .generator import generate_web_tasks, web_capacity
from .records import spec_key

__all__ = ["generate_web_tasks", "spec_key", "web_capacity"]
