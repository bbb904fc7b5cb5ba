"""`prefixlint report --format json`: the comment's facts for bots.

    {"base": {"ref", "commit"}, "head": {"ref", "commit", "working_tree", "label"}, "price",
     "engine": {"name", "block_size", "tokenizer", "rounding"},
     "templates": [{"path", "status", "old_path", "tokens": [base, head],
                    "shared_prefix_tokens": [base, head], "reusable_tokens": [base, head],
                    "cost_per_1000_requests": [base, head] (with a price),
                    "errors": [base, head], "new_findings": [...], "fixed_findings": [...]}]}

A side that does not exist (an added template's base, a removed one's head) or could not be
measured is null in each pair; findings have the shape of `check --format json`.
"""

from __future__ import annotations

import json
from typing import Sequence

from prefixlint.prreport.markdown import Measured, Setup, TemplateChange


def _pair(row: TemplateChange, attribute: str) -> list:
    return [None if side is None or side.error else getattr(side, attribute) for side in (row.base, row.now)]


def _single(text: str) -> str | int:
    """A value used alike for every template ("vllm", 16), or the several joined ("vllm, sglang")."""
    return int(text) if text.isdigit() else text


def to_dict(rows: Sequence[TemplateChange], setup: Setup) -> dict:
    from prefixlint.report.check_json import finding_dict

    def side_error(side: Measured | None) -> str | None:
        return side.error if side is not None else None

    return {
        "base": {"ref": setup.base_label, "commit": setup.base_commit},
        "head": {"ref": setup.head_ref, "commit": setup.head_commit, "working_tree": True,
                 "label": setup.head_label},
        "price": ({"computed_per_million": setup.price[0], "cached_per_million": setup.price[1]}
                  if setup.price else None),
        "engine": {"name": setup.engine, "block_size": _single(str(setup.block_size)), "tokenizer": setup.tokenizer,
                   "rounding": setup.rounding},
        "templates": [{
            "path": row.path, "status": row.status, "old_path": row.old_path,
            "tokens": _pair(row, "tokens"), "shared_prefix_tokens": _pair(row, "shared_prefix_tokens"),
            "reusable_tokens": _pair(row, "reusable_tokens"),
            "cost_per_1000_requests": ([None if side is None or side.error else round(setup.cost(side), 6)
                                        for side in (row.base, row.now)] if setup.price else None),
            "errors": [side_error(row.base), side_error(row.now)],
            "new_findings": [{"path": f.path, **finding_dict(f)} for f in row.new_findings],
            "fixed_findings": [{"path": f.path, **finding_dict(f)} for f in row.fixed_findings],
        } for row in rows],
    }


def to_json(rows: Sequence[TemplateChange], setup: Setup) -> str:
    return json.dumps(to_dict(rows, setup), indent=2, ensure_ascii=False)
