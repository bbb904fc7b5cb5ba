"""`replay` names a cause for every miss (issue 21), on logs with a known cause per request.

The logs come from tests/replay/explain_logs.py; they are rendered with real tokenizers and chat
templates (Qwen3's tokenizer with Qwen2.5's and Qwen3's templates, Llama 3's with Llama 3.2's).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli as main
from prefixlint.explain.align import regions
from tests.realfiles import model_dir
from tests.replay import explain_logs


@pytest.fixture(scope="module")
def qwen25(tmp_path_factory):
    return model_dir(tmp_path_factory.mktemp("qwen25"), "qwen3/tokenizer.json", chat_template="template/qwen2.5")


@pytest.fixture(scope="module")
def qwen3(tmp_path_factory):
    return model_dir(tmp_path_factory.mktemp("qwen3"), "qwen3/tokenizer.json", "qwen3/tokenizer_config.json")


def replay(tmp_path, lines, model, *args, name="log.jsonl"):
    log = tmp_path / name
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = tmp_path / (name + ".rows")
    result = CliRunner().invoke(main, ["replay", str(log), "-t", str(model), "--offline", "--per-request",
                                       str(rows), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    return data, [json.loads(line) for line in rows.read_text().splitlines()], result.exit_code


def first_causes_right(rows, expected):
    right, total = Counter(), Counter()
    wrong = []
    for row, want in zip(rows, expected, strict=True):
        total[want[0]] += 1
        got = [c["cause"] for c in row["causes"]]
        if got[: len(want)] == want:
            right[want[0]] += 1
        else:
            wrong.append((row["index"], want, got))
    return {kind: right[kind] / total[kind] for kind in total}, wrong


@pytest.fixture(scope="module")
def llama31(tmp_path_factory):
    return model_dir(tmp_path_factory.mktemp("llama31"), "llama3/tokenizer.json", chat_template="template/llama3.1")


def _model(request, template):
    return "o200k_base" if template == "o200k_base" else request.getfixturevalue(template)


@pytest.mark.parametrize("template", ["qwen25", "llama31", "o200k_base"])
def test_every_kind_of_the_mixed_log_is_named(tmp_path, request, template):
    """Qwen2.5 writes each tool schema on one line of the system prompt, Llama 3.1 indented
    over many lines of the first user message, and o200k_base's ChatML approximation joins the
    messages without a newline: each place is found and named either way."""
    lines, expected = explain_logs.mixed_log(seed={"qwen25": 7, "llama31": 8, "o200k_base": 9}[template])
    data, rows, _ = replay(tmp_path, lines, _model(request, template))
    assert len(rows) == len(lines) == data["requests"]
    rates, wrong = first_causes_right(rows, expected)
    assert set(rates) == {"cold", "timestamp", "identifier", "user-data", "counter", "few-shot", "retrieved",
                          "tool-order", "whitespace", "new-content", "full-hit"}
    assert min(rates.values()) >= 0.95, wrong
    # the first cause is exactly where reuse stops: the first token that differs from the cached side
    for row in rows:
        cause = row["causes"][0]
        if cause["cause"] not in ("cold", "full-hit"):
            assert row["cached_tokens"] <= cause["token"] < row["prompt_tokens"]
    # places are aggregated by cause: a cause's requests at one place, never two causes behind one sample
    places = data["causes"]["places"]
    assert len({(p["cause"], p["token"]) for p in places}) == len(places)
    by_cause = data["causes"]["by_cause"]
    assert sum(v["requests"] for v in by_cause.values()) == len(rows)
    assert by_cause["tool-order"]["requests"] == sum(1 for e in expected if e == ["tool-order"])


@pytest.mark.parametrize("tenants", [1, 4])
def test_timestamp_id_and_email_are_all_named_in_order(tmp_path, qwen25, tenants):
    """With four tenants taking turns (instructions of their own after the three lines), the
    places past the first are counted against the same tenant's last request."""
    lines, expected = explain_logs.triple_log(tenants=tenants)
    data, rows, _ = replay(tmp_path, lines, qwen25)
    rates, wrong = first_causes_right(rows, expected)
    assert rates == {"cold": 1.0, "timestamp": 1.0}, wrong
    for row in rows[1:]:
        causes = [c["cause"] for c in row["causes"]]
        assert causes[:3] == ["timestamp", "identifier", "user-data"]
        # a tenant's first request also differs in the company's name, further down
        assert causes[3:] == ([] if row["index"] >= tenants else ["other"])
        tokens = [c["token"] for c in row["causes"]]
        assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens)
        assert row["causes"][2]["text"].endswith("@example.com")


