"""`smol-envs eval MODEL`: one model scored across the collection in one command.

`suites` declares what runs (the quick and full suites), `model` resolves MODEL (a registered
alias, a GGUF file, a Hugging Face folder converted once by `convert`, or an OpenAI-compatible
endpoint), `services` starts and stops what a run needs (the model server, the judge, the
scoring service), `manifest` records the run set's identity, `run` drives the environments
through vf-eval's own entry point, and `sweep` evaluates several checkpoints and draws the curve.
"""
