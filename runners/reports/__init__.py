"""Reports of a run's results: ``text`` (the console's, and the summary and counts every
report shares), ``markdown``, ``html`` (one self-contained page) and ``history`` (several
runs side by side)."""
