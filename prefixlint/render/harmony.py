"""gpt-oss chat rendering in the harmony format, as vLLM's chat endpoint builds it.

vLLM (`vllm/entrypoints/openai/.../harmony_utils.py`) turns a chat request into harmony
messages: a system message with `Current date:` set to today (`conversation_start_date`, the
date injection), a developer message holding a leading system/developer message as
`# Instructions` and the function tools, then one harmony message per chat message (assistant
reasoning on the `analysis` channel, content on `final`, tool calls on `commentary` to
`functions.NAME`, tool results from `functions.NAME`). Analysis messages before the last
`final` assistant message are dropped (`auto_drop_analysis_messages`): the history rewrite.
`render_conversation_for_completion(..., Role.ASSISTANT)` gives the prompt's token ids.

openai-harmony loads `o200k_base.tiktoken` from the directory named by TIKTOKEN_ENCODINGS_BASE
(checking its sha256) instead of downloading it; prefixlint points it at the rank file it ships.
"""

from __future__ import annotations

import os
import tempfile
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.render.messages import arguments_text, flatten_content, reasoning_of

INSTALL_HINT = 'reinstall prefixlint, which depends on it: pip install --force-reinstall prefixlint'
RANK_FILE_NAME = "o200k_base.tiktoken"


def _rank_directory() -> str:
    from prefixlint.tokenize.tiktoken_family import RANK_FILES, shipped_ranks, write_atomically

    data = shipped_ranks(RANK_FILES["o200k_base"])
    directory = Path(tempfile.gettempdir()) / f"prefixlint-harmony-{os.getuid()}"
    target = directory / RANK_FILE_NAME
    if not (target.is_file() and target.stat().st_size == len(data)):
        write_atomically(target, data)
    return str(directory)


