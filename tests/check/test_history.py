"""A system prompt measured as a chat server serves it: followed by the conversation history
(issue 11, item 4). Every number is recomputed here from the requests written out by hand
(ChatML framing, as `check` uses for o200k_base) and tokenized with o200k_base."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.check.served import tokens_before
from prefixlint.cli import cli
from prefixlint.config import clear_cache
from prefixlint.load.system_prompt import named_like_system_prompt
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.history import CURRENT, DEFAULT_TURNS, TURNS, turns
from prefixlint.render.values import GENERATED
from prefixlint.tokenize import load_tokenizer
from tests.load.test_formats import GENERATION, chatml, encode_pieces

POLICY = (
    "You are the support assistant of Harbourlight, a shop for camera lenses. Answer in short\n"
    "paragraphs, cite the section of the returns policy you rely on, and never guess prices,\n"
    "stock levels or delivery dates you do not know. Hand over to a person when asked twice.\n"
)
MOMENTS = GENERATED["iso_datetime"]  # what a per-request time renders as in the two requests
DAYS = GENERATED["iso_date"]


def chatml_text(messages) -> str:
    """Real ChatML (Qwen3's template writes it so)."""
    return "".join(f"<|im_start|>{role}\n{content}<|im_end|>\n" for role, content in messages)


def served_text(system: str, user: str = CURRENT, history=TURNS) -> str:
    return chatml_text([("system", system), *history, ("user", user)]) + "<|im_start|>assistant\n"


def pieces(system: str, user: str = CURRENT, history=TURNS) -> list[str]:
    """The request `check` builds for o200k_base (the ChatML approximation, in its pieces): the
    system prompt, the earlier turns, the user's message."""
    return chatml([("system", system), *history, ("user", user)]) + GENERATION


class Encoder:
    """o200k_base over the approximation's pieces, each tokenized on its own."""

    def __init__(self, tok):
        self.tok = tok

    def served(self, system: str, user: str = CURRENT, history=TURNS) -> list[int]:
        return encode_pieces(self.tok, pieces(system, user, history))

    def history(self, history=TURNS) -> int:
        return len(encode_pieces(self.tok, chatml(history)))


def vllm(shared: int, tokens: int) -> int:
    return min(shared, tokens - 1) // 16 * 16


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


@pytest.fixture(scope="module")
def enc(tok):
    return Encoder(tok)


def check(path, *args):
    result = CliRunner().invoke(cli, ["check", "--offline", "--format", "json", *args, str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["files"][0]


def write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_time_on_the_last_line_of_a_system_prompt_breaks_the_history(tmp_path, tok, enc):
    path = write(tmp_path, "system_prompt.md", POLICY + "Current time: {{ now }}\n")
    entry = check(path, "--isolated")
    (finding,) = entry["findings"]
    assert (finding["code"], finding["severity"], finding["line"], finding["column"]) == ("PFX001", "error", 4, 15)
    a, b = (enc.served(POLICY + f"Current time: {t}\n") for t in MOMENTS)
    history = enc.history()
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    assert finding["reusable_tokens"] == vllm(shared_prefix(a, b), len(b))
    assert finding["history_tokens"] == history == entry["history_tokens"] and finding["history_assumed"] is True
    # moved by hand to the end of the last user message, after the history (no fix: the
    # application writes that message), a promise labelled as such (issue 24 item 4)
    fixed = [enc.served(POLICY, f"{CURRENT}\nCurrent time: {t}") for t in MOMENTS]
    assert finding["fixed_reusable_tokens"] == vllm(shared_prefix(*fixed), len(fixed[1]))
    assert finding["message"] == (
        f"{{{{ now }}}} (a timestamp, changes every request) in the system prompt breaks the reuse of the"
        f" {history:,}-token history a chat server puts after it (assumed: nothing here shows the conversation)"
        f" on every turn: the shared prefix ends at token {shared_prefix(a, b)} of"
        f" {len(a):,}, {100 * shared_prefix(a, b) / len(a):.1f}% reusable"
        f" ({100 * vllm(shared_prefix(a, b), len(b)) / len(a):.1f}% after 16-token blocks). No automatic fix:"
        f" a system prompt on its own: the value belongs in the user's message, which the application writes."
        f" Moved into the last user message by hand: {100 * shared_prefix(*fixed) / len(fixed[0]):.1f}%"
        f" ({100 * vllm(shared_prefix(*fixed), len(fixed[1])) / len(fixed[0]):.1f}% after blocks)."
    )


def test_the_default_history_is_four_turns_of_typical_length(tok):
    assert DEFAULT_TURNS == 4 and len(TURNS) == 8
    assert [role for role, _ in TURNS] == ["user", "assistant"] * 4
    sizes = [len(tok.encode(content)) for _, content in TURNS]
    assert all(15 <= size <= 40 for size in sizes[0::2])  # a sentence or two asked
    assert all(80 <= size <= 200 for size in sizes[1::2])  # a paragraph answered


def test_a_daily_date_in_a_system_prompt_is_a_warning(tmp_path, tok, enc):
    path = write(tmp_path, "prompts/system/base.j2", "Current date: {{ current_date }}.\n" + POLICY)
    (finding,) = check(path, "--isolated")["findings"]
    assert (finding["code"], finding["severity"], finding["line"], finding["column"]) == ("PFX001", "warning", 1, 15)
    a, b = (enc.served(f"Current date: {d}.\n" + POLICY) for d in DAYS)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    # the policy after it is what it costs: a conversation lives within one day, so its turns
    # share the date and the history after it is reused turn after turn
    assert "history_tokens" not in finding and finding["stable_tokens_after"] == len(tok.encode(".\n" + POLICY))


@pytest.mark.parametrize("ending", [
    "Current date: {{ current_date }}.",        # per day: the same on every turn of a conversation
    "Your name is {{ bot_name }}.",             # a deployment constant
    "Reply in {{ user_language }}.",            # per user: constant within a conversation
    "The customer's timezone is {{ timezone }}.",
])
def test_constants_and_per_user_values_at_the_end_are_clean(tmp_path, ending):
    path = write(tmp_path, "system.txt", POLICY + ending + "\n")
    assert check(path, "--isolated")["findings"] == []


def test_a_per_user_value_ahead_of_the_instructions_still_costs_them(tmp_path, tok):
    """The history does not count for it (a new user starts a new conversation), the stable
    instructions between it and the history do."""
    path = write(tmp_path, "system_prompt.md", "You are talking to {{ user_name }}.\n" + POLICY)
    (finding,) = check(path, "--isolated")["findings"]
    assert (finding["code"], finding["severity"], finding["line"]) == ("PFX003", "warning", 1)
    assert "history_tokens" not in finding and "ends the shared prefix" in finding["message"]
    assert finding["stable_tokens_after"] == len(tok.encode(".\n" + POLICY))


def test_a_one_shot_chat_is_measured_as_written(tmp_path):
    """System and user turns and no conversation slot: a complete request, no history added."""
    text = ("messages:\n  - role: system\n    content: |\n"
            + "".join(f"      {line}\n" for line in POLICY.splitlines())
            + "      Current time: {{ now }}\n  - role: user\n    content: '{{ question }}'\n")
    path = write(tmp_path, "classify.yaml", text)
    entry = check(path, "--isolated")
    assert entry["findings"] == [] and "history_tokens" not in entry


def test_a_system_only_chat_file_gets_the_history(tmp_path, tok, enc):
    text = ("messages:\n  - role: system\n    content: |\n"
            + "".join(f"      {line}\n" for line in POLICY.splitlines()) + "      Current time: {{ now }}\n")
    (finding,) = check(write(tmp_path, "agent.yaml", text), "--isolated")["findings"]
    a, b = (enc.served(POLICY + f"Current time: {t}\n") for t in MOMENTS)
    assert (finding["line"], finding["shared_prefix_tokens"], finding["tokens"]) == (7, shared_prefix(a, b), len(a))


def test_history_turns_and_system_prompts_keys(tmp_path, tok, enc):
    prompt = write(tmp_path, "prompts/agent.md", POLICY + "Current time: {{ now }}\n")
    assert check(prompt)["findings"] == []  # not named like a system prompt, nothing listed
    write(tmp_path, ".prefixlint.yaml", "system-prompts: [prompts/agent.md]\nhistory-turns: 2\n")
    clear_cache()
    (finding,) = check(prompt)["findings"]
    short = turns(2)
    a, b = (enc.served(POLICY + f"Current time: {t}\n", history=short) for t in MOMENTS)
    assert finding["history_tokens"] == enc.history(short)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    write(tmp_path, ".prefixlint.yaml", "system-prompts: ['prompts/*.md']\nhistory-turns: 0\n")
    clear_cache()
    assert check(prompt)["findings"] == []  # no history: the time is where it belongs


def test_a_bad_history_turns_value_names_the_file_and_key(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.prefixlint]\nhistory-turns = -1\n")
    prompt = write(tmp_path, "system.txt", POLICY)
    result = CliRunner().invoke(cli, ["check", str(prompt)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "history-turns" in result.stderr and "must be at least 0" in result.stderr


def test_a_loop_over_the_history_renders_the_earlier_turns(tmp_path, tok, enc):
    """`{% for m in history %}` in a system prompt file is the history, not per-request text."""
    loop = "{% for m in history %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    path = write(tmp_path, "system_prompt.j2", "Current time: {{ now }}\n" + POLICY + "Conversation so far:\n" + loop)
    (finding,) = check(path, "--isolated")["findings"]
    assert (finding["code"], finding["line"], finding["column"], finding["severity"]) == ("PFX001", 1, 15, "error")
    lines = "".join(f"{role}: {content}\n" for role, content in TURNS)
    # the template writes the turns itself: the user's message follows, no second history
    a, b = (enc.served(f"Current time: {t}\n" + POLICY + "Conversation so far:\n" + lines, history=())
            for t in MOMENTS)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    # the history's tokens: those of the request starting from the first turn's content to the end
    # of the last one's (here " Hi" starts with the space before the region: not counted)
    text = "".join(pieces("Current time: " + MOMENTS[0] + "\n" + POLICY + "Conversation so far:\n" + lines, history=()))
    starts = [0]
    for token in a:
        starts.append(starts[-1] + len(tok.token_text(token)))  # ASCII text: one character per byte
    first, last = text.index(TURNS[0][1]), text.index(TURNS[-1][1]) + len(TURNS[-1][1])
    assert finding["history_tokens"] == sum(1 for start in starts[:-1] if first <= start < last)
    assert finding["history_tokens"] == len(tok.encode(lines[len("user: "):-1])) - 1


@pytest.mark.parametrize(("path", "named"), [
    ("system.txt", True), ("system_prompt.md", True), ("prompts/SystemPrompt.jinja", True),
    ("agent/custom-system-prompt.md", True), ("systemprompt.md", True), ("chat/system/base.j2", True),
    ("prompts/system_prompts/coder.md", True), ("system_message.txt", False), ("prompts/user.md", False),
    ("operating_system.md", False), ("system/sub/base.j2", False),
])
def test_files_named_like_system_prompts(path, named):
    assert named_like_system_prompt(path) is named


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab \n.é東", min_size=0, max_size=40), st.integers(min_value=0, max_value=45))
def test_tokens_before_counts_the_tokens_starting_before_an_offset(text, offset):
    tok = load_tokenizer("o200k_base")
    ids = tok.encode(text)
    starts = [tok.char_offset(text, ids, i) for i in range(len(ids))]
    assert tokens_before(tok, text, ids, offset) == sum(1 for start in starts if start < offset)


def test_an_agent_configuration_system_prompt_key(tmp_path, tok, enc):
    """`system_prompt:` of an agent's YAML configuration (agent_yaml): a system prompt on its own."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "agent_yaml" / "support_agent.yaml"
    entry = check(path, "--isolated")
    (finding,) = entry["findings"]
    assert entry["format"] == "agent-yaml" and finding["source"] == "agent-yaml"
    assert (finding["code"], finding["line"], finding["column"], finding["severity"]) == ("PFX001", 8, 17, "error")
    a, b = (enc.served(POLICY + f"Current time: {t}\n") for t in MOMENTS)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    named = write(tmp_path, "agent.yaml", "type: agent\nsystem_prompt: prompts/systemprompt.md\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(named)])
    assert result.exit_code == 2 and "`system_prompt` names a file, not a prompt" in result.stderr
    write(tmp_path, "system.txt", POLICY)
    walked = CliRunner().invoke(cli, ["check", "--isolated", str(tmp_path)])
    assert walked.exit_code == 0 and "agent.yaml" not in walked.output  # a walk skips it silently


def test_through_a_real_chat_template_qwen3(tmp_path):
    """Qwen3's own template (tokenizer_config.json from the test extra): the request is its
    ChatML, with the earlier turns between the system prompt and the user's message."""
    from tokenizers import Tokenizer

    from tests.realfiles import model_dir

    model = model_dir(tmp_path / "qwen3", "qwen3/tokenizer.json", "qwen3/tokenizer_config.json")
    path = write(tmp_path, "system_prompt.md", POLICY + "Current time: {{ now }}\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--offline", "--format", "json", "--tokenizer",
                                      str(model), str(path)])
    entry = next(e for e in json.loads(result.stdout)["files"] if e["path"] == str(path))
    assert entry["chat_format"] == "jinja"
    (finding,) = [f for f in entry["findings"] if f["code"] == "PFX001"]
    vocabulary = Tokenizer.from_file(str(model / "tokenizer.json"))
    a, b = (vocabulary.encode(served_text(POLICY + f"Current time: {t}\n"), add_special_tokens=False).ids
            for t in MOMENTS)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    assert finding["severity"] == "error"
    # the history: the tokens starting from the first turn's content to the end of the last one's
    text = served_text(POLICY + f"Current time: {MOMENTS[0]}\n")
    first, last = text.index(TURNS[0][1]), text.index(TURNS[-1][1]) + len(TURNS[-1][1])
    offsets = vocabulary.encode(text, add_special_tokens=False).offsets
    assert finding["history_tokens"] == sum(1 for start, _ in offsets if first <= start < last)
