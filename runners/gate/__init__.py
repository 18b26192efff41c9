"""The gate: what turns a run's results into a verdict. ``ledger`` (expectations ledgers:
recorded divergences are xfail, stale or changed entries are problems), ``verdict``
(exit codes, shards), ``triage`` (when the other platforms agree against the reference
or the vector), ``pytest_ledger`` (the ledgers under the pytest plugin)."""
