"""Job 3, the diagnosis of a user's export: ``check`` lowers a model through
the user's partitioners unpatched and with the backport side by side
(``check``, ``columns``, ``worker``, ``model_spec``), reads the failure
(``findings``) and gives a verdict; ``matrix`` does it for every model of
``models`` through every partitioner of the registry (``partitioners``).

May import ``shared`` and ``backport`` (its fixed column applies the
backport); never ``upstream``.
"""