@pytest.mark.parametrize("template", ["qwen25", "llama31"])
def test_prompts_of_their_own_are_cold(tmp_path, request, template):
    """Even when the template's header (Llama 3.1's dates) and markup are shared."""
    lines, expected = explain_logs.cold_log()
    _, rows, _ = replay(tmp_path, lines, _model(request, template))
    assert [r["causes"][0]["cause"] for r in rows] == ["cold"] * len(lines)


def test_dropped_reasoning_is_the_templates_doing(tmp_path, qwen3, qwen25):
    lines, expected = explain_logs.conversation_log(reasoning=True)
    _, rows, _ = replay(tmp_path, lines, qwen3)
    rates, wrong = first_causes_right(rows, expected)
    assert rates == {"cold": 1.0, "new-content": 1.0, "template": 1.0}, wrong
    # a template that keeps history as generated: the second turn only adds new content
    lines, expected = explain_logs.conversation_log(reasoning=False)
    _, rows, _ = replay(tmp_path, lines, qwen25, name="plain.jsonl")
    assert [r["causes"][0]["cause"] for r in rows] == [e[0] for e in expected]
    assert {r["causes"][0]["cause"] for r in rows[1::2]} == {"new-content"}


def test_a_date_written_by_the_chat_template(tmp_path):
    model = model_dir(tmp_path, "llama3/tokenizer.json", chat_template="template/llama3.2")
    body = {"messages": [{"role": "system", "content": explain_logs.INSTRUCTIONS},
                         {"role": "user", "content": "Where is my order?"}]}
    lines = [json.dumps({"timestamp": stamp, "request": body}) for stamp in
             ("2025-03-01T23:59:00Z", "2025-03-01T23:59:30Z", "2025-03-02T00:00:10Z")]
    _, rows, _ = replay(tmp_path, lines, model)
    assert [r["causes"][0]["cause"] for r in rows] == ["cold", "full-hit", "template"]
    assert "02 Mar 2025" in rows[2]["causes"][0]["text"]


def test_the_same_text_in_other_tokens_is_retokenized(tmp_path, qwen25):
    from prefixlint.tokenize import load_tokenizer

    tok = load_tokenizer(str(qwen25), offline=True)
    text = explain_logs.INSTRUCTIONS + "\nQuestion\n\nwhere is my order?"
    canonical = tok.encode(text)
    newline = tok.encode("\n")
    split = []  # the double newline as two single ones, as a model can generate it
    for token in canonical:
        split += newline * 2 if tok.token_text(token) == "\n\n" else [token]
    assert split != canonical and "".join(map(tok.token_text, split)) == text
    lines = [json.dumps({"prompt": split}), json.dumps({"prompt": text})]
    _, rows, _ = replay(tmp_path, lines, qwen25)
    assert rows[1]["causes"][0]["cause"] == "retokenized"
    assert rows[1]["causes"][0]["token"] == next(i for i, (a, b) in enumerate(zip(canonical, split)) if a != b)


def test_evicted_blocks_are_named_evicted(tmp_path, qwen25):
    lines, _ = explain_logs.cold_log(n=6)
    _, rows, _ = replay(tmp_path, [*lines, lines[0]], qwen25, "--cache-tokens", "256")
    assert rows[-1]["causes"][0]["cause"] == "evicted"
    _, rows, _ = replay(tmp_path, [*lines, lines[0]], qwen25, name="unbounded.jsonl")
    assert rows[-1]["causes"][0]["cause"] == "full-hit"


def test_per_request_rows_are_the_contract(tmp_path, qwen25):
    lines, _ = explain_logs.mixed_log(n=12)
    data, rows, _ = replay(tmp_path, lines, qwen25)
    assert [r["index"] for r in rows] == list(range(12))
    assert "request_id" not in rows[0] and [r["request_id"] for r in rows[1:]] == [f"req-{i}" for i in range(1, 12)]
    assert sum(r["prompt_tokens"] for r in rows) == data["prompt_tokens"]
    assert sum(r["cached_tokens"] for r in rows) == data["cached_tokens"]
    for row in rows:
        assert {"index", "prompt_tokens", "cached_tokens", "causes"} <= set(row)
        assert row["causes"] and all(set(c) == {"cause", "token", "text"} for c in row["causes"])


def test_fail_under_gates_on_the_hit_rate(tmp_path, qwen25):
    lines, _ = explain_logs.triple_log(n=20)
    data, _, code = replay(tmp_path, lines, qwen25, "--fail-under", "0.5")
    assert data["hit_rate"] < 0.15 and code == 1
    chat, _ = explain_logs.conversation_log(n=6, reasoning=False)
    repeated = [chat[0]] * 2 + [chat[1]] * 2
    data, _, code = replay(tmp_path, repeated, qwen25, "--fail-under", "50%", name="high.jsonl")
    assert data["hit_rate"] > 0.5 and code == 0
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "high.jsonl"), "--fail-under", "lots"])
    assert result.exit_code == 2 and "--fail-under" in result.output


