"""The retracing audit: run the user's code, see every `tf.function` trace with its real cache key,
and explain each retrace (which argument, what changed, what it cost, how to fix it); and the static
hazards TensorFlow never warns about.

`report` (the data and its text), `cache_keys` (diffing two traces' keys), `suggestions` (the fix
per cause), `observer` (the log hook and call wrapper), `target` (running what the user named),
`hazards` (reading source without running it). The scenarios live in `eager_models.retracing_scenarios`.
"""

from tfcompare.core.trace_log import TRACE_MESSAGE
from tfcompare.tools.audit.hazards import scan_path, scan_source, static_report
from tfcompare.tools.audit.observer import Auditor
from tfcompare.tools.audit.report import AuditReport, FunctionAudit, Hazard, Retrace
from tfcompare.tools.audit.target import TargetError, audit_callable, audit_target, measure_overhead

__all__ = ["Retrace", "FunctionAudit", "Hazard", "AuditReport", "Auditor", "TRACE_MESSAGE", "TargetError",
           "audit_target", "audit_callable", "measure_overhead", "scan_path", "scan_source",
           "static_report"]
