"""A GPU kernel simulator with race detection (see README)."""
