"""`prefixlint replay`: traffic served through an exact prefix-cache simulator."""
