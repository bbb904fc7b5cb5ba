"""`prefixlint replay`: traffic served through an exact prefix-cache simulator.

The engines themselves (one `Request`, the `Simulator` Protocol, vLLM's block pool, the radix
tree, the curves and the serve loop) are `prefixlint.engines`.

- `prefixlint.replay.driver.replay_log(log, make_replay, prepare, ...)` reads a log as it
  comes and serves each request through `make_replay(is_trace)`'s `Replay`; a router can stand
  in for the `Replay` (anything with `serve(request) -> Outcome`).
- `Replay` (prefixlint/replay/tally.py) tallies outcomes into `ReplayStats` (overall, per
  group, per place); `prefixlint/replay/report.py` prints them.

Modules: `requestlog` (request logs) and `trace` (hashed-block traces) read the log as it
comes, `prepare` renders and tokenizes a logged request (`media`: image and audio parts,
`lora`: adapters), `renderer` is the replay's `prepare` (the tokenizer loaded at the first line
that needs it), `simulator` builds the engine the options name (capacity, time to live, a
router or a curve), `driver` drives a pass through `prefixlint.engines.serve`; `tally`
tallies; `report` and `curve_report` print. The command line (click) is
`prefixlint/commands/replay.py` and `replay_options.py`.

Replicas and parallel preparation (issue 13): `routing` (the policies), `cluster` (N
simulators behind one policy, load in time; it stands where one simulator stands),
`routed` (what the options build), `router_report`; `prepared`, `sources`, `parallel`
(`--workers`) and `ray_source` (`--ray`) render and tokenize elsewhere and give
`driver.replay_log` its records in log order.
"""
