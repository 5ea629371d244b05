"""smolscript-builder: builds and validates the smolscript dataset (a development tool).

Grammar, IR and per-language emitters (`grammar`, `ir`, `emit`, `syntax`), the program and web
task generators (`generate`, `domains`, `web`), editions and their selection (`editions`),
audits and static checks (`audit`, `checks`), the dataset card (`card`), the byte-for-byte
build (`build`) and the execution validation through the scoring service (`validate`).
`scripts/build_smolscript.py` and `scripts/validate_smolscript.py` drive it. It depends on the
runtime package `smolscript` (language table, value types); the runtime never imports it.
"""
