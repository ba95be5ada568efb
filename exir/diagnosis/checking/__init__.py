"""Checking a user's model: lowering it unpatched and with the backport side
by side (``check``, ``columns``, ``worker``, ``model_spec``, ``partitioners``)
and reading the failure (``findings``, ``constant_subgraph``).

May import ``shared``, ``backport`` and ``models``.
"""
