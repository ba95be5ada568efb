"""Loading what ``check --model`` names: ``model_spec`` (a SPEC to an
``ExportedProgram`` with its inputs).

May import ``shared`` and ``models``.
"""
