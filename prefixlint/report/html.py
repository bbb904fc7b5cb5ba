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
  border:1px solid #d0d7de;padding:.6em;margin:.4em 0}
.tok{padding:1px 0;border-right:1px solid #fff;color:#1f2328}.r{background:#b7ebc6}.s{background:#ffe8a3}
.x{background:#ff8a80;outline:3px solid #b71c1c;font-weight:700}
.stopmark{display:inline-block;background:#b71c1c;color:#fff;font:700 11px/1.6 system-ui,sans-serif;
  padding:0 .5em;margin:0 .3em;border-radius:3px}
.l{background:#e6e9ed;color:#1f2328}.b{box-shadow:-2px 0 0 #0969da}
.h{text-decoration:underline dotted #6639ba 2px;font-style:italic}
.legend .h{background:#f6f8fa}
details.fold{display:inline}details.fold summary{display:inline;cursor:pointer;color:#0550ae;
  background:#ddf4ff;border-radius:3px;padding:0 .4em;font:11px/1.6 system-ui,sans-serif}
.moves{font:12px/1.7 ui-monospace,monospace;border-left:3px solid #0969da;padding:.2em .6em;margin:.4em 0}
.moves del{background:#ffebe9;color:#82071e}.moves ins{background:#dafbe1;color:#116329;text-decoration:none}
.bar{display:flex;height:.9em;width:30em;max-width:100%;border:1px solid #d0d7de}
.bar .r,.bar .s,.bar .l{height:100%}.err{color:#c62828}
"""
LEGEND = (
    '<p class="legend"><span class="r">reused by the engine</span><span class="s">shared, not reused'
    ' (a partial block, the recomputed last token)</span><span class="x">first token that differs</span>'
    '<span class="l">computed again</span><span class="b">&nbsp;</span>block boundary'
    ' <span class="h">conversation history prefixlint generated</span></p>'
)
#: Tokens shown at the start of a long reused run, before the stop, and after it; the rest is
#: folded (`<details>`), so the stop is on screen without scrolling a box.
HEAD_TOKENS, BEFORE_STOP, AFTER_STOP = 24, 48, 96


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
        block, generated = view["block_size"], frozenset(view.get("generated", ()))
        now, fixed = view["now"], view["fixed"]
        if not view["moved"] and now["tokens"] == fixed["tokens"]:  # clean: one panel
            body.append(_side("now", "Now (nothing to move: the suggested fix is the same request)", now, block,
                              generated))
        else:
            body.append(_side("now", "Now", now, block, generated))
            moved = ", ".join(f"<code>{escape(text)}</code>" for text in view["moved"])
            title = f"After the suggested fix (moving {moved} after the stable content)" if moved else \
                "After the suggested fix (nothing to move)"
            body.append(_moves(now["tokens"], fixed["tokens"]))
            body.append(_side("fixed", title, fixed, block, generated if now["tokens"] == fixed["tokens"] else ()))
    body.append("</section>")
    return "\n".join(body)


def _moves(before: list[str], after: list[str], hunks: int = 6, width: int = 60) -> str:
    """What the fix moved: the token runs taken out (del) and put in (ins), in request order."""
    import difflib

    items = []
    for tag, a, b, c, d in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        shown = []
        if b > a:
            shown.append(f"<del>{escape(_cut(''.join(before[a:b]), width))}</del> (token {a:,})")
        if d > c:
            shown.append(f"<ins>{escape(_cut(''.join(after[c:d]), width))}</ins> (token {c:,})")
        items.append("<li>" + " → ".join(shown) + "</li>")
    more = f"<li>… {len(items) - hunks} more</li>" if len(items) > hunks else ""
    return f'<div class="moves"><b>What moved</b><ul>{"".join(items[:hunks])}{more}</ul></div>'


def _cut(text: str, width: int) -> str:
    text = text.replace("\n", "↵")
    return text if len(text) <= width else text[: width // 2] + " … " + text[-width // 2:]


def _side(kind: str, title: str, side: dict, block: int, generated=frozenset()) -> str:
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
        history = " h" if index in generated else ""
        shown = escape(text).replace("\n", "↵\n")
        mark = f'<span class="stopmark">▼ reuse stops here (token {index:,})</span>' if index == shared else ""
        spans.append(f'{mark}<span class="tok {kind_of}{history}{boundary}" data-i="{index}" title="token {index},'
                     f' block {index // max(block, 1)}{", generated history" if history else ""}">{shown}</span>')
    return (f'<div class="side {kind}" data-tokens="{len(tokens)}" data-shared="{shared}" data-reusable="{reusable}">'
            f"<h3>{heading}</h3>{bar}<pre class=\"tokens\">{''.join(_folded(spans, shared))}</pre></div>")


def _folded(spans: list[str], stop: int) -> list[str]:
    """The spans with the long runs far from the stop folded into `<details>` (still in the page)."""
    stop = min(stop, len(spans))
    keep = set(range(min(HEAD_TOKENS, len(spans)))) | set(range(max(stop - BEFORE_STOP, 0), stop + AFTER_STOP))
    out: list = []
    run: list = []
    for index, span in enumerate(spans):
        if index in keep:
            if run:
                out.append(_fold(run))
                run = []
            out.append(span)
        else:
            run.append(span)
    if run:
        out.append(_fold(run))
    return out


def _fold(run: list[str]) -> str:
    return f'<details class="fold"><summary>… {len(run):,} tokens</summary>{"".join(run)}</details>'



def _share(count: int, tokens: list) -> str:
    return f"{100 * max(count, 0) / max(len(tokens), 1):.2f}"


def _fixed_tokens(result: FileResult) -> int:
    return result.tokens if result.fixed_tokens is None else result.fixed_tokens
