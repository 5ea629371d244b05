"""The local model server, `smol-envs-serve` (see README.md here): the served models' registry
and files, the llama-cpp-python launcher, its thread governor, prompt log-probabilities and
output rows. Needs the `serve` extra; import the submodule you need."""
