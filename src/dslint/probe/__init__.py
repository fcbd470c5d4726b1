"""Runtime probe: what the files cannot show (processes per GPU, ranks, threads, cores).

Nothing here is imported by `dslint check`; the heavy or optional modules (pynvml, torch)
are imported inside the functions that need them.
"""
