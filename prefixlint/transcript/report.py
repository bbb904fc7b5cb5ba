"""Output of `prefixlint transcript`: a per-turn table, or the JSON shape tools read."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Sequence

from prefixlint.engines.profiles import EngineProfile
from prefixlint.numbers import percent
from prefixlint.render.templates import ChatTemplate
from prefixlint.report.style import paint
from prefixlint.transcript.causes import Cause
from prefixlint.transcript.reuse import TurnReuse


def to_dict(path: str, tokenizer: str, profile: EngineProfile, template: ChatTemplate, generated: bool,
            reuses: Sequence[TurnReuse], causes: Sequence[Cause | None], findings: Sequence[dict]) -> dict:
    turns = []
    for reuse, cause in zip(reuses, causes):
        d = reuse.divergence
        turns.append({
            "turn": reuse.turn.number,
            "prompt_tokens": reuse.prompt_tokens,
            "new_tokens": reuse.new_tokens,
            "previous_cached_tokens": reuse.previous_cached_tokens,
            "shared_prefix_tokens": reuse.shared_prefix_tokens,
            "reusable_tokens": reuse.reusable_tokens,
            "reusable_ratio": round(reuse.reusable_tokens / reuse.prompt_tokens, 6) if reuse.prompt_tokens else 0.0,
            "lost_tokens": reuse.lost_tokens,
            "reply_tokens": len(reuse.turn.reply.ids) if reuse.turn.reply else None,
            "divergence": None if d is None else {
                "message_index": d.message_index, "char_offset": d.char_offset, "token_index": d.token_index,
                "token": d.token, "cached_token": d.cached_token,
            },
            "cause": cause.text if cause else None,
            "cause_kind": cause.kind if cause else None,
            "cause_message_index": cause.message_index if cause else None,
            "cause_char_offset": cause.char_offset if cause else None,
            "template_line": cause.template_line if cause else None,
        })
    total = sum(r.prompt_tokens for r in reuses)
    reusable = sum(r.reusable_tokens for r in reuses)
    return {
        "file": path,
        "tokenizer": tokenizer,
        "engine": {
            "name": profile.name, "block_size": profile.unit, "whole_blocks_only": profile.whole_units_only,
            "last_token_recomputed": profile.last_token_recomputed, "min_tokens": profile.min_tokens,
        },
        "chat_format": template.format,
        "chat_template": template.origin,
        "note": template.note,
        "generated_tokens_cached": generated,
        "turns": turns,
        "totals": {
            "prompt_tokens": total,
            "reusable_tokens": reusable,
            "reusable_ratio": round(reusable / total, 6) if total else 0.0,
            "lost_tokens": sum(r.lost_tokens for r in reuses),
        },
        "template_findings": list(findings),
    }


def to_json(*args) -> str:
    return json.dumps(to_dict(*args), indent=2, ensure_ascii=False, default=str)


def to_text(path: str, tokenizer: str, profile: EngineProfile, template: ChatTemplate, generated: bool,
            reuses: Sequence[TurnReuse], causes: Sequence[Cause | None], findings: Sequence[dict],
            color: bool | None) -> str:
    cached = "prompts and generated replies" if generated else "prompts only (--no-generated)"
    lines = [
        f"{path} · tokenizer {tokenizer} · engine {profile.describe()}",
        f"chat template: {template.origin} · the cache holds {cached}",
    ]
    if template.note:
        lines.append(paint(f"note: {template.note}", color, fg="yellow"))
    lines += ["", f"{'turn':>4} {'prompt':>8} {'new':>7} {'shared':>8} {'reusable':>9} {'ratio':>7}  cause"]
    for reuse, cause in zip(reuses, causes):
        if reuse.turn.number == 1:
            note = "cold: nothing cached yet"
        elif cause is not None:
            note = paint(f"{reuse.lost_tokens:,} lost: {cause.text}", color, fg="red")
        elif reuse.shared_prefix_tokens < reuse.previous_cached_tokens:
            note = "the request is shorter than what the previous turn cached, and inside it"
        else:
            note = "reuses all the previous turn cached"
        lines.append(
            f"{reuse.turn.number:>4} {reuse.prompt_tokens:>8,} {reuse.new_tokens:>7,} {reuse.shared_prefix_tokens:>8,}"
            f" {reuse.reusable_tokens:>9,} {percent(reuse.reusable_tokens, reuse.prompt_tokens):>7}  {note}"
        )
    total = sum(r.prompt_tokens for r in reuses)
    reusable = sum(r.reusable_tokens for r in reuses)
    lost = sum(r.lost_tokens for r in reuses)
    lines += ["", f"{len(reuses)} turns · {total:,} prompt tokens · reusable after rounding {reusable:,}"
              f" ({percent(reusable, total)}) · {lost:,} cached tokens lost to the causes above"]
    for finding in findings:
        where = f"{finding['path']}:{finding['line']}" if finding.get("line") else finding["path"]
        lines.append(paint(f"{where}: {finding['code']} {finding['name']}: {finding['message']}", color, fg="yellow"))
    return "\n".join(lines)


def finding_dict(code: str, name: str, path: str, line: int | None, message: str, detail) -> dict:
    return {"code": code, "name": name, "path": path, "line": line, "message": message, "detail": asdict(detail)}
