"""Checking a user's model: lowering it unpatched and with the backport side
by side (``check``, ``columns``, ``worker``, ``partitioners``; the model
from ``loading``)
and reading the failure (``findings``, ``constant_subgraph``).

May import ``shared``, ``backport``, ``models`` and ``loading``.
"""
