"""The built-in models, torch only, random weights: those that carry
#22309's trigger and the controls (``catalog``, ``controls``).

May import ``shared``.
"""
