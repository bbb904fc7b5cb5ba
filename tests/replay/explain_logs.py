"""Request logs with a known cause for every request (issue 21), generated for the tests.

Each generator returns (log lines, expected) where expected[i] is the list of causes request i
must be explained by (its first one: why it missed), known by construction: every request
changes exactly the things its kind names relative to the request before it, with values never
seen before (so that no older request shares more). The logs are rendered by the tests with a
real tokenizer and chat template (tests/realfiles.py).

    python tests/replay/explain_logs.py OUT_DIR    # writes every log and its .expected.json
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

INSTRUCTIONS = (
    "You are the support assistant of ACME Rockets. Answer in two short paragraphs and cite the policy"
    " section you rely on. Never guess order numbers, prices or delivery dates you do not know; say so and"
    " offer to look them up. Escalate anything about safety, injuries or legal threats to a human agent at once."
    "\nPolicies:\n1. Refunds within 30 days of delivery, with the order number.\n2. Shipping to every planet"
    " of the inner solar system; the outer planets by request.\n3. Warranty of two years on every engine."
)
WORDS = ("alpha", "delta", "orbit", "fuel", "nozzle", "payload", "booster", "stage", "comet", "lander",
         "thrust", "valve", "gimbal", "fairing", "hatch", "tank", "relay", "beacon", "vector", "apogee")
TOOLS = [
    {"type": "function", "function": {"name": "track_order", "description": "Where an order is now.",
                                      "parameters": {"type": "object", "properties": {
                                          "order_id": {"type": "string", "description": "The order number."},
                                          "planet": {"type": "string", "enum": ["mars", "venus", "moon"]}},
                                          "required": ["order_id"]}}},
    {"type": "function", "function": {"name": "refund", "description": "Start a refund.",
                                      "parameters": {"type": "object", "properties": {
                                          "order_id": {"type": "string"}, "reason": {"type": "string"}},
                                          "required": ["order_id", "reason"]}}},
]


def _shuffled(value, rng: random.Random):
    """The same JSON with every object's keys in another order."""
    if isinstance(value, dict):
        keys = list(value)
        while len(keys) > 1 and keys == list(value):
            rng.shuffle(keys)
        return {k: _shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def _sentence(rng: random.Random, n: int = 8) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


class State:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.serial = 0
        self.time = 1_740_823_200  # 2025-03-01 10:00:00 UTC
        self.fields = {"timestamp": self.timestamp(), "identifier": self.identifier(),
                       "user-data": self.email(), "counter": self.counter()}
        self.example = self.few_shot()
        self.document = self.retrieved()
        self.tools = TOOLS
        self.line_end = "\n"
        self.question = self.new_question()

    def fresh(self) -> int:
        self.serial += 1
        return self.serial

    def timestamp(self) -> str:
        from datetime import datetime, timezone

        self.time += self.rng.randint(1, 50)
        return "Current time: " + datetime.fromtimestamp(self.time, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")

    def identifier(self) -> str:
        return (f"Request ID: {self.rng.getrandbits(32):08x}-{self.fresh():04x}"
                f"-4{self.rng.getrandbits(12):03x}-8abc-{self.rng.getrandbits(48):012x}")

    def email(self) -> str:
        return f"Customer e-mail: {self.rng.choice(('ann', 'bob', 'eve', 'kim'))}.{self.fresh()}@example.com"

    def counter(self) -> str:
        return f"Iteration {self.fresh() + 3}"

    def few_shot(self) -> str:
        n = self.fresh()
        return f"Example:\nQ: {_sentence(self.rng, 6)[:-1]} {n}?\nA: {_sentence(self.rng, 10)}"

    def retrieved(self) -> str:
        return "Retrieved document:\n" + "\n".join(_sentence(self.rng, 12) for _ in range(3)) + f" (doc {self.fresh()})"

    def new_question(self) -> str:
        return f"{_sentence(self.rng, 7)[:-1]} {self.fresh()}?"

    def system(self, parts: tuple[str, ...]) -> str:
        head = [self.fields[p] for p in parts if p in self.fields]
        body = [self.example] if "few-shot" in parts else []
        body += [self.document] if "retrieved" in parts else []
        text = "\n".join(head + body + [INSTRUCTIONS])
        return text.replace("\n", self.line_end)

    def request(self, parts: tuple[str, ...], with_tools: bool) -> dict:
        body = {"messages": [{"role": "system", "content": self.system(parts)},
                             {"role": "user", "content": self.question}]}
        if with_tools:
            body["tools"] = self.tools
        return body

    def change(self, kind: str) -> None:
        if kind in self.fields:
            self.fields[kind] = getattr(self, {"user-data": "email"}.get(kind, kind))()
        elif kind == "few-shot":
            self.example = self.few_shot()
        elif kind == "retrieved":
            self.document = self.retrieved()
        elif kind == "tool-order":  # keys in another order, and half the time the tools too
            self.tools = _shuffled(TOOLS, self.rng)[:: self.rng.choice((1, -1))]
        elif kind == "whitespace":
            # never seen before: k trailing spaces, CRLF every other time
            self.spaces = getattr(self, "spaces", 0) + 1
            self.line_end = " " * (self.spaces // 2) + ("\r\n" if self.spaces % 2 else "\n")
        if kind != "full-hit":
            self.question = self.new_question()


def mixed_log(n: int = 120, seed: int = 7, parts: tuple[str, ...] = ("timestamp", "identifier", "user-data",
              "counter", "few-shot", "retrieved"), kinds: tuple[str, ...] | None = None, with_tools: bool = True):
    """One template whose lines are a timestamp, an id, an e-mail, a counter, a few-shot example
    and a retrieved document ahead of the instructions and tool schemas; each request changes one
    of them (or the tools' key order, the line endings, only the question, or nothing)."""
    rng = random.Random(seed)
    state = State(rng)
    kinds = kinds or (*parts, "tool-order", "whitespace", "new-content", "full-hit")
    lines, expected = [json.dumps(state.request(parts, with_tools))], [["cold"]]
    for index in range(1, n):
        kind = kinds[index % len(kinds)] if index < len(kinds) else rng.choice(kinds)
        state.change(kind)
        lines.append(json.dumps({"request_id": f"req-{index}", **state.request(parts, with_tools)}))
        expected.append([kind])
    return lines, expected


def triple_log(n: int = 40, seed: int = 3, tenants: int = 1):
    """A timestamp, a request id and an e-mail on the first three lines of the system prompt,
    all three new on every request: each is named, in order. With `tenants`, requests take
    turns among that many companies, each with instructions of its own after the three lines
    (the first request of each is cold: its instructions are new)."""
    rng = random.Random(seed)
    state = State(rng)
    parts = ("timestamp", "identifier", "user-data")
    lines, expected = [], []
    for index in range(n):
        for kind in parts:
            state.change(kind)
        body = state.request(parts, False)
        tenant = index % tenants
        if tenants > 1:
            body["messages"][0]["content"] = body["messages"][0]["content"].replace(
                "ACME Rockets", ("ACME Rockets", "Northwind Orbital", "Globex Launch", "Initech Space")[tenant])
        lines.append(json.dumps(body))
        expected.append(["cold"] if index == 0 else list(parts))
    return lines, expected


def cold_log(n: int = 12, seed: int = 5):
    """Every request a system prompt of its own (a new template each time)."""
    rng = random.Random(seed)
    lines, expected = [], []
    for index in range(n):
        topic = " ".join(rng.sample(WORDS, 5))
        system = f"You write {topic} reports for team {index}. " + " ".join(_sentence(rng, 14) for _ in range(6))
        lines.append(json.dumps({"messages": [{"role": "system", "content": system},
                                              {"role": "user", "content": _sentence(rng, 6)}]}))
        expected.append(["cold"])
    return lines, expected


def conversation_log(n: int = 10, seed: int = 11, reasoning: bool = True):
    """Two-turn conversations whose replies carry reasoning: the second turn repeats the reply
    (and its reasoning) as history. With a template that drops earlier reasoning (Qwen3), the
    second turn's cause is `template`; with one that keeps history as generated, `new-content`."""
    rng = random.Random(seed)
    lines, expected = [], []
    for index in range(n):
        system = INSTRUCTIONS
        first = {"role": "user", "content": _sentence(rng, 7)}
        reply = {"role": "assistant", "content": _sentence(rng, 12)}
        if reasoning:
            reply["reasoning_content"] = _sentence(rng, 15)
        turn1 = {"messages": [{"role": "system", "content": system}, first]}
        lines.append(json.dumps({"request": turn1, "response": {"choices": [{"message": reply, "finish_reason": "stop"}]}}))
        expected.append(["cold"] if index == 0 else ["new-content"])
        turn2 = {"messages": [*turn1["messages"], reply, {"role": "user", "content": _sentence(rng, 6)}]}
        lines.append(json.dumps({"request": turn2}))
        expected.append(["template" if reasoning else "new-content"])
    return lines, expected


def sharegpt(chats: int = 3, turns: int = 2, seed: int = 13) -> str:
    rng = random.Random(seed)
    data = []
    for index in range(chats):
        conversation = [{"from": "system", "value": f"Chat {index}. " + INSTRUCTIONS}]
        for _ in range(turns):
            conversation += [{"from": "human", "value": _sentence(rng, 6)}, {"from": "gpt", "value": _sentence(rng, 9)}]
        data.append({"id": f"chat-{index}", "conversations": conversation})
    return json.dumps(data, indent=1)


LOGS = {"mixed": mixed_log, "triple": triple_log, "cold": cold_log, "conversation": conversation_log}


def main(out: str) -> None:
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    for name, make in LOGS.items():
        lines, expected = make()
        (target / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (target / f"{name}.expected.json").write_text(json.dumps(expected), encoding="utf-8")
    (target / "sharegpt.json").write_text(sharegpt(), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
