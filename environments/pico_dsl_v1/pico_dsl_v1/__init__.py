"""pico-dsl-v1: a four-line reverse-then-transduce string eval for a tiny per-sample tape DSL.

Exports the classic `load_environment` (verifiers 0.3.1: `vf-eval pico-dsl-v1 -a ...`) and the
v1 `PicoTaskset` (verifiers 0.3.1 and 0.4: `load_taskset`, prime-rl). Both resolve lazily, so
the pure core (oracle, compiler, validator, parser, metrics) imports without verifiers, and the
package imports under verifiers 0.4, where `load_environment` is absent.
"""

from smol_envs_core.adapters.exports import lazy_exports

__all__ = ["load_environment", "PicoTaskset", "ChatHarness"]

__getattr__ = lazy_exports(
    __name__,
    classic={"load_environment": ".env"},
    v1={"PicoTaskset": ".taskset", "ChatHarness": "smol_envs_core.adapters.v1"},
)
