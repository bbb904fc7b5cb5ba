"""`prefixlint replay`: traffic served through an exact prefix-cache simulator.

The interface a router (`--replicas`, `--router`) holds N of, stable for other packages:

    from prefixlint.replay.request import Request
    from prefixlint.replay.simulators import make_simulator

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

- `Request` (prefixlint/replay/request.py) is engine-neutral and frozen: `line`, `group`,
  `prompt` (token ids; empty for a hashed-block trace), `generated` (the generated tokens
  whose KV was computed), `last_sampled` (the stop token, cached by SGLang's overlap
  scheduler only), `salt`, `lora` (the adapter's name, vLLM's LoRA extra key of every block, or None),
  `block_ids` (a trace's `hash_ids`, None for token requests), `input_length` and
  `output_length` (tokens), `timestamp` (seconds, None if the log has none),
  `skip_lookup` (prompt logprobs: the engine does not look the prompt up),
  `reported_cached_tokens`.
- A simulator is one engine instance with its own memory; it never reads the log. Requests
  are served one after another; a router picks which instance serves each.
- `prefixlint.replay.run.replay_log(log, make_replay, prepare, ...)` reads a log as it comes
  and serves each request through `make_replay(is_trace)`'s `Replay`; a router can stand in
  for the `Replay` (anything with `serve(request) -> Outcome`).
- `Replay` (prefixlint/replay/driver.py) tallies outcomes into `ReplayStats` (overall, per
  group, per place); `prefixlint/replay/report.py` prints them.

Modules: `requestlog` (request logs) and `trace` (hashed-block traces) read the log as it
comes, `prepare` renders and tokenizes a logged request (`media`: image and audio parts,
`lora`: adapters), `run` drives a pass; `simulators` and `radix` are the engines; `driver`
tallies; `curve` (vLLM, one LRU stack) and `radix_curve` (SGLang) give the hit rate at every
capacity in one pass; `report` and `curve_report` print. The exact vLLM block pool is
`prefixlint.match.blockpool`.

Replicas and parallel preparation (issue 13): `routing` (the policies), `cluster` (N
simulators behind one policy, load in time; it stands where one simulator stands),
`routed` (what the options build), `router_report`; `prepared`, `sources`, `parallel`
(`--workers`) and `ray_source` (`--ray`) render and tokenize elsewhere and give
`run.replay_log` its records in log order; `options` holds the flags and their checks.
"""
