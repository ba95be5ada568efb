"""What more than one job needs: where the fix and its tests live in this
package and how their spans are read (``fix_source``, ``source_spans``),
the fingerprints of the unfixed ``call`` (``known_calls``), the issue's own
graph (``repro``), the installed ExecuTorch and the children's environment
(``installed``), and plain-text tables (``report``).

Imports nothing of the job folders; stdlib only at import time.
"""
