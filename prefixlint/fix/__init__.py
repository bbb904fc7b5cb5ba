"""`check --fix` / `--diff`: the suggested fixes as edits in the user's own file (issue 15)."""
