"""Reference implementation of Hanzo's agent runtime core (HIP-301), standard library only."""
