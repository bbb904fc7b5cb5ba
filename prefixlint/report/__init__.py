"""Report: turn measurements and findings into text, JSON and the other output formats."""
