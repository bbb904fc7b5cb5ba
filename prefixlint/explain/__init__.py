"""Why each request of a log missed the prefix cache, in one vocabulary (issue 21).

- `causes`: the vocabulary (`CAUSES`) and `Cause(cause, token, text)`; naming a differing value
  (`name_value`) with the classifier `check` uses (`prefixlint.load.classify`, rules/signals.yaml).
- `align`: two prompts' texts aligned line by line past their first divergence, each place where
  they still differ (`Region`) with its character span on both sides.
- `kinds`: what a region is: whitespace, tool schemas in another order, retokenized text, text the
  chat template wrote, a per-request document or few-shot example, new content, a value.
- `explainer`: the history of a replay (every earlier prompt and its generated tokens, indexed by
  block), the cached side of each request, and the list of causes of its miss.
- `rewrite`: a logged request rewritten as `check --fix` would fix its template (volatile lines
  after the stable part, tool schemas with sorted keys and a stable order, whitespace normalized).

Nothing here reads a log or runs an engine: `prefixlint.replay` feeds requests and what each
reused, this package explains it.
"""
