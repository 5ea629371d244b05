"""A misspelled environment id given to vf-eval, as one line naming the installed ones.

vf-eval (verifiers 0.3.1, `verifiers.legacy.utils.env_utils.load_environment`) imports the
module `ID.replace("-", "_")` (after the last `/`); when there is none it raises
`ValueError("Could not import 'ID' environment. ...")` from the `ModuleNotFoundError`, which
reaches the user as a 40-line traceback. vf-eval is verifiers' own command and offers no hook of
its own, so the core ships a startup hook instead: `smol_envs_core.pth` in site-packages, whose
`import` line Python's `site` module runs at interpreter start
(https://docs.python.org/3/library/site.html), calls `install()`. In a vf-eval process only,
that wraps `sys.excepthook`: such an error prints
`smol-envs: error: no environment 'ID' is installed (...); this collection's: A, B, C (did you
mean A?)` and the process exits 1, as for any uncaught exception. Every other exception, and
this one with SMOL_ENVS_DEBUG set, goes to the previous hook unchanged. The installed
environments are those registering a `smol_envs.report` entry point (each of the collection's
environments does).

The hook also refuses, before vf-eval imports anything, a `-m` that is not an alias of the
endpoints file when neither `-b` nor `-p` names an endpoint (`endpoint_guard.alias_problem`):
vf-eval would send the prompts to verifiers' hosted default. One line naming the closest
aliases, exit status 2. (An environment id that is not installed gets its own line instead:
vf-eval fails on it before building any client.)

A former id of one of them (`env_ids`, entry-point group `smol_envs.renamed`) gets
`smol-envs: error: the environment 'OLD' is now 'NEW': run vf-eval NEW ...` instead, whatever
vf-eval failed with: the former module may be absent (ModuleNotFoundError), or another
distribution's module of that name may be installed (`slm-eval`'s PyPI namesake has module
`slm_eval` and no `load_environment`: verifiers raises `RuntimeError("Failed to load
environment 'slm-eval': ...")`).

In a terminal, vf-eval's live display catches the import error itself (it prints it in its panel
and the process would exit 0), so the hook also registers an exit handler: when vf-eval was given
an environment id (its first argument) whose module is not installed, the process ends with the
same one line, unless the excepthook already printed it, and exit status 1. The module is looked
up at exit, when every path entry of the installed packages is in place. For a former id the
exit handler does the same unless vf-eval imported a module of that name that does define
`load_environment` (someone else's environment of that id).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import sys

from ..env_ids import REPORT_GROUP, env_key, installed_environments, renamed_environments
from .endpoint_guard import alias_problem

# What verifiers 0.3.1 raises when the environment's module cannot be imported, and when the
# module imported but loading the environment failed. `re` and `difflib` are imported only when
# an error is being described: this module is imported by every interpreter of the
# environment (smol_envs_core.pth), so it imports nothing it does not need at start.
_COULD_NOT_IMPORT = r"^Could not import '(?P<env_id>.+?)' environment\."
_FAILED_TO_LOAD = r"^Failed to load environment '(?P<env_id>.+?)'"
ENTRY_POINT_GROUP = REPORT_GROUP
COMMANDS = ("vf-eval",)
MARK = "smol_envs_vfeval"


def module_name(env_id: str) -> str:
    """The module vf-eval 0.3.1 imports for `env_id` (dashes to underscores, after the last
    `/`). Pure."""
    return env_id.replace("-", "_").split("/")[-1]


def unknown_environment(error: BaseException) -> str | None:
    """The environment id when `error` is vf-eval's failure to import the environment's own
    module (not a module that an installed environment failed to import), else None. Pure."""
    import re

    match = re.match(_COULD_NOT_IMPORT, str(error)) if isinstance(error, ValueError) else None
    cause = error.__cause__
    if match is None or not isinstance(cause, ModuleNotFoundError):
        return None
    env_id = match.group("env_id")
    return env_id if cause.name == module_name(env_id) else None


def failed_environment(error: BaseException) -> str | None:
    """The environment id named by any of vf-eval 0.3.1's failures to load an environment
    (its module missing, or the module's `load_environment` absent or raising), else None.
    Pure."""
    import re

    if not isinstance(error, ValueError | RuntimeError):
        return None
    match = re.match(_COULD_NOT_IMPORT, str(error)) or re.match(_FAILED_TO_LOAD, str(error))
    return match.group("env_id") if match else None


def renamed_line(env_id: str, renamed: dict[str, str]) -> str | None:
    """The one line for a former id (`renamed`: {env_key(former id): current id}, as
    `env_ids.renamed_environments` gives), naming the current id; None for any other id.
    Pure."""
    current = renamed.get(env_key(env_id))
    if current is None:
        return None
    return (f"smol-envs: error: the environment '{env_id}' is now '{current}': run vf-eval "
            f"{current} with the same arguments (its README says why it was renamed)")


def _renamed() -> dict[str, str]:
    try:
        return renamed_environments()
    except ValueError:  # a packaging mistake must not hide the user's own error
        return {}


def message(env_id: str, installed: list[str]) -> str:
    """The one line for an unknown `env_id`, naming `installed` and the closest ids. Pure."""
    import difflib

    names = ", ".join(installed) if installed else "(none installed)"
    close = difflib.get_close_matches(env_id, installed, n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return (f"smol-envs: error: no environment '{env_id}' is installed (vf-eval looked for the "
            f"module {module_name(env_id)}); this collection's: {names}{hint}")


def unknown_environment_line(error: BaseException) -> str | None:
    """`renamed_line` for vf-eval's failure to load a former id; else `message` for its
    unknown-environment error, naming the installed environments; None for any other
    exception."""
    failed = failed_environment(error)
    line = None if failed is None else renamed_line(failed, _renamed())
    if line is not None:
        return line
    env_id = unknown_environment(error)
    return None if env_id is None else message(env_id, installed_environments())


def install() -> None:
    """Wrap `sys.excepthook` in a vf-eval process (idempotent; nothing elsewhere). Called at
    interpreter start by `smol_envs_core.pth`; never raises."""
    try:
        argv0 = sys.argv[0] if getattr(sys, "argv", None) else ""
        if os.path.basename(argv0) not in COMMANDS:
            return
        refused = alias_problem(list(sys.argv[1:]))
        env_id = requested_environment(list(sys.argv))
        if refused is not None and env_id is not None and importlib.util.find_spec(
                module_name(env_id)) is None:
            refused = None  # an unknown environment: its own line below, before any request
        if refused is not None:
            print(refused, file=sys.stderr)
            sys.stderr.flush()
            os._exit(2)
        if not getattr(sys.excepthook, MARK, False):
            from ..errors import one_line_excepthook

            sys.excepthook = one_line_excepthook(sys.excepthook, _report_once, MARK)
            atexit.register(_exit_1_for_an_unknown_environment)
    except Exception:  # noqa: BLE001 - a startup hook must never stop the interpreter
        return


_REPORTED: list[str] = []  # the line the excepthook printed, if any


def _report_once(error: BaseException) -> str | None:
    line = unknown_environment_line(error)
    if line is not None:
        _REPORTED.append(line)
    return line


def requested_environment(argv: list[str]) -> str | None:
    """The environment id vf-eval was given as its first argument, if it is one (not an
    option). Pure."""
    return argv[1] if len(argv) > 1 and not argv[1].startswith("-") else None


def _exit_1_for_an_unknown_environment() -> None:
    """At exit: the one line and status 1 when the requested environment is not installed, or
    is a former id (vf-eval's live display caught the error); nothing otherwise."""
    try:
        env_id = requested_environment(list(sys.argv))
        if env_id is None or _REPORTED or os.environ.get("SMOL_ENVS_DEBUG"):
            return
        line = renamed_line(env_id, _renamed())
        if line is not None:
            loaded = sys.modules.get(module_name(env_id))
            if loaded is not None and hasattr(loaded, "load_environment"):
                return  # another distribution's environment of that id ran
        elif importlib.util.find_spec(module_name(env_id)) is not None:
            return
        else:
            line = message(env_id, installed_environments())
        print(line, file=sys.stderr)
        sys.stderr.flush()
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - an exit handler must not hide the real exit
        return
    os._exit(1)
