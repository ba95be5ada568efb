"""Judging fixes: every variant of ``call`` under every witness graph, and
which variants ``test_pass_infra.py`` kills (``mutants``).

May import ``shared`` and ``making``.
"""
