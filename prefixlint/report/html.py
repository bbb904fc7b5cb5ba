"""`check --format html`: one self-contained page that shows where each template's reuse stops.

For each template: its rendered request as tokens, the engine's block boundaries (every
`block_size` tokens), the region the engine reuses, the shared tokens it does not (a partial
block, the recomputed last token), the token where the two requests first differ and the
placeholder that makes them differ; the same after the suggested fix. No script, no network,
no external asset: the page's Content-Security-Policy forbids them all.

The numbers are those of `--format json` (`reusable_tokens`, `shared_prefix_tokens`,
`fixed_reusable_tokens`, `fixed_shared_prefix_tokens`); the token texts come from the
measurement itself (`prefixlint.rules.token_view`).
"""

from __future__ import annotations

from html import escape
from typing import Sequence

from prefixlint.results import FileResult
from prefixlint.rules.checks import percent

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#1f2328;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #d0d7de}
h3{font-size:1em;margin:1.2em 0 .4em}code{background:#f6f8fa;padding:0 .25em}
.legend span,.tok{border-radius:2px}
.legend span{display:inline-block;padding:0 .4em;margin-right:.6em}
pre.tokens{white-space:pre-wrap;word-break:break-all;font:12px/1.9 ui-monospace,monospace;
  border:1px solid #d0d7de;padding:.6em;max-height:28em;overflow:auto}
.tok{padding:1px 0;border-right:1px solid #fff}.r{background:#b7ebc6}.s{background:#ffe8a3}.x{background:#ff8a80;outline:2px solid #c62828}
.l{background:#eef1f4;color:#57606a}.b{box-shadow:-2px 0 0 #0969da}
.bar{display:flex;height:.9em;width:30em;max-width:100%;border:1px solid #d0d7de}
.bar .r,.bar .s,.bar .l{height:100%}.err{color:#c62828}
"""
LEGEND = (
    '<p class="legend"><span class="r">reused by the engine</span><span class="s">shared, not reused'
    ' (a partial block, the recomputed last token)</span><span class="x">first token that differs</span>'
    '<span class="l">computed again</span><span class="b">&nbsp;</span>block boundary</p>'
)


def format_html(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False) -> str:
    good = [r for r in results if r.error is None]
    sections = [_section(number, result) for number, result in enumerate(good, 1)]
    errors = [f'<li class="err">{escape(str(r.error))}</li>' for r in results if r.error is not None]
    index = "".join(f'<li><a href="#t{n}">{escape(r.path)}</a>: reusable now {percent(r.reusable_tokens, r.tokens)},'
                    f' after the suggested fixes {percent(r.fixed_reusable_tokens, _fixed_tokens(r))}'
                    f"</li>" for n, r in enumerate(good, 1))
    findings = sum(len(r.findings) for r in results)
    return "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>prefixlint: prefix-cache reuse</title>", f"<style>{STYLE}</style></head><body>",
        "<h1>Prefix-cache reuse</h1>",
        f"<p>{findings} finding{'s' if findings != 1 else ''} in {len(results)} file{'s' if len(results) != 1 else ''}."
        " Each template is rendered twice with its changing values different, as two requests; the engine reuses"
        " the first request's cached tokens up to the first token that differs, in whole blocks.</p>",
        LEGEND, f"<ul>{index}</ul>", *([f"<h2>Not checked</h2><ul>{''.join(errors)}</ul>"] if errors else []),
        *sections, "</body></html>", ""])


def _section(number: int, result: FileResult) -> str:
    view = result.token_view
    fixed_tokens = _fixed_tokens(result)
    head = (f'<section class="template" id="t{number}" data-path="{escape(result.path)}">'
            f"<h2>{escape(result.path)}</h2>"
            f"<p>{result.tokens:,} tokens · tokenizer {escape(str(result.tokenizer))} · engine"
            f" {escape(str(result.engine))} ({result.block_size}-token blocks)"
            f" · reusable now {percent(result.reusable_tokens, result.tokens)}"
            f" · after the suggested fixes {percent(result.fixed_reusable_tokens, fixed_tokens)}</p>")
    findings = "".join(f"<li><code>{escape(f.code)}</code> line {f.line}: {escape(f.message)}</li>"
                       for f in result.findings)
    body = [head, f"<ul>{findings}</ul>" if findings else ""]
    if view is None:
        body.append("<p>No token view for this file (a chat template on its own is measured by its probe"
                    " renders).</p>")
    else:
        block = view["block_size"]
        body.append(_side("now", "Now", view["now"], block))
        moved = ", ".join(f"<code>{escape(text)}</code>" for text in view["moved"])
        title = f"After the suggested fix (moving {moved} after the stable content)" if moved else \
            "After the suggested fix (nothing to move)"
        body.append(_side("fixed", title, view["fixed"], block))
    body.append("</section>")
    return "\n".join(body)


def _side(kind: str, title: str, side: dict, block: int) -> str:
    tokens, shared, reusable = side["tokens"], side["shared_prefix_tokens"], side["reusable_tokens"]
    stop = side.get("stop")
    if stop is not None:
        where = f" (line {stop['line']}, column {stop['column']})" if stop.get("line") else ""
        what = f", at <code>{escape(stop['placeholder'])}</code>{where}" if stop.get("placeholder") else ""
        heading = f"{title}: reuse stops at token {stop['token']:,}{what}"
    else:
        heading = f"{title}: the two requests do not differ"
    heading += f"; the engine reuses {reusable:,} of {len(tokens):,} tokens ({percent(reusable, len(tokens))})"
    bar = (f'<div class="bar" role="img" aria-label="{percent(reusable, len(tokens))} reused">'
           f'<div class="r" style="width:{_share(reusable, tokens)}%"></div>'
           f'<div class="s" style="width:{_share(shared - reusable, tokens)}%"></div>'
           f'<div class="l" style="width:{_share(len(tokens) - shared, tokens)}%"></div></div>')
    spans = []
    for index, text in enumerate(tokens):
        kind_of = "r" if index < reusable else "s" if index < shared else "x" if index == shared else "l"
        boundary = " b" if block > 1 and index and index % block == 0 else ""
        shown = escape(text).replace("\n", "↵\n")
        spans.append(f'<span class="tok {kind_of}{boundary}" data-i="{index}" title="token {index},'
                     f' block {index // max(block, 1)}">{shown}</span>')
    return (f'<div class="side {kind}" data-tokens="{len(tokens)}" data-shared="{shared}" data-reusable="{reusable}">'
            f"<h3>{heading}</h3>{bar}<pre class=\"tokens\">{''.join(spans)}</pre></div>")


def _share(count: int, tokens: list) -> str:
    return f"{100 * max(count, 0) / max(len(tokens), 1):.2f}"


def _fixed_tokens(result: FileResult) -> int:
    return result.tokens if result.fixed_tokens is None else result.fixed_tokens
