"""scenarios: run operator ticks against fakeapi under controlled interleavings and faults."""
