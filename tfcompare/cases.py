"""The case contract under its first name: `from tfcompare.cases import Case, InputSpec` keeps working.

The contract lives in `tfcompare.core.cases`; new code imports it from `tfcompare` itself.
"""

from tfcompare.core.cases import Case, CaseError, GraphParts, InputSpec, find_case, load_cases_file

__all__ = ["InputSpec", "GraphParts", "Case", "CaseError", "find_case", "load_cases_file"]