@lru_cache(maxsize=1)
def harmony_encoding():
    """openai-harmony's gpt-oss encoding, loaded offline from prefixlint's rank file."""
    try:
        import openai_harmony
    except ImportError:
        raise PrefixlintError("rendering gpt-oss chats needs openai-harmony", hint=INSTALL_HINT) from None
    from prefixlint.tokenize.tiktoken_family import environment

    directory = _rank_directory()
    try:
        with environment("TIKTOKEN_ENCODINGS_BASE", directory):
            return openai_harmony.load_harmony_encoding(openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    except Exception as exc:  # HarmonyError from the Rust side
        raise PrefixlintError(f"openai-harmony cannot load its encoding: {exc}") from None


def _preamble(messages: Sequence[Mapping[str, Any]], tools, now: datetime):
    from openai_harmony import DeveloperContent, Message, Role, SystemContent, ToolDescription

    instructions = None
    if messages and messages[0].get("role") in ("system", "developer"):
        instructions = flatten_content(messages[0].get("content"))
        messages = messages[1:]
    system = SystemContent.new().with_conversation_start_date(now.strftime("%Y-%m-%d"))
    preamble = [Message.from_role_and_content(Role.SYSTEM, system)]
    functions = [
        ToolDescription.new(
            name=tool["function"]["name"], description=tool["function"].get("description") or "",
            parameters=tool["function"].get("parameters"),
        )
        for tool in tools or [] if tool.get("type", "function") == "function" and tool.get("function")
    ]
    if instructions or functions:
        developer = DeveloperContent.new()
        if instructions:
            developer = developer.with_instructions(instructions)
        if functions:
            developer = developer.with_function_tools(functions)
        preamble.append(Message.from_role_and_content(Role.DEVELOPER, developer))
    return preamble, list(messages)


def to_harmony(message: Mapping[str, Any], tool_names: Mapping[str, str]) -> list:
    """One chat message as harmony messages (vLLM's parse_chat_input_to_harmony_message)."""
    from openai_harmony import Author, DeveloperContent, Message, Role

    role = message.get("role")
    content = flatten_content(message.get("content")) or ""
    if role == "tool":
        name = message.get("name") or tool_names.get(message.get("tool_call_id", ""), "")
        author = Author.new(Role.TOOL, f"functions.{name}")
        return [Message.from_author_and_content(author, content).with_channel("commentary").with_recipient("assistant")]
    if role in ("system", "developer"):
        return [Message.from_role_and_content(Role.DEVELOPER, DeveloperContent.new().with_instructions(content))]
    if role != "assistant":
        return [Message.from_role_and_content(Role.USER, content)]
    out = []
    reasoning = reasoning_of(message)
    calls = message.get("tool_calls") or []
    if calls and content:
        out.append(Message.from_role_and_content(Role.ASSISTANT, content).with_channel("commentary"))
    if reasoning:
        out.append(Message.from_role_and_content(Role.ASSISTANT, reasoning).with_channel("analysis"))
    for call in calls:
        function = call.get("function") or {}
        out.append(
            Message.from_role_and_content(Role.ASSISTANT, arguments_text(function.get("arguments")))
            .with_channel("commentary").with_recipient(f"functions.{function.get('name', '')}")
            .with_content_type("json")
        )
    if not calls and content:
        out.append(Message.from_role_and_content(Role.ASSISTANT, content).with_channel("final"))
    return out


def drop_analysis(harmony_messages: list) -> list:
    """vLLM's auto_drop_analysis_messages: analysis before the last final message goes."""
    last_final = -1
    for index, message in enumerate(harmony_messages):
        if message.author.role == "assistant" and message.channel == "final":
            last_final = index
    return [m for i, m in enumerate(harmony_messages) if not (i < last_final and m.channel == "analysis")]


def _conversation(messages, tools, now):
    preamble, rest = _preamble(messages, tools, now)
    names = {
        call.get("id", ""): (call.get("function") or {}).get("name", "")
        for message in rest for call in message.get("tool_calls") or []
    }
    body = [h for message in rest for h in to_harmony(message, names)]
    return preamble, body


def render_harmony(
    messages: Sequence[Mapping[str, Any]], *, tools=None, add_generation_prompt: bool = True,
    now: datetime,
) -> list[int]:
    """Token ids of the prompt vLLM sends to gpt-oss for `messages`."""
    from openai_harmony import Conversation, RenderConversationConfig, Role

    encoding = harmony_encoding()
    preamble, body = _conversation(messages, tools, now)
    conversation = Conversation.from_messages(preamble + drop_analysis(body))
    if add_generation_prompt:
        return list(encoding.render_conversation_for_completion(conversation, Role.ASSISTANT))
    return list(encoding.render_conversation(conversation, RenderConversationConfig(auto_drop_analysis=False)))


def generated_reply(
    messages: Sequence[Mapping[str, Any]], reply: Mapping[str, Any], *, tools=None, now: datetime,
) -> list[int]:
    """The tokens gpt-oss generates for `reply` after the prompt of `messages`.

    Every harmony message of the reply as the model writes it, the last one ending in the
    stop token the model samples: `<|call|>` after a tool call, `<|return|>` after a final
    answer (history shows `<|end|>` there instead).
    """
    from openai_harmony import Conversation, RenderConversationConfig

    encoding = harmony_encoding()
    preamble, body = _conversation([*messages, reply], tools, now)
    own = len(to_harmony(reply, {}))
    history = preamble + drop_analysis(body[: len(body) - own])
    conversation = Conversation.from_messages(history + body[len(body) - own:])
    full = list(encoding.render_conversation(conversation, RenderConversationConfig(auto_drop_analysis=False)))
    prompt = render_harmony(messages, tools=tools, now=now)
    ids = full[len(os.path.commonprefix([full, prompt])):]  # the reply: what follows the prompt
    end = encoding.encode("<|end|>", allowed_special="all")
    if ids[-1:] == end:
        ids = ids[:-1] + encoding.encode("<|return|>", allowed_special="all")
    return ids
