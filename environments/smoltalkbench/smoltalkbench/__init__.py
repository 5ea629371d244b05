"""SmolTalkBench: everyday chat prompts judged against reference replies, AlpacaEval style.

`load_environment` is resolved lazily so that the pure modules (build, judge, report) can be
imported without loading verifiers.
"""

__all__ = ["load_environment"]


def __getattr__(name: str):
    if name == "load_environment":
        from smoltalkbench.env import load_environment

        return load_environment
    raise AttributeError(f"module 'smoltalkbench' has no attribute {name!r}")
