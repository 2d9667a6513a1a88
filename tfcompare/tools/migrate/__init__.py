"""`tfcompare migrate`: what in a TF1 codebase breaks on the installed TensorFlow, what `tf_upgrade_v2`
fixes and misses, and the TF2 idiom for each; never edits or runs the user's files.

`references` (imports, aliases, resolution on the installed TensorFlow), `calls` (each call checked against the
installed signatures and meanings), `classify` (the classes, the idioms, the known default changes),
`upgrade_v2` (TensorFlow's own tool, per file, in a child), `scan` (the report), `scaffold` (a cases file with
the TF1 side built, from what `tf1_script` reads of the script and `literals` evaluates of its constants),
`sources` (reading only what is safe to read), `outputs` (the files written, all or none).
"""

from tfcompare.tools.migrate.classify import CLASSES
from tfcompare.tools.migrate.outputs import OutputError, check_outputs, write_outputs
from tfcompare.tools.migrate.scan import MigrateError, MigrationReport, migrate

__all__ = ["CLASSES", "MigrateError", "MigrationReport", "OutputError", "check_outputs", "migrate", "write_outputs"]
