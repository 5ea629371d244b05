"""Command line: `python -m smolscript_sandbox serve|start|stop|status`.

serve runs the service in the foreground; start runs it in the background and waits for
/health; stop ends it; status prints the health record (exit 0, or 3 when it is down: the LSB
convention `smol-envs-serve status` shares, smol_envs_core.procman.STATUS_*).
"""

from __future__ import annotations

import argparse
import json
import sys

from smolscript_sandbox.config import ServiceConfig
from smolscript_sandbox.errors import SandboxInfraError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m smolscript_sandbox", description=__doc__)
    parser.add_argument("command", choices=["serve", "start", "stop", "status"])
    parser.add_argument("--host", default=None)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument(
        "--slots",
        type=int,
        default=None,
        help="job slots (default: 2 per core; with --container: 1, so that the container's "
        "limits bound one job)",
    )
    parser.add_argument("--browser-slots", type=int, default=None)
    parser.add_argument("--no-browsers", action="store_true", help="do not start Chromium")
    parser.add_argument(
        "--container",
        metavar="IMAGE",
        default=None,
        nargs="?",
        const="smolscript-sandbox:0.1.0",
        help="start/stop: the service in this container image (default smolscript-sandbox:0.1.0) "
        "through the Docker SDK, on 127.0.0.1:PORT",
    )
    return parser


def _container_command(command: str, image: str, config: ServiceConfig, slots: int) -> int:
    """start: run the image on 127.0.0.1:PORT and wait for /health; stop: remove it."""
    from smolscript_sandbox import container

    try:
        if command == "stop":
            name = f"smolscript-sandbox-{config.port}"
            print("stopped" if container.stop_container(name) else "not running")
            return 0
        started = container.start_container(image, config.port, slots=slots)
    except SandboxInfraError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"{started.url}  container={started.name} image={started.image_id}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args = _parser().parse_args(argv)
    config = ServiceConfig.from_env(
        host=args.host,
        port=args.port,
        slots=args.slots,
        browser_slots=args.browser_slots,
        browsers=False if args.no_browsers else None,
    )
    if args.command == "serve":
        import uvicorn

        from smolscript_sandbox.app import create_app
        try:
            app = create_app(config)
        except SandboxInfraError as exc:
            print(exc, file=sys.stderr)
            return 2
        from smolscript_sandbox.bounds import idle_protocol

        # The asyncio loop, not uvloop: uvloop's subprocesses lack user=/group= (uid drop).
        # Connections: no complete request within the idle time closes them; past the
        # queues' capacity uvicorn itself answers 503.
        uvicorn.run(
            app,
            host=config.host,
            port=config.port,
            log_level="warning",
            loop="asyncio",
            http=idle_protocol(config.idle_timeout_s),
            timeout_keep_alive=int(config.idle_timeout_s),
            limit_concurrency=2 * (config.slots + config.browser_slots + 2 * config.queue_limit),
        )
        return 0
    from smolscript_sandbox import control

    if args.container and args.command in ("start", "stop"):
        return _container_command(args.command, args.container, config, args.slots or 1)
    if args.command == "start":
        try:
            info = control.start(config)
        except SandboxInfraError as exc:
            print(exc, file=sys.stderr)
            return 2
        print(f"{config.base_url}  isolation={info['isolation']} slots={info['slots']}")
        return 0
    if args.command == "stop":
        print("stopped" if control.stop(config) else f"not running at {config.base_url}")
        return 0
    from smol_envs_core.procman import STATUS_NOT_RUNNING, STATUS_RUNNING

    info = control.health(config)
    if info is None:
        print(f"not running at {config.base_url}")
        return STATUS_NOT_RUNNING
    print(json.dumps(info, indent=2))
    return STATUS_RUNNING


if __name__ == "__main__":
    sys.exit(main())
