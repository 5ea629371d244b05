"""The verifiers adapters: an environment's declaration (options, metrics, the scored record),
the classic rubric and the v1 task generated from it, and the run policy that keeps an
infrastructure failure from being scored (see README.md here). Import the submodule you need:
this package imports nothing itself (the vf-eval startup hook imports `vfeval_hook` in every
interpreter)."""
