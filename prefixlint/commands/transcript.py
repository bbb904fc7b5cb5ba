"""`prefixlint transcript`: turn by turn, how much of a conversation the server reuses, and why not more."""

from __future__ import annotations

import click

from prefixlint.commands.options import engine_options, format_option, tokenizer_options


@click.command()
@click.argument("file", metavar="FILE")
@tokenizer_options()
@click.option("--chat-template", "chat_template_path", metavar="PATH", default=None,
              help="The served model's chat template: a .jinja file or a tokenizer_config.json"
              " (default: the tokenizer's own; harmony for o200k_harmony).")
@engine_options
@click.option("--no-generated", is_flag=True, default=False,
              help="The cache holds prompts only (an API that does not cache generated tokens).")
@click.option("--now", "now_text", metavar="ISO-DATETIME", default=None,
              help="The clock the template sees for messages without a `timestamp` (default: now).")
@format_option("text", "json")
@click.pass_context
def transcript(ctx, file, tokenizer, offline, chat_template_path, engine, block_size, no_generated, now_text,
               output_format):
    """Render each request of a chat transcript (YAML or JSON, OpenAI chat shape) through the
    served model's chat template, as vLLM's chat endpoint does, and show per turn the prompt
    tokens, the new tokens, the shared prefix with what earlier turns cached (prompts and the
    replies they generated), what the engine reuses after its rounding, and for every turn that
    reuses less than the previous request plus its reply, the cause and where.

    \b
    Example:
      prefixlint transcript chat.yaml --tokenizer Qwen/Qwen3-8B
      prefixlint transcript chat.json --tokenizer ./llama --chat-template llama3.2.jinja --format json
    """
    from prefixlint.engines.profiles import get_profile
    from prefixlint.load.transcript import load_transcript
    from prefixlint.render.templates import read_chat_template, resolve_chat_template
    from prefixlint.tokenize import load_tokenizer
    from prefixlint.transcript import report
    from prefixlint.transcript.causes import explain
    from prefixlint.transcript.render import render_turns
    from prefixlint.transcript.reuse import measure_turns

    profile = get_profile(engine, block_size)
    now = _parse_now(now_text)
    loaded = load_tokenizer(tokenizer, offline=offline)
    template = resolve_chat_template(
        loaded, read_chat_template(chat_template_path) if chat_template_path else None
    )
    conversation = load_transcript(file)
    turns = render_turns(conversation, tokenizer=loaded, chat_template=template, now=now,
                         generated=not no_generated)
    reuses = measure_turns(turns, loaded, profile)
    causes = [None] + [
        explain(previous, reuse.turn, reuse, loaded, template)
        for previous, reuse in zip(turns, reuses[1:])
    ]
    findings = _template_findings(loaded, template, turns)
    args = (file, loaded.name, profile, template, not no_generated, reuses, causes, findings)
    if output_format == "json":
        click.echo(report.to_json(*args))
    else:
        click.echo(report.to_text(*args, color=ctx.color), color=ctx.color)


def _parse_now(text: str | None):
    from datetime import datetime

    from prefixlint.load.timestamps import parse_timestamp

    if text is None:
        return datetime.now()
    now = parse_timestamp(text)
    if now is None:
        raise click.BadParameter(f"{text!r} is not an ISO 8601 date-time", param_hint="--now")
    return now


def _template_findings(tokenizer, template, turns) -> list[dict]:
    """PFX101 for a template that writes the date, measured on the transcript's first request."""
    from prefixlint.rules.chat_template import detect_date_injection
    from prefixlint.transcript.report import finding_dict

    if not turns:
        return []
    first = turns[0]
    found = detect_date_injection(tokenizer, template, messages=first.messages, tools=first.request.tools,
                                  now=first.now)
    if found is None:
        return []
    path, line = template.file_location(found.line)
    at = f" (template line {found.line})" if found.line and line != found.line else ""
    message = (
        f"the template writes the date ({found.text!r}){at}; on another day the same conversation"
        f" keeps only the first {found.stable_prefix_tokens:,} of its {found.prompt_tokens:,} tokens"
    )
    return [finding_dict("PFX101", "chat-template-injects-date", path, line, message, found)]
