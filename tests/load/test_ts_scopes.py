"""A name in a TypeScript/JavaScript prompt is read by the language's scoping rules (issue 19
item 5): the innermost block, function or module that declares it (`let`/`const`/`class` in
their block, `var` and a function's parameters in the function, a catch clause's parameter,
a loop's own variable, imports at the module), never by a declaration of the same name in
another function. Each module is written here in our own words."""

from __future__ import annotations

from prefixlint.load.registry import load_templates
from prefixlint.load.ts_grammar import parse, source_kind, walk
from prefixlint.load.ts_scopes import Scopes
from tests.load.test_ts_assembly import write
from tests.test_python_source import findings, where

RULES = " ".join(f"Rule {i}: answer in full sentences and cite the source document." for i in range(20))
OTHER_CLOCK = ("function logLine(message: string): string {\n"          # 1
               "  const edition = new Date();\n"                        # 2: another function's local
               "  return `${edition.toISOString()} ${message}`;\n}\n")  # 3, 4


def test_a_parameter_is_not_filled_by_another_functions_local_clock(tmp_path):
    path = write(tmp_path, "prompt.ts", OTHER_CLOCK + (
        "export function systemPrompt(edition: string): string {\n"    # 5
        f"  return `Edition: ${{edition}}.\\n{RULES}`;\n}}\n"          # 6, 7
        'const RELEASE = "2025-01-01";\n'                               # 8
        "export const banner = systemPrompt(RELEASE);\n"))              # 9
    (template,) = load_templates(str(path))
    edition = template.variables["edition"]
    # what the one caller passes: a module constant, line 8 (was new Date() of line 2)
    assert (edition.kind, edition.line) == ("stable", 8)
    assert findings(path) == []  # before: PFX001 ${edition} filled by new Date()


def test_an_import_is_not_filled_by_another_functions_local_clock(tmp_path):
    path = write(tmp_path, "prompt.ts", 'import { edition } from "./release";\n' + OTHER_CLOCK + (
        f"export const SYSTEM_PROMPT = `Edition: ${{edition}}.\\n{RULES}`;\n"))
    (template,) = load_templates(str(path))
    edition = template.variables["edition"]
    assert "Date" not in (edition.evidence or "")
    assert (edition.kind, edition.line, edition.evidence) == (  # the import: once per process
        "stable", 1, 'filled by import { edition } from "./release"; once per process, at import')
    assert findings(path) == []


def test_an_import_or_a_module_constant_read_in_a_function_is_evaluated_once_per_process(tmp_path):
    path = write(tmp_path, "compact.ts", (
        'import { SUMMARY_LEAD } from "./lead";\n'                                   # 1
        "const started = loadStartTime();\n"                                       # 2
        "const turns: string[] = [];\n"                                            # 3: filled while it runs
        "export function systemPrompt(): string {\n"                               # 4
        f"  return `${{SUMMARY_LEAD}} ${{started}} ${{turns}}\\n{RULES}`;\n}}\n"))  # 5
    (template,) = load_templates(str(path))
    lead, started = template.variables["summary_lead"], template.variables["started"]
    assert (lead.kind, lead.line, lead.evidence) == (
        "stable", 1, 'filled by import { SUMMARY_LEAD } from "./lead"; once per process, at import')
    assert (started.kind, started.line, started.evidence) == (
        "stable", 2, "filled by loadStartTime() once per process, at import")
    assert "turns" not in template.variables  # a container code fills: its name decides


def test_an_arrow_parameter_shadows_a_module_level_clock(tmp_path):
    path = write(tmp_path, "prompt.ts", (
        "const edition = new Date();\n"                                                    # 1
        f"export const buildPrompt = (edition: string) => `Edition: ${{edition}}.\\n{RULES}`;\n"  # 2
        "export function send() {\n"                                                       # 3
        "  return buildPrompt(new Date().toISOString());\n}\n"))                            # 4
    (template,) = load_templates(str(path))
    edition = template.variables["edition"]
    # what the caller passes on line 4, per request (was the module's clock: once per process)
    assert (edition.kind, edition.line, edition.evidence) == (
        "per_request", 4, "filled by new Date().toISOString()")
    assert [(f["code"], f["line"], f["column"]) for f in findings(path)] == [("PFX001", *where(path, "${edition}"))]


def test_a_destructured_parameter_shadows_a_module_level_clock(tmp_path):
    path = write(tmp_path, "prompt.ts", (
        "const edition = new Date();\n"
        "export function buildPrompt({ edition }: { edition: string }): string {\n"
        f"  return `Edition: ${{edition}}.\\n{RULES}`;\n}}\n"))
    (template,) = load_templates(str(path))
    # a destructured parameter is no one argument: no fill site, the name alone (was new Date() of line 1)
    assert "edition" not in template.variables
    assert findings(path) == []


def test_a_catch_parameter_is_not_another_functions_clock(tmp_path):
    path = write(tmp_path, "handler.ts", (
        "function stamp() { const failure = new Date(); return failure; }\n"
        "export function recover(run: () => void): string {\n"
        "  try { run(); } catch (failure) {\n"
        f"    const systemPrompt = `Last failure: ${{failure}}.\\n{RULES}`;\n"
        "    return systemPrompt;\n  }\n  return '';\n}\n"))
    (template,) = load_templates(str(path))
    assert template.messages[0].content.startswith("Last failure: {failure}.\nRule 0:")
    assert "failure" not in template.variables  # no fill site: was new Date() of line 1, per request


