"""smol-envs-core: what every smol-envs environment shares (see the package README).

Four parts by job: `adapters` (declaration, verifiers adapters, run policy; imports verifiers,
the `policy` extra), `server` (the local model server, the `serve` extra), `report` (the `report`
extra) and `evalrun` (`smol-envs eval`), and shared top modules: `errors` and `text` import
nothing heavy; `procman` needs psutil and filelock (base dependencies). Import the submodule you
need.
"""
