"""Is this text a LangChain serialized prompt? (`prefixlint.load.langchain` reads it.)

`_type: prompt | few_shot | chat`, an `lc` dump, or no `_type` at all: a mapping with `template`
(or `template_path`) and `input_variables` as a list of names (Semantic Kernel's are mappings)
or a LangChain `template_format`, which LangChain's `load_prompt` reads as `prompt`.
"""

from __future__ import annotations

import re

from prefixlint.load.json_source import looks_like_json

_TYPE = re.compile(r"""^\s*["']?_type["']?\s*:\s*["']?(prompt|few_shot|chat)\b""", re.MULTILINE)
_TYPE_JSON = re.compile(r'"_type"\s*:\s*"(prompt|few_shot|chat)"')
_LC = re.compile(r'"lc"\s*:\s*1[\s\S]*"(PromptTemplate|ChatPromptTemplate|FewShotPromptTemplate)"')
_UNTYPED = re.compile(r"""^\s*["']?(template|template_path)["']?\s*:""", re.MULTILINE)


def sniff(text: str) -> bool:
    return bool(_TYPE.search(text) or _TYPE_JSON.search(text[:200_000]) or _LC.search(text[:200_000])
                or (_UNTYPED.search(text) and _untyped_prompt(text)))


def _untyped_prompt(text: str) -> bool:
    """A serialized PromptTemplate without `_type`: LangChain's loader takes it as `prompt`."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.limits import loads_json
    from prefixlint.load.yaml_source import load_yaml

    try:
        data = loads_json(text) if looks_like_json(text) else load_yaml(text, "")
    except (ValueError, PrefixlintError):  # not this format: the file's own loader says why
        return False
    if not isinstance(data, dict) or "_type" in data:
        return False
    if not isinstance(data.get("template", data.get("template_path")), str):
        return False
    names = data.get("input_variables")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return True
    return names is None and data.get("template_format") in ("f-string", "jinja2", "mustache")
