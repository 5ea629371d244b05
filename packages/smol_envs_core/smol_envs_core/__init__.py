"""smol-envs-core: what every smol-envs environment shares (see the package README).

`errors` and `markers` import nothing heavy; `policy` imports verifiers; `serve` needs the
`serve` extra. Import the submodule you need.
"""
