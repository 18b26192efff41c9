"""What a platform's answer means: comparison, outcomes, causes and clusters."""
