"""`prefixlint kv`: the KV-cache memory behind a model, per token and per conversation."""
