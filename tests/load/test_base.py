"""The loader contract: every adapter module the registry lists declares its `Format`."""

from __future__ import annotations

import importlib

from prefixlint.load.base import Loader
from prefixlint.load.registry import LOADERS, adapter


def test_every_listed_adapter_declares_its_loader():
    names = {name for candidates in LOADERS.values() for name in candidates}
    assert names == {"promptfoo", "langchain", "semantic_kernel", "crewai", "native_yaml", "chat_template", "plain_text",
                     "prompty", "dotprompt", "humanloop", "semantic_kernel_json", "python_source", "ts_source", "agent_yaml",
                     "prompt_strings"}
    for name in names:
        loader = adapter(name)
        assert isinstance(loader, Loader)
        assert loader.name == importlib.import_module(f"prefixlint.load.{name}").FORMAT


def test_the_defaults_of_a_loader():
    plain = adapter("plain_text")
    assert plain.hint is None and plain.many is None and plain.walked is None
    (template,) = plain.load_all("p.txt", "Hello {{ name }}\n")  # one file, one template
    assert template.path == "p.txt" and template.format == "plain-text"
    assert plain.sniff_walked("anything") == plain.sniff("anything")


def test_promptfoo_is_sniffed_more_strictly_on_a_walk_and_holds_several_prompts():
    promptfoo = adapter("promptfoo")
    package_json = '{"name": "web", "prompts": ["x"]}'  # a package.json is no promptfoo prompt
    assert promptfoo.walked is not None and promptfoo.many is not None
    assert not promptfoo.sniff_walked(package_json)
