"""Inputs that used to run until killed (issue 16): widths and padding, doubling, a large string
per loop pass, chat templates without a limit, devices and FIFOs read as files, a user regular
expression that backtracks, many slow renders in one file. Each is now stopped at its
bound (prefixlint/limits.py) with a diagnostic; none of these tests waits for a real timeout:
the limits are lowered for them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.errors import PrefixlintError
from prefixlint.load import plain_text
from prefixlint.render.compile import compile_template
from tests.check.test_check_bad_input import GOOD, write

LIMIT = 10 * 1024 * 1024  # MAX_OUTPUT_CHARS

# expression (rendered on line 2), the size it would make (worked out by hand), what says so
GROWTH = [
    ("'a'|center(10**9)", "the filter center is too large: 1,000,000,000 characters"),
    ("'a\\nb'|indent(10**8, true)", "the filter indent is too large: 200,000,003 characters"),
    ("'{:>1000000000}'.format('a')", "a format width is too large: 1,000,000,001 characters"),
    ("'{:>{w}}'.format('a', w=10**9)", "a format width is too large: 1,000,000,001 characters"),
    ("'{x:>999999999}'.format_map({'x': 'a'})", "a format width is too large: 1,000,000,000 characters"),
    ("'a'.ljust(10**9)", "str.ljust is too large: 1,000,000,000 characters"),
    ("'a'.rjust(10**9)", "str.rjust is too large: 1,000,000,000 characters"),
    ("'%999999999s' % 'a'", "a %-format is too large: 1,000,000,011 characters"),
    ("'%999999999s'|format('a')", "the filter format is too large: 1,000,000,011 characters"),
    ("('a' * 10**6).replace('a', 'a' * 10**6)", "str.replace is too large: 1,000,000,000,000 characters"),
    ("('a' * 10**6)|replace('a', 'a' * 10**6)", "the filter replace is too large: 1,000,000,000,000 characters"),
    ("['x' * 10**6, 'y' * 10**6]|join('z' * 9 * 10**6)", "the filter join is too large: 20,000,002 characters"),
    ("['x' * 10**6] * 11", "a repetition is too large: 11,000,011 characters"),
    ("('x' * 6000000) + ('y' * 6000000)", "a concatenation is too large: 12,000,000 characters"),
    ("{'a': 1}|tojson(indent=10**5)", "the filter tojson is too large: 102,400,000 characters"),
    # issue 20: bytes, translate tables, a str or a range joined, containers of long strings
    ("'a'.encode() * 2000000000", "a repetition is too large: 2,000,000,000 characters"),
    ("('a' * 1000).translate({97: 'b' * 10000000})", "str.translate is too large: 10,000,000,000 characters"),
    ("('x' * 1000000).join('a' * 1500)", "str.join is too large: 1,500,001,500 characters"),  # 1,500 + 1,499 x 10**6 ...
    ("range(1500)|join('x' * 1000000)", "the filter join is too large: 1,500,009,000 characters"),  # 1,500 x 6 + ...
    ("[dict(a='x' * 10000000)] * 1000", "a repetition is too large: 10,000,003,000 characters"),
    ("[range(100000)|list] * 300", "a repetition is too large: 30,000,300 characters"),
    ("[[1] * 6000000, [2] * 6000000]|sum(start=[])", "the filter sum is too large: 12,000,000 characters"),
]


def render(text: str):
    return compile_template(plain_text.load("a.j2", text)).render({}, {})


@pytest.mark.parametrize(("expression", "message"), GROWTH, ids=[row[0] for row in GROWTH])
def test_a_result_over_the_limit_is_refused_before_it_is_made(expression, message):
    with pytest.raises(PrefixlintError) as info:
        render(f"ok\n{{{{ {expression} }}}}")
    assert message in info.value.message and info.value.line == 2, info.value.message


@pytest.mark.parametrize("text", [
    # `~` doubling: 2 characters doubled 23 times is 16,777,216 > LIMIT
    "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
    # a 1,000,000-character string on each of 100,000 passes: the output passes LIMIT on pass 11
    "{% for i in range(100000) %}{{ 'x' * 1000000 }}{% endfor %}",
    # the same inside a macro and a block assignment: their buffers are bounded as they grow
    "{% macro m() %}{% for i in range(100000) %}{{ 'x' * 1000000 }}{% endfor %}{% endmacro %}{{ m() }}",
    "{% set b %}{% for i in range(100000) %}{{ 'x' * 1000000 }}{% endfor %}{% endset %}{{ b }}",
])
def test_output_is_bounded_as_it_grows(text):
    with pytest.raises(PrefixlintError, match=f"grows past {LIMIT:,} characters"):
        render(text)


def test_ordinary_padding_and_joins_still_render():
    out = render("{{ 'ab'|center(6) }}|{{ '{:>4}'.format(7) }}|{{ '%3d' % 5 }}|{{ ['a', 'b']|join('-') }}|"
                 "{{ 'x' ~ 'y' }}|{{ 'a b'.replace(' ', '_') }}|{% macro m(n) %}<{{ n }}>{% endmacro %}{{ m(1) }}")
    assert out[0].text == "  ab  |   7|  5|a-b|xy|a_b|<1>"




def test_a_langchain_format_width_is_refused(tmp_path, good):
    bad = write(tmp_path, "wide.json", '{"_type": "prompt", "input_variables": ["x"],\n'
                '"template": "Hello {x:>3000000000} and the stable instructions"}\n')
    result = CliRunner().invoke(cli, ["check", "--isolated", str(bad), str(good)])
    assert result.exit_code == 2 and f"{good}:1:7: PFX003" in result.stdout
    assert "cannot render {x:>3000000000}: the format width is too large: 3,000,000,000 characters" in result.stderr


HANG = ("{% for message in messages %}{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}"
        "{% endfor %}{{ message.content }}{% endfor %}{% if add_generation_prompt %}A:{% endif %}\n")
CHAT = ("messages:\n  - role: system\n    content: You are the assistant of Northwind Bank. Never ask for PINs.\n"
        "  - role: user\n    content: '{{ question }}'\n")


@pytest.fixture
def short_renders(monkeypatch):
    from prefixlint import sandbox

    monkeypatch.setattr(sandbox, "RENDER_SECONDS", 0.3)


def test_a_chat_template_file_that_loops_is_stopped(tmp_path, good, short_renders):
    hang = write(tmp_path, "hang.jinja", HANG)
    result = CliRunner().invoke(cli, ["check", "--isolated", str(hang), str(good)])
    assert result.exit_code == 2 and f"{good}:1:7: PFX003" in result.stdout
    assert f"prefixlint: error: {hang}: the chat template failed (template line 1): RenderTimeout:" \
           " rendering took longer than 0.3 s" in result.stderr


@pytest.mark.parametrize("as_config", [False, True], ids=["jinja", "tokenizer_config.json"])
def test_a_chat_template_option_that_loops_is_stopped(tmp_path, good, short_renders, as_config):
    import json

    template = write(tmp_path, "tokenizer_config.json", json.dumps({"chat_template": HANG})) if as_config \
        else write(tmp_path, "hang.jinja", HANG)
    chat = write(tmp_path, "chat.yaml", CHAT)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--chat-template", str(template), str(chat)])
    assert result.exit_code == 2
    assert "RenderTimeout: rendering took longer than 0.3 s" in result.stderr


def test_renders_of_one_file_share_a_budget(tmp_path, good, monkeypatch):
    """Six volatile values, each rendered twice and more: the file stops at its budget."""
    from prefixlint import sandbox
    from prefixlint.limits import RENDER_SECONDS

    monkeypatch.setattr(sandbox, "FILE_RENDER_SECONDS", 0.5)
    loop = "{% for i in range(99999) %}{% for j in range(300) %}{% endfor %}{% endfor %}"
    names = ["session_id", "request_id", "user_name", "user_email", "trace_id", "nonce"]
    text = "".join(f"{{{{ {name} }}}}\n" for name in names) + loop + "\n" + GOOD
    slow = write(tmp_path, "slow.j2", text)
    result = CliRunner().invoke(cli, ["check", "--isolated", str(slow), str(good)])
    assert result.exit_code == 2 and f"{good}:1:7: PFX003" in result.stdout
    assert "rendering this file took longer than 0.5 s in all" in result.stderr
    assert RENDER_SECONDS == 10.0  # each render alone stays within its own limit


@pytest.mark.parametrize("kind", ["fifo", "symlink to a device"])
def test_only_regular_files_are_read(tmp_path, good, kind):
    target = tmp_path / "prompt.md"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero", target)
    for args in (["check", "--isolated", str(target), str(good)], ["transcript", str(target)],
                 ["kv", str(target)], ["check", "--isolated", "--chat-template", str(target), str(good)],
                 ["check", "--isolated", "--tokenizer", str(target), str(good)]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, args
        assert f"prefixlint: error: {target}: not a regular file (a device, FIFO or socket); refused" \
            in result.stderr, (args, result.output)


def test_a_file_reference_to_a_device_is_refused(tmp_path, good):
    (tmp_path / ".git").mkdir()
    os.symlink("/dev/zero", tmp_path / "zero.txt")
    config = write(tmp_path, "promptfooconfig.yaml", "prompts:\n  - file://zero.txt\nproviders: [openai:gpt-4o]\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--allow-outside-paths", str(config), str(good)])
    assert result.exit_code == 2
    assert f"{config}:2: cannot read zero.txt: not a regular file" in result.stderr


def test_a_user_regular_expression_that_backtracks_is_stopped(tmp_path, monkeypatch):
    from prefixlint import limits

    monkeypatch.setattr(limits, "REGEX_SECONDS", 0.05)
    write(tmp_path, ".prefixlint.yaml", "extend-volatile:\n  - {id: slow, class: identifier,"
                                        " frequency: per_request, samples: ['^(a|aa)+$']}\n")
    template = write(tmp_path, "t.yaml", "variables:\n  label: {samples: ['" + "a" * 40 + "!']}\n"
                                         "prompt: 'Label {{ label }}. " + "Stable words. " * 20 + "'\n")
    result = CliRunner().invoke(cli, ["check", str(template)])
    assert result.exit_code == 2
    assert "the regular expression '^(a|aa)+$' of `extend-volatile` took longer than 0.05 s" in result.stderr


def test_transcript_yaml_has_the_alias_limits_of_templates(tmp_path):
    lol = "\n".join([f'a0: &a0 [{", ".join(["lol"] * 9)}]']
                    + [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 8)]
                    + ["messages:", "  - {role: user, content: hi}", "tools: [*a7]", ""])
    result = CliRunner().invoke(cli, ["transcript", str(write(tmp_path, "bomb.yaml", lol))])
    assert result.exit_code == 2 and "alias bomb" in result.stderr


def test_limits_come_from_the_environment_and_the_docs_name_them_all(tmp_path):
    import re
    import subprocess
    import sys

    from prefixlint import limits

    documented = re.findall(r"`PREFIXLINT_([A-Z_]+)`", (Path(__file__).parent.parent.parent / "docs" /
                                                         "reliability.md").read_text())
    assert sorted(set(documented)) == ["FILE_MEMORY_BYTES", "FILE_RENDER_SECONDS", "FILE_SECONDS", "MAX_FILE_BYTES",
                                       "MAX_FILE_TOKENS", "MAX_LINE_BYTES", "MAX_OUTPUT_CHARS", "MAX_RENDER_TOKENS",
                                       "MAX_VALUES", "MAX_WORD_CHARS", "REGEX_SECONDS", "RENDER_SECONDS", "WORKERS"]
    assert all(hasattr(limits, name) for name in documented)
    prompt = write(tmp_path, "p.md", GOOD)  # 209 bytes
    done = subprocess.run([sys.executable, "-m", "prefixlint", "check", "--isolated", str(prompt)],
                          capture_output=True, text=True, env={**os.environ, "PREFIXLINT_MAX_FILE_BYTES": "100"})
    assert done.returncode == 2
    assert f"prefixlint: error: {prompt}: file is too large ({len(GOOD.encode()):,} bytes; the limit is 100)" \
        in done.stderr


@pytest.mark.parametrize(("body", "message"), [
    ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
     "OutputLimit: the output is too large: it grows past 10,485,760 characters"),
    ("{{ 'x'|center(10**9) }}", "OutputLimit: the filter center is too large: 1,000,000,000 characters"),
])
def test_chat_templates_have_the_size_bounds_of_templates(tmp_path, good, body, message):
    template = write(tmp_path, "big.jinja", body + HANG.replace("{% for i in range(99999) %}{% for j in range(99999) %}"
                                                                "{% endfor %}{% endfor %}", ""))
    result = CliRunner().invoke(cli, ["check", "--isolated", str(template), str(good)])
    assert result.exit_code == 2 and f"{good}:1:7: PFX003" in result.stdout
    assert f"prefixlint: error: {template}: the chat template failed (template line 1): {message}" in result.stderr
