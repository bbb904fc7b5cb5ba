"""`check` on chat files through the model's own chat template (issue 4, "Rules for check").

Real tokenizers and templates (tests/realfiles.py), offline: a model directory with Qwen3's
tokenizer.json and tokenizer_config.json (its template drops earlier `<think>`: PFX102),
and one with Llama 3's tokenizer.json and Llama 3.2's chat_template.jinja (it writes today's
date with `strftime_now`: PFX101). The user's own finding is recomputed here from the
rendered strings written out by hand and tokenized with the `tokenizers` library.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli
from tests.oracles import naive_shared_prefix as shared
from tests.oracles import vllm_reusable
from tests.realfiles import model_dir, real_file

SAMPLES = ("2025-03-14T09:26:53Z", "2025-03-14T09:27:41Z")
POLICY = (
    "You are the support assistant of Acme Routers. Answer in short paragraphs, cite the\n"
    "section of the warranty policy you rely on, and never guess order numbers, prices or\n"
    "delivery dates you do not know. Escalate to a human agent when the customer asks twice.\n"
    "Refunds are possible within 30 days of delivery for unopened products, and within 14\n"
    "days for opened ones if the product is defective.\n"
)
QUESTION = "My router keeps dropping the connection every evening. What can I do?"
CHAT = (
    "variables:\n"
    f"  now: {{kind: per_request, samples: [\"{SAMPLES[0]}\", \"{SAMPLES[1]}\"]}}\n"
    "messages:\n"
    "  - role: system\n"
    "    content: |\n"
    "      Current time: {{ now }}\n"
    + "".join(f"      {line}\n" for line in POLICY.splitlines())
    + "  - role: user\n"
    f"    content: {QUESTION}\n"
)
NOW_AT = (6, 21)  # line and column of `{{ now }}` in CHAT


def system(now: str | None) -> str:
    return (f"Current time: {now}\n" if now else "") + POLICY


def user(now: str | None) -> str:
    return QUESTION + (f"\nCurrent time: {now}" if now else "")


def qwen3_text(system_text: str, user_text: str) -> str:
    return (f"<|im_start|>system\n{system_text}<|im_end|>\n<|im_start|>user\n{user_text}<|im_end|>\n"
            "<|im_start|>assistant\n")


def llama32_text(system_text: str, user_text: str) -> str:
    # Llama 3.2's template at prefixlint's fixed clock (2 Jan 2025); it trims message contents.
    return ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
            "Cutting Knowledge Date: December 2023\nToday Date: 02 Jan 2025\n\n"
            f"{system_text.strip()}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n{user_text.strip()}"
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    qwen = model_dir(root / "qwen3", "qwen3/tokenizer.json", "qwen3/tokenizer_config.json")
    llama = model_dir(root / "llama", "llama3/tokenizer.json", chat_template="template/llama3.2")
    return {"qwen3": qwen, "llama": llama}


def check(*args: str):
    result = CliRunner().invoke(cli, ["check", "--isolated", "--offline", "--format", "json", *args])
    return result.exit_code, json.loads(result.stdout), result.stderr


def write_chat(tmp_path, name="chat.yaml", text=CHAT):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def by_path(data, path) -> dict:
    return next(entry for entry in data["files"] if entry["path"] == str(path))


def assert_measured_on(entry, tokenizer_json, render):
    """The chat file's one PFX001 finding carries the numbers of the hand-written renders
    (`render`) before and after the fix, tokenized directly; returns that tokenizing function."""
    (finding,) = entry["findings"]
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *NOW_AT)
    encoder = vocabulary(tokenizer_json)

    def ids(text: str) -> list[int]:
        return encoder.encode(text, add_special_tokens=False).ids

    a, b = (ids(render(system(now), QUESTION)) for now in SAMPLES)
    fixed_a, fixed_b = (ids(render(system(None), user(now))) for now in SAMPLES)
    assert finding["tokens"] == len(a) == entry["tokens"]
    assert finding["shared_prefix_tokens"] == shared(a, b)
    assert finding["reusable_tokens"] == vllm_reusable(shared(a, b), len(b))
    assert finding["fixed_tokens"] == len(fixed_a)
    assert finding["fixed_shared_prefix_tokens"] == shared(fixed_a, fixed_b)
    assert finding["fixed_reusable_tokens"] == vllm_reusable(shared(fixed_a, fixed_b), len(fixed_b))
    return ids


@pytest.mark.parametrize(("model", "render"), [("qwen3", qwen3_text), ("llama", llama32_text)])
def test_the_users_finding_is_measured_on_the_chat_template_render(tmp_path, models, model, render):
    chat = write_chat(tmp_path)
    status, data, _ = check("--tokenizer", str(models[model]), str(chat))
    assert status == 1
    entry = by_path(data, chat)
    assert (entry["chat_format"], entry["chat_template"].startswith(str(models[model]))) == ("jinja", True)
    ids = assert_measured_on(entry, models[model] / "tokenizer.json", render)
    a, b = (ids(render(system(now), QUESTION)) for now in SAMPLES)
    # The template's own markup and date precede the value: the prefix reaches past them.
    header = render(system(SAMPLES[0]), QUESTION).split("Current time")[0]
    assert shared(a, b) > len(ids(header))


def test_llama32_writes_the_date_pfx101_at_its_template_line(tmp_path, models):
    chat = write_chat(tmp_path)
    status, data, _ = check("--tokenizer", str(models["llama"]), str(chat))
    template = models["llama"] / "chat_template.jinja"
    lines = template.read_text().splitlines()
    clock_line = next(n for n, text in enumerate(lines, 1) if "strftime_now(" in text)
    entry = by_path(data, template)
    (finding,) = entry["findings"]
    assert (finding["code"], finding["name"], finding["severity"]) == ("PFX101", "chat-template-injects-date", "warning")
    assert (finding["line"], finding["column"]) == (clock_line, lines[clock_line - 1].index("strftime_now") + 1)
    assert (finding["text"], finding["other_text"]) == ("02 Jan 2025", "06 Feb 2026")
    assert [f["code"] for f in by_path(data, chat)["findings"]] == ["PFX001"]  # no PFX102: history intact
    assert status == 1


def test_qwen3_drops_think_pfx102_at_its_template_line(tmp_path, models):
    chat = write_chat(tmp_path)
    _, data, _ = check("--tokenizer", str(models["qwen3"]), str(chat))
    config = models["qwen3"] / "tokenizer_config.json"
    entry = by_path(data, config)
    (finding,) = entry["findings"]
    assert (finding["code"], finding["severity"]) == ("PFX102", "info")
    assert "drops the reasoning of earlier replies" in finding["message"]
    # The template is one JSON string: the file line is the `chat_template` key's, the column
    # where the template line that writes the history form (without <think>) starts.
    raw = config.read_text().splitlines()
    assert finding["line"] == next(n for n, text in enumerate(raw, 1) if '"chat_template"' in text)
    source = json.loads(config.read_text())["chat_template"].splitlines()
    written = source[finding["template_line"] - 1]
    assert "content" in written and "<think>" not in written and "'<|im_start|>' + message.role" in written
    escaped = json.dumps(written.strip(), ensure_ascii=False)[1:-1]
    assert raw[finding["line"] - 1][finding["column"] - 1:].startswith(escaped[:40])
    assert f"(chat template line {finding['template_line']})" in finding["message"]


def test_once_per_template_per_run_select_ignore_and_suppressions(tmp_path, models):
    first, second = write_chat(tmp_path, "a.yaml"), write_chat(tmp_path, "b.yaml")
    llama = str(models["llama"])
    template = str(models["llama"] / "chat_template.jinja")
    _, data, _ = check("--tokenizer", llama, str(first), str(second))
    assert [(e["path"], [f["code"] for f in e["findings"]]) for e in data["files"]] == [
        (str(first), ["PFX001"]), (str(second), ["PFX001"]), (template, ["PFX101"])]
    _, data, _ = check("--tokenizer", llama, "--ignore", "PFX101", str(first))
    assert [e["path"] for e in data["files"]] == [str(first)]
    status, data, _ = check("--tokenizer", llama, "--select", "PFX101", str(first))
    assert (status, [(e["path"], len(e["findings"])) for e in data["files"]]) == (1, [(str(first), 0), (template, 1)])
    # A file-wide suppression in the chat file (the vendor's template is not the user's to edit)...
    suppressed = write_chat(tmp_path, "c.yaml", "# prefixlint: disable-file PFX101\n" + CHAT)
    _, data, _ = check("--tokenizer", llama, str(suppressed))
    assert [(e["path"], [f["code"] for f in e["findings"]]) for e in data["files"]] == [(str(suppressed), ["PFX001"])]
    # ... holds for that file only: another file that does not suppress it still reports it, once.
    _, data, _ = check("--tokenizer", llama, str(suppressed), str(first))
    assert [e["path"] for e in data["files"]][-1] == template
    # A suppression of a template rule that never fires is reported as unused.
    unused = write_chat(tmp_path, "d.yaml", "# prefixlint: disable-file PFX102\n" + CHAT)
    _, data, _ = check("--tokenizer", llama, str(unused))
    assert [(f["code"], f["line"]) for f in by_path(data, unused)["findings"]] == [("PFX000", 1), ("PFX001", 7)]


def test_the_template_checked_on_its_own_too_is_reported_once(tmp_path, models):
    chat = write_chat(tmp_path)
    template = models["llama"] / "chat_template.jinja"
    _, data, _ = check("--tokenizer", str(models["llama"]), str(chat), str(template))
    assert [e["path"] for e in data["files"]] == [str(chat), str(template)]
    assert [f["code"] for f in by_path(data, template)["findings"]] == ["PFX101"]


def test_without_a_chat_template_the_chatml_approximation_is_used(tmp_path):
    chat = write_chat(tmp_path)
    _, data, _ = check(str(chat))
    (entry,) = data["files"]
    assert (entry["chat_format"], "chat_template" in entry) == ("chatml-approximation", False)
    assert [f["code"] for f in entry["findings"]] == ["PFX001"]


def test_gpt_oss_renders_through_harmony_with_its_template_findings(tmp_path):
    chat = write_chat(tmp_path)
    _, data, _ = check("--tokenizer", "o200k_harmony", str(chat))
    entry = by_path(data, chat)
    assert entry["chat_format"] == "harmony"
    assert [(f["code"], f["line"], f["column"]) for f in entry["findings"]] == [("PFX001", *NOW_AT)]
    harmony = data["files"][-1]
    assert harmony["path"] == "harmony format (openai-harmony)"
    assert sorted(f["code"] for f in harmony["findings"]) == ["PFX101", "PFX102"]


RAISING_TEMPLATE = (
    "{#- written for this test: a template that accepts no system message, as some do -#}\n"
    "{%- for message in messages %}\n"
    "{%- if message.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}\n"
    "{{- message.role + ': ' + message.content + '\\n' }}\n"
    "{%- endfor %}\n"
)


def test_a_template_that_raises_is_one_error_with_file_and_line_and_others_go_on(tmp_path):
    model = model_dir(tmp_path, "llama3/tokenizer.json")
    (model / "chat_template.jinja").write_text(RAISING_TEMPLATE)
    chat = write_chat(tmp_path)
    good = tmp_path / "good.md"
    good.write_text("Hello {{ user_name }}.\n" + POLICY)
    # A chat file without a system message renders; the template's own probes skip the probe
    # with a system message, so the template is no error either.
    user_only = write_chat(tmp_path, "user_only.yaml", CHAT.replace("role: system", "role: user"))
    result = CliRunner().invoke(cli, ["check", "--isolated", "--offline", "--tokenizer", str(model), str(chat),
                                      str(good), str(user_only)])
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("prefixlint: error:")]
    assert error.startswith(f"prefixlint: error: {chat}:6: ")  # where the first message's content starts
    assert f"{model / 'chat_template.jinja'}:3" in error and "System role not supported" in error
    assert f"{good}:1:7: PFX003" in result.stdout
    assert f"{user_only}:6:21: PFX001" in result.stdout


def test_a_hub_id_in_the_files_own_tokenizer_key_reports_the_snapshots_template(tmp_path, monkeypatch):
    from prefixlint.tokenize import registry
    from tests.realfiles import hub_cache

    repo = "meta-llama/Llama-3.2-3B-Instruct"
    cache = hub_cache(tmp_path / "hub", repo, {"tokenizer.json": real_file("llama3/tokenizer.json"),
                                               "chat_template.jinja": real_file("template/llama3.2")})
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    registry.load.cache_clear()
    try:
        chat = write_chat(tmp_path, text=f"tokenizer: {repo}\n" + CHAT)
        _, data, _ = check(str(chat))  # no --tokenizer: the file names it
    finally:
        registry.load.cache_clear()
    entry = by_path(data, chat)
    assert (entry["tokenizer"], entry["chat_format"]) == (repo, "jinja")
    template = data["files"][-1]
    assert template["path"].startswith(str(cache)) and template["path"].endswith("/chat_template.jinja")
    assert [(f["code"], f["line"]) for f in template["findings"]] == [("PFX101", 10)]
    assert 'strftime_now("%d %b %Y")' in real_file("template/llama3.2").read_text().splitlines()[9]


contents = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789\n", min_size=12, max_size=80).filter(
    lambda text: len(text.strip()) >= 12 and not text.startswith("\n"))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(contents, min_size=1, max_size=4), model=st.sampled_from(["qwen3", "llama"]))
def test_each_message_starts_where_the_hand_written_render_has_it(models, texts, model):
    """The framing against the render written out by hand (Qwen3 keeps contents as they are,
    Llama 3.2 trims them): the text, each message's start, and the ids as `tokenizers` gives them."""
    from prefixlint.render.framing import framing_for
    from prefixlint.render.spans import RenderedMessage
    from prefixlint.tokenize import load_tokenizer

    tokenizer = load_tokenizer(str(models[model]))
    messages = [RenderedMessage("system" if n == 0 else "user", text, ()) for n, text in enumerate(texts)]
    expected, starts = "", []
    for message in messages:
        if model == "qwen3":
            expected += f"<|im_start|>{message.role}\n"
            starts.append(len(expected))
            expected += f"{message.text}<|im_end|>\n"
        else:
            expected += ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date:"
                         " December 2023\nToday Date: 02 Jan 2025\n\n" if message.role == "system"
                         else "<|start_header_id|>user<|end_header_id|>\n\n")
            lead = len(message.text) - len(message.text.lstrip())
            starts.append(len(expected) - lead)  # where the untrimmed text would start
            expected += f"{message.text.strip()}<|eot_id|>"
    expected += "<|im_start|>assistant\n" if model == "qwen3" else "<|start_header_id|>assistant<|end_header_id|>\n\n"
    framed = framing_for(tokenizer, True).frame(messages, tokenizer.encode)
    assert (framed.text, list(framed.starts)) == (expected, starts)
    assert framed.ids == vocabulary(models[model] / "tokenizer.json").encode(expected, add_special_tokens=False).ids


