"""`prefixlint check samples/`: the exact findings of every sample, and their numbers
recomputed here independently (the renders spelled out by hand, tokenized with o200k_base)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.match.prefix import shared_prefix
from prefixlint.tokenize import load_tokenizer
from tests.oracles import vllm_reusable

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

# (file, code, line, column, severity, variable, placeholder as written there)
EXPECTED = [
    ("agent_tools.yaml", "PFX002", 8, 55, "warning", "session_id", "{{ session_id }}"),
    ("chat_template_dated.jinja", "PFX101", 4, 17, "warning", "strftime_now", "strftime_now"),
    ("code_review.prompt", "PFX002", 16, 16, "error", "request_id", "{{request_id}}"),
    ("concierge.prompty", "PFX003", 22, 23, "warning", "customer_name", "{{customer_name}}"),
    ("itinerary_semantic_kernel.yaml", "PFX001", 7, 40, "error", "TimePlugin.Now", "{{TimePlugin.Now}}"),
    ("promptfoo/prompts/translate_chat.json", "PFX004", 4, 25, "error", "attempt", "{{ attempt }}"),
    ("support_langchain_hub.json", "PFX003", 21, 46, "warning", "customer_email", "{customer_email}"),
    ("contoso_chat.jinja2", "PFX003", 4, 19, "warning", "customer_name", "{{ customer_name }}"),
    ("daily_briefing.txt", "PFX001", 1, 10, "warning", "date", "{date}"),
    ("greeting_policy.md", "PFX003", 1, 7, "warning", "user_name", "{{ user_name }}"),
    ("rag_answer.yaml", "PFX005", 17, 22, "error", "documents", "{{ doc.title }}"),
    ("research_agent_chat.yaml", "PFX004", 10, 17, "error", "iteration", "{{ iteration }}"),
    ("research_agent_chat.yaml", "PFX001", 10, 67, "warning", "strftime_now", '{{ strftime_now("%B %d, %Y") }}'),
    ("support_bot.yaml", "PFX001", 10, 21, "error", "now", "{{ now }}"),
    ("ticket_classifier.j2", "PFX006", 18, 9, "warning", "user_message", "{{ user_message }}"),
    ("translate_short.txt", "PFX007", 3, 1, "warning", "input", "${input}"),
]
CLEAN = ["code_review.yaml", "support_bot_fixed.yaml"]


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


@pytest.fixture(scope="module")
def report():
    result = CliRunner().invoke(cli, ["check", str(SAMPLES), "--format", "json", "--isolated"])
    assert result.exit_code == 1, result.output
    return {Path(f["path"]).relative_to(SAMPLES).as_posix(): f for f in json.loads(result.output)["files"]}


def test_at_least_eight_samples_of_realistic_size(tok):
    files = sorted(p for p in SAMPLES.iterdir() if p.is_file())
    assert len(files) >= 8
    sizes = {p.name: len(tok.encode(p.read_text())) for p in files}
    assert sum(size >= 300 for size in sizes.values()) >= 8, sizes


def test_every_sample_is_reported(report):
    assert sorted(report) == sorted({row[0] for row in EXPECTED} | set(CLEAN))
    assert all(entry["error"] is None for entry in report.values())


def test_exact_codes_lines_and_columns(report):
    found = sorted(
        (name, f["code"], f["line"], f["column"], f["severity"], f["variable"], f["placeholder"])
        for name, entry in report.items() for f in entry["findings"]
    )
    assert found == sorted(EXPECTED)


@pytest.mark.parametrize("row", EXPECTED, ids=lambda row: f"{row[0]}-{row[1]}")
def test_positions_point_at_the_placeholder_as_written(row):
    name, _code, line, column, _severity, _variable, placeholder = row
    text_line = (SAMPLES / name).read_text(encoding="utf-8").split("\n")[line - 1]
    assert text_line[column - 1 :].startswith(placeholder)


def test_daily_briefing_numbers(report, tok):
    """The str.format sample: render by hand, move the date line to the end by hand."""
    text = (SAMPLES / "daily_briefing.txt").read_text()
    monday, tuesday = (text.replace("{date}", day).replace("{reports}", "reports") for day in ("2025-03-14", "2025-03-15"))
    a, b = tok.encode(monday), tok.encode(tuesday)
    first_line = lambda t: t.split("\n", 1)  # noqa: E731
    # the date line moves to the end, and the blank line after it (it opened the prompt) goes too
    fixed_a, fixed_b = (tok.encode(rest.removeprefix("\n").rstrip("\n") + "\n" + head + "\n")
                        for head, rest in map(first_line, (monday, tuesday)))
    (finding,) = report["daily_briefing.txt"]["findings"]
    assert finding["tokens"] == len(a)
    assert finding["shared_prefix_tokens"] == shared_prefix(a, b) == len(tok.encode("Today is 2025-03-"))
    assert finding["reusable_tokens"] == vllm_reusable(shared_prefix(a, b), len(b)) == 0
    assert finding["fixed_reusable_tokens"] == vllm_reusable(shared_prefix(fixed_a, fixed_b), len(fixed_b))
    assert finding["fixed_reusable_tokens"] >= 0.9 * len(fixed_b)


def test_greeting_numbers(report, tok):
    text = (SAMPLES / "greeting_policy.md").read_text()
    a, b = (tok.encode(text.replace("{{ user_name }}", name)) for name in ("Maria Garcia", "Kenji Watanabe"))
    (finding,) = report["greeting_policy.md"]["findings"]
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), len(tok.encode("Hello")))
    assert finding["reusable_tokens"] == 0


def test_promptfoo_sample_numbers_from_its_test_vars(report, tok):
    """The promptfoo sample: the counter's two values are the two tests' `attempt` vars, the
    other variables keep the first test's values; ChatML framing written out here."""
    messages = json.loads((SAMPLES / "promptfoo/prompts/translate_chat.json").read_text())
    config = yaml.safe_load((SAMPLES / "promptfoo/promptfooconfig.yaml").read_text())
    first = config["tests"][0]["vars"]

    def request(attempt):
        values = {**first, "attempt": attempt}
        filled = [(m["role"], m["content"].replace("{{ attempt }}", str(values["attempt"]))
                   .replace("{{ target_language }}", values["target_language"]).replace("{{ copy }}", values["copy"]))
                  for m in messages]
        return chatml(filled)

    a, b = encode_pieces(tok, request(1)), encode_pieces(tok, request(2))
    (finding,) = report["promptfoo/prompts/translate_chat.json"]["findings"]
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(b), shared_prefix(a, b))
    assert finding["reusable_tokens"] == vllm_reusable(shared_prefix(a, b), len(b)) == 0


