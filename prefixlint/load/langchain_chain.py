"""Which mappings of a LangChain serialized file are prompts (`prefixlint.load.langchain` reads them).

A prompt is `_type: prompt | few_shot | chat`, an `lc` dump of a prompt class, or a mapping with
`template` and no `_type` (LangChain's `load_prompt` default). A serialized chain (`_type:
llm_chain`, `stuff_documents_chain` ...) holds its prompts as nested mappings (`prompt` of an
`llm_chain`, `llm_chain.prompt`, `initial_llm_chain` ...), found outermost first in file order;
a `document_prompt` formats each retrieved document into another prompt's variable, so it is a
piece of a request, not one.
"""

from __future__ import annotations

from prefixlint.load.yaml_source import mapping_get


def class_name(node) -> str | None:
    ids = mapping_get(node, "id")
    if mapping_get(node, "lc") is not None and ids is not None and ids.id == "sequence" and ids.value:
        return ids.value[-1].value
    return None


def prompt_kind(node) -> str | None:
    """`prompt`, `few_shot` or `chat` when this mapping is a prompt, else None."""
    kind_node = mapping_get(node, "_type")
    kind = kind_node.value if kind_node is not None else {
        "PromptTemplate": "prompt", "FewShotPromptTemplate": "few_shot", "ChatPromptTemplate": "chat",
    }.get(class_name(node) or "", None)
    if kind_node is None and kind is None and (mapping_get(node, "template") or mapping_get(node, "template_path")):
        kind = "prompt"  # LangChain's load_prompt: `config.get("_type", "prompt")`
    return kind if kind in ("prompt", "few_shot", "chat") else None


def nested_prompts(node, depth: int = 0):
    """The prompt mappings inside a chain's mapping, outermost first, in file order."""
    if depth > 32:
        return
    for key, value in node.value:
        if value.id != "mapping" or key.value == "document_prompt":
            continue
        if mapping_get(value, "_type") is not None and prompt_kind(value) is not None:
            yield value
        else:
            yield from nested_prompts(value, depth + 1)
