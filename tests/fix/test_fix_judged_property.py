"""Property (issue 24 item 4): for a generated prompt with a volatile value in a unit (a line, a
list item, an XML-like element, a Markdown section, a JSON example, a sentence of the persona's
line), alone or with other content, in a plain text, a native YAML chat or a Prompty file, any
fix offered (safe or unsafe) passes the judge of benchmarks/judge_fixes.py, which reads the
files on its own: the fixed file loads with the same loader, keeps the placeholder and word
multisets, leaves no container empty or split, keeps the persona first and the label with its
value, and carries fewer volatile findings."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from prefixlint.fix.write import fixed_text
from tests.fix.helpers import check
from tests.fix.test_judge import judge

MOVING = ("PFX001", "PFX002", "PFX003", "PFX004", "PFX005")
WORDS = ["answer", "the", "customer", "politely", "cite", "policy", "section", "never", "guess", "prices",
         "refunds", "orders", "shipping", "within", "days", "support", "team", "always", "short"]
sentence = st.lists(st.sampled_from(WORDS), min_size=5, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
LABELS = {"now": "Current time:", "session_id": "Session:", "request_id": "Request id:", "today": "Date:"}
PERSONA = "You are Harbor, the support assistant of Northwind."


@st.composite
def units(draw):
    """The lines of a unit holding `{{ name }}`, with other content in it or not."""
    name = draw(st.sampled_from(sorted(LABELS)))
    value, label = "{{ " + name + " }}", LABELS[name]
    other = draw(st.booleans())
    extra = [draw(sentence)] if other else []
    kind = draw(st.sampled_from(["line", "item", "tag", "section", "json", "persona"]))
    lines = {
        "line": [f"{label} {value}", *extra],
        "item": ["Context:", f"- {label} {value}", *(f"- {e}" for e in extra)],
        "tag": ["<context>", f"{label} {value}", *extra, "</context>"],
        "section": ["## Session", "", f"{label} {value}", *extra, "", "## Rules", ""],
        "json": ["{", f'  "{name}": "{value}"' + ("," if other else ""),
                 *(f'  "note": "{e}"' for e in extra), "}"],
        "persona": [],
    }[kind]
    return kind, value, label, lines


@st.composite
def prompts(draw):
    """(file name, text) in one of three formats, the unit between the persona and the rules."""
    kind, value, label, unit = draw(units())
    persona = f"{PERSONA} {label} {value}" if kind == "persona" else PERSONA
    body = draw(st.lists(sentence, min_size=8, max_size=12))
    lines = [persona, "", *unit, "", *body]
    fmt = draw(st.sampled_from(["txt", "yaml", "prompty"]))
    if fmt == "txt":
        return "prompt.txt", "\n".join(lines) + "\n\nQuestion: {{ question }}\n"
    if fmt == "yaml":
        block = "".join(f"      {text}\n" if text else "\n" for text in lines)
        return "chat.yaml", ("messages:\n  - role: system\n    content: |\n" + block
                             + "  - role: user\n    content: \"{{ question }}\"\n")
    front = "---\nname: harbor\nmodel:\n  api: chat\ninputs:\n  question: {type: string, sample: Where is it?}\n---\n"
    return "chat.prompty", front + "system:\n" + "\n".join(lines) + "\n\nuser:\n{{ question }}\n"


def volatile(path) -> int:
    return sum(f.code in MOVING for r in check(path) for f in r.findings)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prompts())
def test_any_offered_fix_passes_the_judge(tmp_path_factory, case):
    name, text = case
    folder = tmp_path_factory.mktemp("p")
    path = folder / name
    path.write_text(text, encoding="utf-8")
    results = check(path)
    assert all(r.error is None for r in results)
    planned = [fixed_text(r, unsafe=True) for r in results]
    event("fixed" if any(p and p[0] != p[1] for p in planned) else "no fix")
    if not any(p and p[0] != p[1] for p in planned):
        return  # nothing offered: its reason is in the finding (tests/fix/test_fix_units.py)
    ((_, after, fixed),) = [p for p in planned if p]
    prompts_before, count_before = judge.read_prompts(path), volatile(path)
    fixed_path = folder / ("fixed_" + name)
    fixed_path.write_text(after, encoding="utf-8")
    judged = judge.judge_file(name, prompts_before, judge.read_prompts(fixed_path), count_before,
                              volatile(fixed_path), None, fixed)
    assert judged.failures == [], (text, after)
    assert after.count(PERSONA) == 1 and after.index(PERSONA) == text.index(PERSONA)  # the persona stays first
