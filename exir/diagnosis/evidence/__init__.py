"""Measuring the evidence: every model through every partitioner
(``matrix``), every release in an environment of its own (``releases``).

May import ``shared``, ``backport``, ``models``, ``checking`` and ``loading``.
"""
