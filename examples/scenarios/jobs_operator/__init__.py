"""An operator's own code, as it would be in its repository (used by the scenarios example tests)."""
