"""smol-slm-eval: eight small-model benchmarks, the Int Index and eval_avg, as verifiers
environments.

Exports the classic `load_environment` (verifiers 0.3.1: `vf-eval smol-slm-eval -a ...`) and
`SlmEvalTaskset`, which only refuses: smol-slm-eval is evaluation-only, so a trainer loading it as
a v1 taskset gets a clear error. Both resolve lazily, so the package imports under verifiers 0.4,
where `load_environment` is absent.
"""

from smol_envs_core.adapters.exports import lazy_exports

__all__ = ["load_environment", "SlmEvalTaskset"]

__getattr__ = lazy_exports(
    __name__,
    classic={"load_environment": ".env"},
    v1={"SlmEvalTaskset": ".taskset"},
)
