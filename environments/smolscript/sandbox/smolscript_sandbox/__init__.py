"""smolscript scoring service: runs untrusted programs and browser probes in bubblewrap slots.

The host (rubric, validation) sends jobs over HTTP through `smolscript.client`; expected answers
never reach this service. Nothing here runs at import time.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
