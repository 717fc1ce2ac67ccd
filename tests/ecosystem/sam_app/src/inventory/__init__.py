"""A small inventory app, fuzzed from its SAM template by tests/ecosystem."""
