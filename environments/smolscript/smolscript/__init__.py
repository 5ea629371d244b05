"""smolscript: an execution-based benchmark of basic programming in nine languages.

Exports the classic `load_environment` (verifiers 0.3.1, raw completions) and the v1
`SmolscriptTaskset` (verifiers 0.3.1 and 0.4, prime-rl; chat). Both resolve lazily, so the pure
core (assembly, prompts, report, evaluator) imports without verifiers and the package imports
under verifiers 0.4, where `load_environment` is absent.
"""

from smol_envs_core.adapters.exports import lazy_exports

__all__ = ["load_environment", "SmolscriptTaskset", "ChatHarness"]

__getattr__ = lazy_exports(
    __name__,
    classic={"load_environment": "smolscript.env"},
    v1={"SmolscriptTaskset": "smolscript.taskset", "ChatHarness": "smol_envs_core.adapters.v1"},
)
