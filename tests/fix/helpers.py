"""Check a file as the command does, and measure one value of it, for the fix tests."""

from __future__ import annotations

from collections import Counter

from prefixlint.check.measure import Measurer
from prefixlint.check.runner import check_path
from prefixlint.check.settings import Settings
from prefixlint.engines.profiles import get_profile
from prefixlint.load.classify import builtin_catalog
from prefixlint.load.registry import load_templates
from prefixlint.render.compile import compile_template
from prefixlint.render.framing import framing_for
from prefixlint.tokenize import load_tokenizer

SETTINGS = Settings(offline=True)


def check(path) -> list:
    return check_path(str(path), SETTINGS)


def placeholder_names(path) -> Counter:
    """Every placeholder's variables, counted, over every prompt of the file."""
    names: Counter = Counter()
    for template in load_templates(str(path)):
        for placeholder in compile_template(template).placeholders:
            names.update(placeholder.names)
    return names


def measure_value(path, name: str):
    """The measurement of one value of a one-prompt file, as `check` makes it."""
    (template,) = load_templates(str(path))
    compiled = compile_template(template)
    tokenizer = load_tokenizer("o200k_base", offline=True)
    framing = framing_for(tokenizer, template.is_chat, None)
    measurer = Measurer(template, compiled, tokenizer, get_profile("vllm", None), builtin_catalog(), 16, framing)
    return measurer.measure(measurer.volatility[name])
