"""How long reading prompts out of program source takes: a 2,000-line Python module and a
2,000-line TypeScript module, each with a few prompts among ordinary code.

Times `prefixlint.load.registry.load_templates` (parse with `ast` / tree-sitter, find the
prompts, build the templates) in CPU time of this process (less distorted by other load on the
machine than wall time), median and best of several runs after one warm-up run (the warm-up
imports the modules and the tree-sitter grammar), next to the parse alone (`ast.parse`, the
tree-sitter parse): the floor no reader of Python or TypeScript source avoids. Run:

    python benchmarks/bench_sources.py [--runs 21]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

PROMPT_PY = '''
SYSTEM_PROMPT_{n} = """You are assistant number {n}. Today's date is {{date}}.
Answer questions about orders, refunds and shipping, and cite the policy section you used.
Never promise a delivery date the carrier has not confirmed."""
'''
CODE_PY = '''
def handler_{n}(request, store):
    """Look up order {n} and format a short reply."""
    order = store.get(request["order_id"])
    if order is None:
        return {{"status": 404, "message": "not found"}}
    total = sum(line["price"] * line["quantity"] for line in order["lines"])
    return {{"status": 200, "total": round(total, 2), "items": len(order["lines"])}}
'''
PROMPT_TS = '''
export const systemPrompt{n} = `You are assistant number {n}. Today is ${{new Date().toDateString()}}.
Answer questions about orders, refunds and shipping, and cite the policy section you used.`;
'''
CODE_TS = '''
export function handler{n}(request: Request, store: Map<string, Order>) {{
  const order = store.get(request.orderId);
  if (!order) {{
    return {{ status: 404, message: "not found" }};
  }}
  const total = order.lines.reduce((sum, line) => sum + line.price * line.quantity, 0);
  return {{ status: 200, total: Math.round(total * 100) / 100, items: order.lines.length }};
}}
'''


def module(prompt: str, code: str, lines: int) -> str:
    parts, n = [], 0
    while sum(part.count("\n") for part in parts) < lines:
        parts.append((prompt if n % 10 == 0 else code).format(n=n))
        n += 1
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args().runs
    from prefixlint.load.registry import load_templates

    with tempfile.TemporaryDirectory() as folder:
        for name, prompt, code in (("module.py", PROMPT_PY, CODE_PY), ("module.ts", PROMPT_TS, CODE_TS)):
            path = Path(folder) / name
            text = module(prompt, code, 2000)
            path.write_text(text)
            templates = load_templates(str(path))  # warm-up: imports, grammar
            times, floors = [], []
            for _ in range(runs):
                floors.append(timed(parse_only, name, text))
                times.append(timed(load_templates, str(path)))
            print(f"{name}: {text.count(chr(10)):,} lines, {len(text):,} characters, {len(templates)} prompts ({runs} runs)")
            print(f"  load_templates  CPU median {statistics.median(times):6.1f} ms, best {min(times):6.1f} ms")
            print(f"  parse alone     CPU median {statistics.median(floors):6.1f} ms, best {min(floors):6.1f} ms")


def timed(function, *args) -> float:
    start = time.process_time()
    function(*args)
    return (time.process_time() - start) * 1000


def parse_only(name: str, text: str) -> None:
    if name.endswith(".py"):
        import ast

        ast.parse(text)
    else:
        from prefixlint.load.ts_grammar import parser

        parser("typescript").parse(text.encode("utf-8"))


if __name__ == "__main__":
    main()
