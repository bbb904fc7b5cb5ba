"""A prompt nothing in the repository sends (issue 19, judged false alarms of cause B): the
module-level function or constant it is written in is read nowhere in the repository's code and
configuration, so its finding is information, not a failure; anything that reads it, anything a
framework calls by convention, and a tree that is not a whole checkout keep the finding."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load import reach

RULES = "\n".join(f"- Rule {i}: answer only from the catalogue and quote the product's reference number." for i in range(12))
TS = (f"export function buildTopicsPrompt(contextText: string) {{\n  return `CONTEXT:\n${{contextText}}\n\n{RULES}\n`;\n}}\n")
PY = (f'def build_topics_prompt(context_text):\n    return f"""CONTEXT:\n{{context_text}}\n\n{RULES}\n"""\n')


@pytest.fixture(autouse=True)
def _fresh():
    reach._repository_files.cache_clear()
    yield
    reach._repository_files.cache_clear()


def _repo(tmp_path, files: dict[str, str], git: bool = True):
    if git:
        (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _findings(path) -> list[dict]:
    result = CliRunner().invoke(cli, ["check", str(path), "--output-format", "json", "--no-cache"])
    assert result.exit_code in (0, 1), result.output
    return [f for file in json.loads(result.output)["files"] for f in file["findings"] if f["code"] == "PFX005"]


def test_an_export_nothing_imports_is_information_with_its_name(tmp_path):
    _repo(tmp_path, {"src/llm.ts": TS, "src/app.ts": 'import { other } from "./other";\nother();\n',
                     "NOTES.md": "buildTopicsPrompt splits a conversation into topics.\n"})
    [finding] = _findings(tmp_path / "src" / "llm.ts")
    assert (finding["line"], finding["severity"], finding["unread"]) == (3, "info", "buildTopicsPrompt")
    assert finding["message"].endswith("Nothing in the repository reads `buildTopicsPrompt`, so nothing sends this text.")


@pytest.mark.parametrize("caller", [
    ("src/app.ts", 'import { buildTopicsPrompt } from "./llm";\n'
                   'export const handle = (req) => buildTopicsPrompt(req.body.text);\n'),
    ("src/app.js", 'const { buildTopicsPrompt } = await import("./llm");\n'),  # a dynamic import
    ("serverless.yml", "functions:\n  topics:\n    handler: src/llm.buildTopicsPrompt\n"),  # configuration names it
])
def test_a_reader_anywhere_in_code_or_configuration_keeps_the_warning(tmp_path, caller):
    _repo(tmp_path, {"src/llm.ts": TS, caller[0]: caller[1]})
    [finding] = _findings(tmp_path / "src" / "llm.ts")
    assert finding["severity"] == "warning" and "unread" not in finding


@pytest.mark.parametrize(("other", "unread"), [
    (("src/app.ts", 'import { buildTopicsPrompt, other } from "./llm";\nexport const handle = () => other();\n'),
     "buildTopicsPrompt"),
    (("copy/llm.ts", TS), "buildTopicsPrompt"),  # a copy of the module elsewhere defines the name: it reads nothing
    (("jobs/run.py", "from src.llm import build_topics_prompt, other\n\nother()\n"), "build_topics_prompt"),
])
def test_an_import_nothing_uses_or_a_copy_of_the_definition_is_no_reader(tmp_path, other, unread):
    _repo(tmp_path, {"src/llm.ts": TS + "export function other() {}\n", "src/llm.py": PY, other[0]: other[1]})
    assert (3, "info", unread) in {(f["line"], f["severity"], f.get("unread")) for f in _findings(tmp_path / "src")}


def test_a_constant_read_only_by_an_unread_function_names_that_function(tmp_path):
    text = (f"export const TEMPLATE = `CONTEXT:\n{{CONTEXT}}\n\n{RULES}\n`;\n\n"
            "export function buildPrompt(context: string) {\n  return TEMPLATE.replace('{CONTEXT}', context);\n}\n")
    _repo(tmp_path, {"lib/prompts.ts": text, "lib/other.ts": "export const x = 1;\n"})
    assert reach.unread(str(tmp_path / "lib" / "prompts.ts"), text, 2) == "buildPrompt"
    # the function called from module-level code: read
    assert reach.unread(str(tmp_path / "lib" / "prompts.ts"), text + 'console.log(buildPrompt("a"));\n', 2) is None


@pytest.mark.parametrize(("files", "path", "why"), [
    ({"src/llm.ts": TS}, "src/llm.ts", "no .git: a copied file, not a whole program"),
    ({"app/api/topics/route.ts": TS}, "app/api/topics/route.ts", "a route module the framework loads"),
    ({"tests/llm.ts": TS}, "tests/llm.ts", "a test tree"),
    ({"src/llm.ts": TS.replace("export function", "export default function")}, "src/llm.ts", "export default"),
    ({"src/llm.ts": TS, "package.json": '{"name": "topics", "main": "dist/llm.js"}'}, "src/llm.ts", "a published package"),
])
def test_what_a_framework_or_another_program_may_call_is_never_claimed(tmp_path, files, path, why):
    _repo(tmp_path, files, git=why != "no .git: a copied file, not a whole program")
    assert reach.unread(str(tmp_path / path), files[path], 3) is None, why


def test_a_private_package_json_is_an_application(tmp_path):
    _repo(tmp_path, {"src/llm.ts": TS, "package.json": '{"name": "app", "private": true, "main": "index.js"}'})
    assert reach.unread(str(tmp_path / "src" / "llm.ts"), TS, 3) == "buildTopicsPrompt"


def test_python_functions_and_constants(tmp_path):
    _repo(tmp_path, {"app/prompts.py": PY, "app/main.py": "print('hi')\n"})
    [finding] = _findings(tmp_path / "app" / "prompts.py")
    assert (finding["severity"], finding["unread"]) == ("info", "build_topics_prompt")
    path = str(tmp_path / "app" / "prompts.py")
    assert reach.unread(path, "@tool\n" + PY, 4) is None  # a decorator registers it
    (tmp_path / "app" / "main.py").write_text("from app.prompts import *\n")
    reach._repository_files.cache_clear()
    assert reach.unread(path, PY, 3) is None  # `import *` reads every name


def test_a_python_distribution_is_not_claimed(tmp_path):
    _repo(tmp_path, {"pkg/prompts.py": PY, "pyproject.toml": "[build-system]\nrequires = []\n"})
    assert reach.unread(str(tmp_path / "pkg" / "prompts.py"), PY, 3) is None
