"""Job 4, the survey: which real models #22309 blocks, lowered unpatched and
with the backport, zoo by zoo (``cli``): the selection (``zoo``), a model in
a process of its own (``lower_one``, run as a file), the outcomes it gives
(``outcomes``), the loop (``run``) and the resumable record (``record``).

May import ``shared`` and ``diagnosis/checking`` (the partitioners' list);
the unpatched lowerings import nothing of this project.
"""
