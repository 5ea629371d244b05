"""Thin wrapper: `python scripts/serve_local_model.py start|status|stop` = `smol-envs-serve ...`."""

import sys

from smol_envs_core.server.serve import main

if __name__ == "__main__":
    sys.exit(main())
