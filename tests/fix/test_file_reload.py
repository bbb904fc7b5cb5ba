"""A module holding many prompts costs linear time (issue 19 item 9): it is parsed once, each
prompt is measured once (and its fixed text once), and the fixes of all its prompts are verified
on one load of the file with all of them written, not one load per prompt. The results are
those of checking each prompt's fixes on its own fixed text loaded whole."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlint.check import runner
from prefixlint.check.measure import Measurer
from prefixlint.fix.write import fixed_text
from prefixlint.load import python_source, registry
from prefixlint.report.formats import format_results
from tests.fix.helpers import SETTINGS

RULES = "\n".join(f"Rule {i}: answer questions about orders and refunds, and cite the policy section used." for i in range(12))
#: Prompt shapes, each a function filled per request by the handler: a dated opening, a clean
#: prompt, two values ahead of the rules, a date in the middle, a value at the end already.
SHAPES = {
    "dated": 'def prompt_{n}(date):\n    return f"""You are assistant {n}. Today is {{date}}.\n{rules}"""\n',
    "clean": 'def prompt_{n}(date):\n    return f"""You are assistant {n}.\n{rules}\nAnswer for {{date}}."""\n',
    "two": ('def prompt_{n}(date, user_name):\n    return f"""Today is {{date}}.\nThe user is {{user_name}}.\n'
            'You are assistant {n}.\n{rules}"""\n'),
    "middle": 'def prompt_{n}(date):\n    return f"""You are assistant {n}.\nToday is {{date}}.\n{rules}"""\n',
}
CALLS = {"dated": "prompt_{n}(date.today())", "clean": "prompt_{n}(date.today())", "middle": "prompt_{n}(date.today())",
         "two": "prompt_{n}(date.today(), request.user.name)"}


def module(shapes: list[str]) -> str:
    head = "from datetime import date\n\n"
    body = "\n".join(SHAPES[shape].format(n=n, rules=RULES) for n, shape in enumerate(shapes))
    calls = "".join(f"    {CALLS[shape].format(n=n)}\n" for n, shape in enumerate(shapes))
    return head + body + "\n\ndef handler(request):\n" + calls


def outputs(path) -> tuple:
    results = runner.check_path(str(path), SETTINGS)
    return (format_results(results, "json"),
            tuple(fixed_text(r, unsafe) for r in results for unsafe in (False, True)))


def one_by_one(path, settings_, templates, chat_templates):
    """Each prompt checked with its fixes verified on its own fixed text, loaded whole."""
    return [runner.measured_file(t.path, settings_, t, chat_templates) for t in templates]


class Counted:
    """The `ast` module as python_source sees it, counting its parses of whole modules."""

    def __init__(self) -> None:
        self.parses = 0

    def __getattr__(self, name):
        return getattr(ast, name)

    def parse(self, text, *args, **kwargs):
        self.parses += 1
        return ast.parse(text, *args, **kwargs)


def counting(monkeypatch) -> dict:
    counts = {"loads": 0, "measurers": 0}
    load, init = registry.load_templates, Measurer.__init__

    def counted_load(*args, **kwargs):
        counts["loads"] += 1
        return load(*args, **kwargs)

    def counted_init(self, *args, **kwargs):
        counts["measurers"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(registry, "load_templates", counted_load)
    monkeypatch.setattr(Measurer, "__init__", counted_init)
    return counts


def test_a_module_is_parsed_and_loaded_twice_whatever_its_prompts(tmp_path, monkeypatch):
    """Loaded as checked and once with every prompt's fix; each prompt measured twice (as it is
    and as fixed): the counts do not grow with the prompts' number."""
    counts = counting(monkeypatch)
    parser = Counted()
    monkeypatch.setattr(python_source, "ast", parser)
    for prompts in (3, 9):
        path = tmp_path / f"prompts_{prompts}.py"
        path.write_text(module(["dated"] * prompts), encoding="utf-8")
        counts.update(loads=0, measurers=0)
        parser.parses = 0
        results = runner.check_path(str(path), SETTINGS)
        (result,) = results
        assert [f.line for f in result.findings] == [4 + 15 * n for n in range(prompts)]  # each `return f"""` line
        assert all(f.extra["fix"] is not None for f in result.findings)
        assert (counts["loads"], parser.parses) == (2, 2)
        assert counts["measurers"] == 2 * prompts
        fixed = fixed_text(result, unsafe=True)
        assert fixed is not None and fixed[2] == prompts  # every prompt's fix written
        assert fixed[1].count("\nToday is {date}.\"\"\"") == prompts


def test_without_a_shared_load_each_prompt_loads_the_module_again(tmp_path, monkeypatch):
    """The counter above can fail: checked one by one, the loads grow with the prompts."""
    counts = counting(monkeypatch)
    monkeypatch.setattr(runner, "_checked_together", one_by_one)
    path = tmp_path / "prompts.py"
    path.write_text(module(["dated"] * 4), encoding="utf-8")
    runner.check_path(str(path), SETTINGS)
    assert counts["loads"] == 2 + 4  # as checked, again as the fixes' original, then each fixed text


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(sorted(SHAPES)), min_size=2, max_size=5))
def test_prompts_checked_together_give_what_each_checked_alone_gives(tmp_path_factory, shapes):
    """Findings, fixes, the after-fix figures (JSON) and the fixed texts (safe and unsafe) are
    those of verifying each prompt's fixes on its own fixed text loaded whole."""
    path = tmp_path_factory.mktemp("module") / "prompts.py"
    path.write_text(module(shapes), encoding="utf-8")
    together = outputs(path)
    original = runner._checked_together
    runner._checked_together = one_by_one
    try:
        alone = outputs(path)
    finally:
        runner._checked_together = original
    assert together == alone


def test_the_prompts_of_a_module_share_one_set_of_memos(tmp_path, monkeypatch):
    """Every measurer of the module's prompts, as checked and as fixed, shares one `Memos`: a line
    run the prompts have in common is tokenized once for the module."""
    memos, init = [], Measurer.__init__

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        memos.append(self.memos)

    monkeypatch.setattr(Measurer, "__init__", recorded)
    path = tmp_path / "prompts.py"
    path.write_text(module(["dated", "clean", "two"]), encoding="utf-8")
    runner.check_path(str(path), SETTINGS)
    # the three prompts; the first's fix; the third's two fixes and their combination
    assert len(memos) == 7 and all(m is memos[0] for m in memos)
    (texts, lines), = memos[0]._encodings.values()
    assert sum(run.startswith("Rule 0:") for run in lines) == 1  # the rules' first line, for all three prompts
