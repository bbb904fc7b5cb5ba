"""The `check` pipeline: load -> render -> tokenize -> match -> rules, for one file at a time."""
