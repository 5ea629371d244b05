"""smolscript-sandbox: the isolated scoring service, and its client.

The service runs untrusted programs (jobs of complete files + tests, under named runtimes:
`runtimes.py`) and browser probe jobs in bubblewrap slots, and reports what ran and what was
observed; it never sees an expected value and knows nothing of any benchmark. `schema.py` is
the one job/reply schema; `client.py` talks to the service. Both import only httpx and
pydantic; the service itself needs the `service` extra (FastAPI, uvicorn, Playwright, Docker
SDK). Nothing here runs at import time.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
