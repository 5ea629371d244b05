"""smol-envs-core: what every smol-envs environment shares (see the package README).

`errors` and `markers` import nothing heavy; `procman` needs psutil and filelock (base
dependencies); `policy` imports verifiers (the `policy` extra); `serve` needs the `serve` extra.
Import the submodule you need.
"""