def test_a_loop_variable_shadows_a_module_level_clock(tmp_path):
    path = write(tmp_path, "days.ts", (
        "const day = new Date().toISOString();\n"
        "export function prompts(days: string[]): string[] {\n"
        "  const out: string[] = [];\n"
        "  for (const day of days) {\n"
        f"    const systemPrompt = `Day: ${{day}}.\\n{RULES}`;\n"
        "    out.push(systemPrompt);\n  }\n  return out;\n}\n"))
    (template,) = load_templates(str(path))
    # the loop's own `day`, named by the list it walks (was the module's clock of line 1)
    assert template.messages[0].content.startswith("Day: {days}.\nRule 0:")
    assert template.variables == {}


def test_a_parameter_is_not_another_functions_text(tmp_path):
    path = write(tmp_path, "prompt.ts", (
        "function pirate(): string {\n"
        "  const header = 'You are a pirate who answers in rhymes only and never breaks character.';\n"
        "  return header;\n}\n"
        "export function systemPrompt(header: string): string {\n"
        f"  return `${{header}}\\n{RULES}`;\n}}\n"))
    contents = [t.messages[0].content for t in load_templates(str(path))]
    # the parameter stays a field (was the pirate's words inlined)
    assert f"{{header}}\n{RULES}" in contents


def test_var_is_read_in_its_whole_function_and_an_inner_block_const_stays_inside(tmp_path):
    path = write(tmp_path, "prompt.js", (
        "export function systemPrompt(flag) {\n"                     # 1
        "  const label = 'release notes';\n"                          # 2
        "  if (flag) { var started = new Date().toISOString(); }\n"   # 3: `var`: the whole function
        "  { const label = new Date(); console.log(label); }\n"       # 4: a block of its own
        f"  return `Since ${{started}} (${{label}}).\\n{RULES}`;\n}}\n"))  # 5
    (template,) = load_templates(str(path))
    started = template.variables["started"]
    assert "label" not in template.variables  # inlined: the text of line 2, not the clock of line 4
    assert (started.kind, started.line) == ("per_request", 3)
    assert template.messages[0].content.startswith("Since {started} (release notes).")  # line 2's text


def _resolved(source: str, path: str = "m.ts") -> dict:
    """(name, line of the use) -> (kind, line of the binding) for every identifier read in `source`."""
    root = parse(path, source)
    scopes = Scopes(root, source_kind(path)[1])
    out = {}
    for node in walk(root):
        if node.type in ("identifier", "shorthand_property_identifier"):
            binding = scopes.resolve(node)
            out[(node.text.decode(), node.start_point[0] + 1)] = (
                (binding.kind, binding.node.start_point[0] + 1) if binding is not None else None)
    return out


def test_scopes_resolve_each_kind_of_declaration():
    got = _resolved(
        "import Base, { a as alias } from 'x';\n"           # 1
        "import * as ns from 'y';\n"                         # 2
        "const top = 1;\n"                                   # 3
        "function f(p, { q, r: [s] }, t = top, ...rest) {\n"  # 4
        "  var v = p;\n"                                     # 5
        "  { let top = 2; g(top, v, q, s, t, rest); }\n"     # 6
        "  for (let i = 0; i < 2; i++) { g(i); }\n"          # 7
        "  for (const k of ns) { g(k, alias, Base); }\n"     # 8
        "  try { g(); } catch (err) { g(err); }\n"           # 9
        "  return top + undeclared;\n"                       # 10
        "}\n"                                                # 11
        "const h = (x) => x + f(x);\n"                       # 12
        "class C { m(y) { return y + C; } }\n")              # 13
    assert got[("top", 6)] == ("variable", 6) and got[("top", 10)] == ("variable", 3)
    assert got[("top", 4)] == ("variable", 3)  # a default value reads the scope around
    assert got[("v", 6)] == ("variable", 5) and got[("p", 5)] == ("parameter", 4)
    assert got[("q", 6)] == ("parameter", 4) and got[("s", 6)] == ("parameter", 4)
    assert got[("t", 6)] == ("parameter", 4) and got[("rest", 6)] == ("parameter", 4)
    assert got[("i", 7)] == ("variable", 7) and got[("k", 8)] == ("loop", 8)
    assert got[("alias", 8)] == ("import", 1) and got[("Base", 8)] == ("import", 1)
    assert got[("ns", 8)] == ("import", 2) and got[("err", 9)] == ("catch", 9)
    assert got[("undeclared", 10)] is None
    assert got[("x", 12)] == ("parameter", 12) and got[("f", 12)] == ("function", 4)
    assert got[("y", 13)] == ("parameter", 13) and got[("C", 13)] == ("class", 13)


def test_a_var_in_a_block_is_hoisted_to_its_function_and_no_further():
    got = _resolved("function f() {\n  if (1) { var late = 1; }\n  return late;\n}\nlate;\n", "m.js")
    assert got[("late", 3)] == ("variable", 2) and got[("late", 5)] is None
