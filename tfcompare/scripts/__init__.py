"""The script half: a user's own TF1 and TF2 training scripts, run unchanged in instrumented child processes.

Layers, top to bottom (setup.cfg's contracts, tests/test_layout.py): `convert` (TF1 -> TF2 written, proven by
`pair`) over `pair` (does a rewrite train like its TF1 script?) and `run_tf1` (old code as it is), over `child`
(the process that runs one script and what it observes), over `legacy` (the TF1 runtime the child installs).
Nothing here imports the case half (`run`, `claims`), nor it this.
"""