@lru_cache(maxsize=None)
def vocabulary(path):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path))


STABLE = [
    "You are the support assistant of Acme Corp.",
    "Answer in short paragraphs and cite the policy section you rely on.",
    "Never guess order numbers, prices or delivery dates.",
    "Refunds are possible within 30 days of delivery for unused items.",
]
VOLATILE = ["{{ now }}", "{{ session_id }}", "{{ user_name }}", "{{ iteration }}"]
chat_lines = st.lists(st.tuples(st.sampled_from(STABLE), st.sampled_from(["", *VOLATILE]),
                                st.sampled_from(["before", "after"])), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(system_lines=chat_lines, user_lines=chat_lines, model=st.sampled_from(["qwen3", "llama"]))
def test_positions_through_the_chat_template_point_at_the_placeholder(tmp_path, models, system_lines, user_lines, model):
    """Generated chat files through real chat templates: every finding's line and column is its
    placeholder as written, and the numbers respect the engine's rounding."""
    from prefixlint.check.runner import check_file
    from prefixlint.check.settings import Settings

    def block(lines):
        return "".join(f"      {(f'{v} {s}' if w == 'before' else f'{s} {v}').strip()}\n" for s, v, w in lines)

    text = ("messages:\n  - role: system\n    content: |\n" + block(system_lines)
            + "  - role: user\n    content: |\n" + block(user_lines))
    path = tmp_path / "chat.yaml"
    path.write_text(text)
    result = check_file(str(path), Settings(tokenizer=str(models[model]), offline=True))
    assert result.error is None, result.error
    assert result.chat_format == "jinja"
    assert 0 <= result.reusable_tokens <= result.tokens and result.reusable_tokens % 16 == 0
    file_lines = text.split("\n")
    for finding in result.findings:
        assert file_lines[finding.line - 1][finding.column - 1:].startswith(finding.extra["placeholder"])
        assert 0 <= finding.reusable_tokens <= finding.shared_prefix_tokens <= finding.tokens
