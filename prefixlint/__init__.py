"""prefixlint: measure and lint LLM prompt prefix-cache reuse, token-exact."""

__version__ = "0.1.0"
