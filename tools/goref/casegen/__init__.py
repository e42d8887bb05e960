"""Adversarial input cases for the Go reference harness (see tools/goref/README.md)."""
