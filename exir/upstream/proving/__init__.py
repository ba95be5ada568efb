"""Proving the patch on a checkout's refs: ``git am``, the tests without and
with the fix, the linters and mypy, the ``exir/tests`` differential.

May import ``shared`` and ``making``.
"""
