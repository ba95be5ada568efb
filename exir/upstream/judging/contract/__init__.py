"""The variants of ``call`` along the contract the tests state (#38), and
the witnesses that show each wrong one observably wrong.

May import ``shared`` and ``upstream.judging``.
"""
