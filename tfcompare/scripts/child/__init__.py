"""Running one user script in an instrumented child process, and what it observes.

`processes` starts and bounds the children (from the parent); `main` is a child's entry point; `user_script`
runs the script as `__main__` (TF1 semantics on the TF1 side); `probe_tf1` / `probe_tf2` observe each side's
steps; `record` is what a child writes for the parent; `loaders`, `batches`, `dropout`, `initialisation` and
`align` are what both sides must share; `noise` is the TF1 side's noise floor and the verdict rule on it.
"""
