"""`prefixlint.engines`: an engine serving a sequence of requests, behind one Protocol.

The interface (a router, `--replicas`, holds N simulators), stable for other packages:

    from prefixlint.engines.request import Request
    from prefixlint.engines.simulators import make_simulator

    sim = make_simulator(profile, capacity_blocks=None, block_size=None, ttl=None, overlap=None)
                                          # one engine instance: vLLM's block pool, or a radix
                                          # tree (SGLang's LRU, API TTLs) for other engines;
                                          # block_size: a trace's; ttl/overlap None: the profile's
    outcome = sim.serve(request)          # serve one request to completion, in log order
    outcome.cached_tokens                 # prompt tokens taken from the cache
    outcome.miss                          # None, or Miss(kind, position, key, other_tokens):
                                          #   kind is "diverged", "evicted", "expired" or "new"
    outcome.over_capacity                 # needed more blocks than the whole cache holds
    sim.evicted_blocks                    # blocks evicted so far
    sim.block_hashes(request)             # the request's block hashes, chained as the engine
                                          #   chains them (what a prefix-aware router compares)

- `Request` (prefixlint/engines/request.py) is engine-neutral and frozen: `line`, `group`,
  `prompt` (token ids; empty for a hashed-block trace), `generated` (the generated tokens
  whose KV was computed), `last_sampled` (the stop token, cached by SGLang's overlap
  scheduler only), `salt`, `lora` (the adapter's `(name, path)`, vLLM's extra key of every
  block and SGLang's `extra_key`, or None),
  `block_ids` (a trace's `hash_ids`, None for token requests), `input_length` and
  `output_length` (tokens), `timestamp` (seconds, None if the log has none),
  `skip_lookup` (prompt logprobs: the engine does not look the prompt up),
  `reported_cached_tokens`, `finish_reason` (`length`: SGLang's overlap scheduler caches no extra token).
- A simulator is one engine instance with its own memory; it never reads the log. Requests
  are served one after another (`serve.serve`, the one loop every command uses); a router
  picks which instance serves each.

Modules: `base` (`Simulator`, `Outcome`, `Miss`), `request` (`Request`), `profiles` and
`engines.toml` (the engines as data), `blockpool` (vLLM's block pool, exact), `radix` (SGLang's
radix tree, and the API caches with a time to live), `simulators` (a profile -> its simulator),
`curve` (vLLM) and `radix_curve` (SGLang): the hit rate at every capacity in one pass; `serve`
(the loop, and what `compare`, `transcript` and `check` measure with it).
"""
