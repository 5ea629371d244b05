"""SmolTalkBench: everyday chat prompts judged against reference replies, AlpacaEval style.

Exports the classic `load_environment` (verifiers 0.3.1) and the v1 `SmolTalkTaskset` (verifiers
0.3.1 and 0.4, prime-rl). Both resolve lazily, so the pure modules (build, judge, report) import
without verifiers and the package imports under verifiers 0.4, where `load_environment` is absent.
"""

from smol_envs_core.adapters.exports import lazy_exports

__all__ = ["load_environment", "SmolTalkTaskset", "ChatHarness"]

__getattr__ = lazy_exports(
    __name__,
    classic={"load_environment": ".env"},
    v1={"SmolTalkTaskset": ".taskset", "ChatHarness": "smol_envs_core.adapters.v1"},
)
