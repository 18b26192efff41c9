"""Reports of a run's results: ``text`` (the console's, and the summary and counts every
report shares), ``markdown``, ``html`` (one self-contained page), ``history`` (several
runs side by side) and ``skips`` (skip reasons and partial answers, grouped)."""