@pytest.mark.parametrize("form", ["array", "lines"])
def test_sharegpt_three_two_turn_chats_are_six_requests(tmp_path, qwen25, form):
    text = explain_logs.sharegpt(chats=3, turns=2)
    if form == "lines":
        text = "\n".join(json.dumps(chat) for chat in json.loads(text))
    data, rows, _ = replay(tmp_path, text.split("\n"), qwen25, name=f"chats.{form}")
    assert data["requests"] == 6 and data["bad_lines"] == []
    assert [r["request_id"] for r in rows] == [f"chat-{c}-{t}" for c in range(3) for t in (1, 2)]
    # the second turn carries the first reply: it reuses the whole first request and that reply
    for first, second in zip(rows[::2], rows[1::2]):
        assert second["causes"][0]["cause"] == "new-content"
        assert second["cached_tokens"] >= first["prompt_tokens"] - 16


def _words(body: dict) -> Counter:
    texts = [m["content"] for m in body.get("messages", ())] + [body.get("prompt", "")]
    words = Counter(w for t in texts for w in t.split())
    for tool in body.get("tools", ()):
        words.update(json.dumps(tool, sort_keys=True).split())
    return words


def test_rewrite_moves_nothing_but_volatile_lines_schemas_and_whitespace(tmp_path, qwen25):
    lines, _ = explain_logs.mixed_log(n=60)
    out = tmp_path / "rewritten.jsonl"
    data, _, _ = replay(tmp_path, lines, qwen25, "--rewrite", str(out))
    rewritten = out.read_text().splitlines()
    assert len(rewritten) == len(lines)
    for before, after in zip(lines, rewritten):
        assert _words(json.loads(before)) == _words(json.loads(after))
        system = json.loads(after)["messages"][0]["content"]
        assert "Current time:" not in system and "Request ID:" not in system and "\r" not in system
    report = data["rewrite"]
    assert report["before"]["hit_rate"] == data["hit_rate"]
    assert report["after"]["hit_rate"] > report["before"]["hit_rate"] + 0.2
    assert report["tools_sorted"] > 0 and report["moved_lines"] >= 4 * 60


@settings(max_examples=200, deadline=None)
@given(st.text("ab \n:1", max_size=40), st.text("ab \n:1", max_size=40))
def test_regions_account_for_every_difference(a, b):
    """Replacing each region of `a` by the cached side's text there gives `b` back."""
    from prefixlint.match.prefix import shared_prefix

    start = shared_prefix(a, b)
    aligned = regions(a, b, start)
    rebuilt, at, other_at = [], 0, 0
    for region in aligned.regions:
        assert at <= region.start <= region.end <= len(a)
        assert other_at <= region.other_start <= region.other_end <= len(b)
        rebuilt.append(a[at: region.start])
        rebuilt.append(b[region.other_start: region.other_end])
        at, other_at = region.end, region.other_end
    rebuilt.append(a[at:])
    assert "".join(rebuilt) == b


def test_a_date_inside_a_retrieved_document_is_the_document(tmp_path):
    """A value the classifier knows (a date), inside a longer differing text ahead of stable
    instructions: the place is the document, not the date."""
    docs = ["The Falcon launch on 2024-05-01 slipped two days because of high winds over the pad.",
            "Our Mars depot reopened on 2024-06-11 after the dust storm; deliveries resume weekly.",
            "Refund policy 7 changed on 2024-07-02: engines bought in bulk have sixty days."]
    lines = [json.dumps({"messages": [{"role": "system", "content": f"Context: {doc}\n{explain_logs.INSTRUCTIONS}"},
                                      {"role": "user", "content": "Hi?"}]}) for doc in docs]
    _, rows, _ = replay(tmp_path, lines, "o200k_base")
    assert [r["causes"][0]["cause"] for r in rows] == ["cold", "retrieved", "retrieved"]
    assert rows[1]["causes"][0]["text"].startswith("Our Mars depot")


def test_workers_give_the_same_causes(tmp_path, qwen25):
    """--workers renders elsewhere; what the messages hold travels with each record."""
    lines, _ = explain_logs.mixed_log(n=40, seed=21)
    alone, rows, _ = replay(tmp_path, lines, qwen25)
    workers, worker_rows, _ = replay(tmp_path, lines, qwen25, "--workers", "2", name="again.jsonl")
    assert worker_rows == rows and workers["causes"] == alone["causes"]
