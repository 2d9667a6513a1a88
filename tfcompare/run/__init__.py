"""The case half's paired run: every mode of every built-in or user case, checked, timed, written as it goes."""
