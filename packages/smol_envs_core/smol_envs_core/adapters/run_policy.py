"""The run-level failure policy of a classic verifiers run (`RunFailurePolicy`).

An infrastructure failure stops the run, non-zero, with one line naming the component; a saved
run's folder is renamed `<name>-FAILED`; an error budget, when set, checks the share of tolerated
failures; the environment's behaviour version is written to the run's metadata.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import install_excepthook
from ..runinfo import RUN_KEY, run_record
from .budget import ErrorBudget
from .endpoint_guard import ensure_served
from .preflight import endpoint_base_url, ensure_reachable
from .quiet_tasks import as_infrastructure_error, drop_unawaited_infrastructure_failures
from .resume_guard import refuse_mixed_resume
from .vfeval_hook import COMMANDS as VF_EVAL_COMMANDS

BEHAVIOUR_VERSION_KEY = "behaviour_version"
# "1": vf-eval runs the rollouts in verifiers' env server processes, as verifiers does by
# default; unset or anything else: in the vf-eval process (`RunFailurePolicy.start_server`).
ENV_SERVER_VAR = "SMOL_ENVS_ENV_SERVER"


def env_server_wanted() -> bool:
    """True when $SMOL_ENVS_ENV_SERVER is "1" (verifiers' env server processes wanted)."""
    return os.environ.get(ENV_SERVER_VAR, "").strip() == "1"


class RunFailurePolicy:
    """Mixin for any verifiers Environment (a `vf.EnvGroup` too): the run-level failure policy.

    A run that hit an infrastructure failure raises `InfrastructureError` from `generate` (also
    when the failure happened in a vf-eval env-server worker, which sends only its repr);
    uncaught, it prints as one line and the process exits 1, and a saved run's folder is renamed
    `<name>-FAILED` (`mark_failed_run`). `error_budget`, when set, checks the finished run's
    share of tolerated failures. `behaviour_version`, when set, is recorded in the run's
    metadata (`outputs["metadata"]` and a saved run's metadata.json, key `behaviour_version`),
    and so is the `run` record (`runinfo.run_record`: start, end, command, machine).
    Before the first rollout, `preflight` checks that the model endpoint accepts a TCP
    connection (subclasses add their own components, e.g. a judge), then the endpoint's
    `/v1/models` must list the requested model id (`served_model_check`).
    Put it before the verifiers class: `class E(RunFailurePolicy, vf.EnvGroup)`.
    """

    error_budget: ErrorBudget | None = None
    behaviour_version: str | None = None

    async def generate(self, *args: Any, **kwargs: Any) -> Any:
        """verifiers' `generate` (same arguments and result) under the failure policy above.

        Raises:
            InfrastructureError: a component failed (model endpoint, scoring service, judge),
                or the error budget was exceeded; a saved run's folder is marked FAILED first.
            SmolEnvsError: a resumed run's saved rows were scored under another behaviour
                version or dataset (`resume_guard`); nothing is run or renamed.
        """
        install_excepthook()
        saved = kwargs.get("results_path") if kwargs.get("save_results") else None
        started = time.time()  # the run's own start (several runs may share a process)
        # A resumed run (vf-eval --resume PATH) must not pool rows of two definitions.
        refuse_mixed_resume(saved, self.behaviour_version,
                            kwargs.get("inputs", args[0] if args else None))
        # Installed before the rollouts start: with rollouts in this process (no env-server
        # worker), the other rollouts' identical failures would each print a traceback.
        drop_unawaited_infrastructure_failures(asyncio.get_running_loop())
        try:
            await self.preflight(kwargs.get("client", args[1] if len(args) > 1 else None))
            await served_model_check(kwargs.get("client", args[1] if len(args) > 1 else None),
                                     kwargs.get("model", args[2] if len(args) > 2 else None))
            outputs = await super().generate(*args, **kwargs)
            if self.error_budget is not None:
                self.error_budget.apply(outputs)
        except Exception as exc:
            infra = as_infrastructure_error(exc)
            exit_nonzero_at_exit()
            if saved:
                mark_failed_run(Path(saved), str(infra or exc))
            if infra is None:
                raise
            raise infra from None
        fields: dict[str, Any] = {RUN_KEY: run_record(started, time.time(), sys.argv)}
        if self.behaviour_version is not None:
            fields[BEHAVIOUR_VERSION_KEY] = self.behaviour_version
        record_in_metadata(outputs, Path(saved) if saved else None, fields)
        if saved:
            print(f"smol-envs: results saved to {saved}", file=sys.stderr)
        return outputs

    async def start_server(self, *args: Any, **kwargs: Any) -> None:
        """Run the rollouts in this process instead of verifiers' env server (unless
        $SMOL_ENVS_ENV_SERVER is "1"; then verifiers' `start_server`, same arguments).

        vf-eval 0.3.1 calls `start_server` after loading the environment: it spawns a router
        and a worker process, each importing verifiers anew, and the worker loads the
        environment a second time before the first model request can leave
        (benchmarks/bench_vf_eval_startup.py measures it). The server spreads very many
        concurrent rollouts over processes; the collection's runs (small models, one machine)
        do not need that, and their rollouts ran in process under every test that calls
        `evaluate` directly. Without a server, `generate` runs the rollouts here, as
        verifiers does with `disable_env_server`.
        """
        if env_server_wanted():
            await super().start_server(*args, **kwargs)

    async def preflight(self, client: Any) -> None:
        """Fail in seconds when nothing listens at the model endpoint (`preflight`), instead
        of after the OpenAI client's minutes of retries. Raises InfrastructureError; a client
        without a base URL (a test's stand-in) is not checked."""
        base = endpoint_base_url(client)
        if base is not None:
            route = "completions" if getattr(self, "message_type", "chat") == "completion" \
                else "chat/completions"
            await ensure_reachable(f"{base}/{route}")


async def served_model_check(client: Any, model: Any) -> None:
    """Refuse a run whose endpoint does not serve `model` (`endpoint_guard.ensure_served`):
    `-b URL -m OTHER` must not be answered by whatever the server serves. A client without a
    base URL (a trainer's ready client, a test's stand-in) or a run without a model id is not
    checked. Raises InfrastructureError naming the served ids."""
    base = endpoint_base_url(client)
    if base is None or not isinstance(model, str):
        return
    key_var = getattr(client, "api_key_var", None)
    key = os.environ.get(key_var) if isinstance(key_var, str) and key_var else None
    await asyncio.to_thread(ensure_served, base, model, key or "EMPTY")


_EXIT_REGISTERED = False


def _exit_1() -> None:
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S112 - a closed stream: nothing left to flush
            continue
    os._exit(1)


def exit_nonzero_at_exit() -> None:
    """In a vf-eval process, make a failed run's process exit with status 1 whatever vf-eval
    does with the exception.

    verifiers 0.3.1's vf-eval, when its live display runs (a terminal, no `--disable-tui`),
    gathers the runs with `return_exceptions=True`: it prints the failure in its panel and the
    process exits 0. A run that failed must never exit 0, so the first failed run registers an
    exit handler that, after everything registered later, flushes the output and ends the
    process with status 1 (`os._exit`). Nothing is registered outside vf-eval (a test or a
    trainer calling `generate` sees the exception only). Idempotent.
    """
    global _EXIT_REGISTERED
    argv0 = sys.argv[0] if getattr(sys, "argv", None) else ""
    if _EXIT_REGISTERED or os.path.basename(argv0) not in VF_EVAL_COMMANDS:
        return
    atexit.register(_exit_1)
    _EXIT_REGISTERED = True


def record_in_metadata(outputs: Any, folder: Path | None, fields: dict[str, Any]) -> None:
    """Put `fields` (e.g. `behaviour_version`, the `run` record of `runinfo`) in a finished
    run's metadata: `outputs["metadata"]` (vf-eval saves it again from there) and, for a saved
    run, the metadata.json in `folder` (rewritten in place when it exists)."""
    metadata = outputs.get("metadata") if isinstance(outputs, dict) else None
    if isinstance(metadata, dict):
        metadata.update(fields)
    path = folder / "metadata.json" if folder is not None else None
    if path is not None and path.is_file():
        saved = json.loads(path.read_text())
        saved.update(fields)
        path.write_text(json.dumps(saved))  # vf-eval writes it compact too


def mark_failed_run(folder: Path, reason: str) -> Path | None:
    """Rename the results folder of a failed run to `<name>-FAILED` (with the reason in
    FAILED.txt), so that nothing takes its partial rows for results; returns the new path."""
    if not folder.is_dir():
        return None
    target = folder.with_name(f"{folder.name}-FAILED")
    suffix = 1
    while target.exists():
        suffix += 1
        target = folder.with_name(f"{folder.name}-FAILED{suffix}")
    folder.rename(target)
    (target / "FAILED.txt").write_text(reason + "\n")
    print(f"smol-envs: the failed run's partial output is in {target}", file=sys.stderr)
    return target
