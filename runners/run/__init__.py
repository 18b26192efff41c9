"""Running cases on platforms: batches, the streaming run, jobs, signals, progress."""
