"""`prefixlint report`: each template measured at a git base and now, as a pull-request comment."""