MARKERS = ("<|im_start|>", "<|im_sep|>", "<|im_end|>")


def chatml(messages: list[tuple[str, str]]) -> list[str]:
    """The ChatML approximation as transcript renders it, in the pieces tokenized on their own:
    each marker (a special token on the server, plain text here) and the text between them."""
    pieces: list[str] = []
    for role, content in messages:
        pieces += ["<|im_start|>", role, "<|im_sep|>", content, "<|im_end|>"]
    return [p for p in pieces + ["<|im_start|>", "assistant", "<|im_sep|>"] if p]


def encode_pieces(tok, pieces: list[str]) -> list[int]:
    return [i for piece in pieces for i in tok.encode(piece)]


def test_support_bot_numbers_and_its_fix(report, tok):
    """The chat sample: ChatML framing written out here, the time line moved into the user turn."""
    from prefixlint.render.values import GENERATED

    data = yaml.safe_load((SAMPLES / "support_bot.yaml").read_text())
    system, user = (m["content"] for m in data["messages"])
    question = GENERATED["paragraph"][0]
    times = data["variables"]["now"]["samples"]
    requests = [chatml([("system", system.replace("{{ now }}", t)), ("user", user.replace("{{ question }}", question))])
                for t in times]
    a, b = encode_pieces(tok, requests[0]), encode_pieces(tok, requests[1])
    (finding,) = report["support_bot.yaml"]["findings"]
    shared = shared_prefix(a, b)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared)
    assert finding["reusable_tokens"] == vllm_reusable(shared, len(b))
    stable_system = system.replace("Current time: {{ now }}\n", "", 1)
    # the promise is the fixed file measured as two requests with every volatile value different
    # (the question too, issue 24 item 4)
    fixed = [encode_pieces(tok, chatml([("system", stable_system), ("user", f"{q}\nCurrent time: {t}")]))
             for q, t in zip(GENERATED["paragraph"][:2], times)]
    assert finding["fixed_reusable_tokens"] == vllm_reusable(shared_prefix(*fixed), len(fixed[1]))
    assert report["support_bot.yaml"]["fixed_reusable_tokens"] == finding["fixed_reusable_tokens"]
    # The hand-fixed sample is clean, and its requests share everything up to the time.
    fixed_sample = report["support_bot_fixed.yaml"]
    assert fixed_sample["findings"] == []
    assert fixed_sample["reusable_tokens"] >= 0.9 * fixed_sample["tokens"]


def test_text_output_and_summary_lines(report):
    def report_tokens(name):
        return f"{report[name]['tokens']:,}"

    result = CliRunner().invoke(cli, ["check", str(SAMPLES / "support_bot.yaml"), str(SAMPLES / "code_review.yaml"),
                                      "--isolated"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{SAMPLES / 'support_bot.yaml'}:10:21: PFX001 [*] {{{{ now }}}} (a timestamp, changes every"
                               " request) ends the shared prefix at token ")
    assert "Moved into the last user message: " in lines[0]
    assert lines[1].startswith(f"{SAMPLES / 'support_bot.yaml'}: {report_tokens('support_bot.yaml')} tokens · reusable now ")
    assert lines[2].startswith(f"{SAMPLES / 'code_review.yaml'}: ") and "tokens · reusable now" in lines[2]
    assert lines[-2:] == ["1 finding in 2 files.", "1 fixable with the `--fix` option."]
