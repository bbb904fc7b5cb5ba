"""Which chat format a served model uses: its Jinja template, harmony, or a ChatML approximation.

In the order vLLM itself decides:
1. `--chat-template PATH` (a `.jinja` file, or a `tokenizer_config.json` holding `chat_template`);
2. gpt-oss (the `o200k_harmony` encoding, or a Hugging Face tokenizer named `...gpt-oss...`):
   the harmony format, rendered by `openai-harmony`, as vLLM does for that model type;
3. the template the tokenizer's files carry (`chat_template.jinja` or `tokenizer_config.json`);
4. the OpenAI encodings (`o200k_base`, `cl100k_base`), whose chat markup is not public: a
   ChatML-style approximation (`<|im_start|>role<|im_sep|>content<|im_end|>`), said so in output.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prefixlint.errors import PrefixlintError, TemplateRenderError

JINJA = "jinja"
HARMONY = "harmony"
CHATML = "chatml-approximation"

#: Written for prefixlint: OpenAI does not publish gpt-4o's chat markup. The markers are the
#: ones OpenAI's own ChatML documents name; o200k_base has no special tokens for them, so each
#: is tokenized on its own as ordinary text (`render.chat.chatml_ids`): nothing merges across
#: a marker, as across a special token, but each costs a few tokens more than on the server.
CHATML_TEMPLATE = """\
{%- if tools %}
{{- '<|im_start|>system<|im_sep|># Tools\\n' }}
{%- for tool in tools %}{{ '\\n' + tool | tojson }}{% endfor %}
{{- '<|im_end|>' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'tool' %}
{{- '<|im_start|>tool<|im_sep|>' + message.content + '<|im_end|>' }}
{%- else %}
{{- '<|im_start|>' + message.role + '<|im_sep|>' + (message.content or '') }}
{%- for call in message.tool_calls or [] %}
{{- '\\n' + call.function.name + '(' + call.function.arguments | tojson + ')' }}
{%- endfor %}
{{- '<|im_end|>' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant<|im_sep|>' }}{%- endif %}
"""
CHATML_NOTE = (
    "approximation: OpenAI does not publish the chat markup of its o200k_base models; prefixlint"
    " renders ChatML-style markers, each tokenized on its own as plain text (the real server has"
    " one special token for each), so counts are a few tokens per message off"
)


@dataclass(frozen=True)
class ChatTemplate:
    """A chat format and, for Jinja, its source and where it came from (for diagnostics)."""

    format: str  # jinja | harmony | chatml-approximation
    source: str | None
    origin: str  # a path, "PATH (chat_template)" for a JSON config, or a description
    note: str | None = None
    #: The file the template was read from (a .jinja file or a tokenizer_config.json), if any.
    path: str | None = None

    def file_location(self, template_line: int | None) -> tuple[str, int | None]:
        """Where a template line is in the file it came from: the same line of a .jinja file;
        in a tokenizer_config.json, the line of its `"chat_template"` key (the template is one
        JSON string there)."""
        if self.path is None:
            return self.origin, None
        if not self.path.lower().endswith(".json"):
            return self.path, template_line
        try:
            text = Path(self.path).read_text(encoding="utf-8")
        except OSError:
            return self.path, None
        index = text.find('"chat_template"')
        return self.path, text.count("\n", 0, index) + 1 if index >= 0 else None


def read_chat_template(path: str) -> ChatTemplate:
    """`--chat-template PATH`: a Jinja file, or a tokenizer_config.json with `chat_template`."""
    from prefixlint.load.files import read_text
    from prefixlint.load.json_source import load_json
    from prefixlint.tokenize.huggingface import config_chat_template

    text = read_text(path)
    if Path(path).suffix.lower() != ".json":
        return ChatTemplate(JINJA, text, path, path=path)
    config = load_json(text, path, "not valid JSON")
    template = config_chat_template(config)
    if template is None:
        raise PrefixlintError(
            "no `chat_template` in this JSON file", path=path,
            hint="pass a .jinja file, or the model's tokenizer_config.json",
        )
    return ChatTemplate(JINJA, template, f"{path} (chat_template)", path=path)


def load_chat_template(path: str) -> ChatTemplate:
    """`read_chat_template`, compiled once up front: a template that does not compile is one
    error naming its file and line (`check --chat-template`, the `chat-template` key)."""
    from prefixlint.render.jinja import compiled_template

    template = read_chat_template(path)
    assert template.source is not None  # a file's template is Jinja source
    try:
        compiled_template(template.source)
    except TemplateRenderError as exc:  # anything else is not the template's doing (a missing package)
        file, line = template.file_location(exc.template_line)
        message = exc.message if line != exc.template_line else exc.message.replace(
            f" (template line {line})", "")
        # the hint names template lines: the file's own only in a .jinja file, not in a tokenizer_config.json
        hint = exc.hint if line == exc.template_line else None
        raise PrefixlintError(message, path=file, line=line, hint=hint) from None
    return template


def resolve_chat_template(tokenizer, chat_template: ChatTemplate | str | None = None) -> ChatTemplate:
    """The chat format to render with, for `tokenizer` and an optional explicit template."""
    if isinstance(chat_template, ChatTemplate):
        return chat_template
    if isinstance(chat_template, str):
        return ChatTemplate(JINJA, chat_template, "chat template given")
    if uses_harmony(tokenizer):
        return ChatTemplate(HARMONY, None, "harmony format (openai-harmony)")
    if tokenizer.chat_template:
        origin, path = _tokenizer_template_origin(tokenizer)
        return ChatTemplate(JINJA, tokenizer.chat_template, origin, path=path)
    if tokenizer.family == "tiktoken":
        return ChatTemplate(CHATML, CHATML_TEMPLATE, "ChatML-style approximation", CHATML_NOTE)
    raise PrefixlintError(
        f"the tokenizer {tokenizer.name!r} carries no chat template",
        hint="pass --chat-template PATH (a .jinja file or the model's tokenizer_config.json),"
        " or a tokenizer directory or hub id whose files include one",
    )


def uses_harmony(tokenizer) -> bool:
    """gpt-oss: vLLM renders it with openai-harmony, whatever Jinja template its files carry."""
    if tokenizer.family == "tiktoken":
        return tokenizer.name == "o200k_harmony"
    return "gpt-oss" in tokenizer.name.lower()


def _tokenizer_template_origin(tokenizer) -> tuple[str, str | None]:
    path = tokenizer.path
    if path is not None:
        folder = Path(path).parent
        if (folder / "chat_template.jinja").is_file():
            return str(folder / "chat_template.jinja"), str(folder / "chat_template.jinja")
        config = folder / "tokenizer_config.json"
        return f"{config} (chat_template)", str(config)
    return f"chat template of {tokenizer.name}", None
