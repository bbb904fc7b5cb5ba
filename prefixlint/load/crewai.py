"""CrewAI's `config/agents.yaml` and `config/tasks.yaml`, measured as CrewAI assembles them.

    researcher:                                  # agents.yaml
      role: "{topic} Senior Data Researcher"
      goal: "Uncover cutting-edge developments in {topic}"
      backstory: "You're a seasoned researcher ..."
    research_task:                               # tasks.yaml
      description: "Conduct a thorough research about {topic} ..."
      expected_output: "A list with 10 bullet points ..."
      agent: researcher

CrewAI fills `{name}` with the inputs of `crew.kickoff(inputs={...})`: a new value for every run,
so every placeholder is a per-request variable here, unless every kickoff of the repository passes
it as a literal (`inputs = {"topic": "AI LLMs"}`: a program constant, stable). Each agent and each task is a prompt of its
own (`load_all`), built in the order of CrewAI's `Prompts.task_execution` and the text of its
English `translations/en.json` (MIT, crewAIInc/crewAI): an agent is its system prompt, the
`role_playing` slice (`You are {role}. {backstory}\\nYour personal goal is: {goal}`) then the
`no_tools` slice; a task is the user prompt, the `task` slice around the task's description
and the `expected_output` slice. CrewAI's fixed text points at the agent's or task's key.
CrewAI sends a task's prompt as the user's message of its agent's run (the tool steps that
follow it repeat it): it is `sent_as` "user", so a value in it is a finding only with a long run
of stable text after it (`min-tail-tokens`), as for a prompt file the code sends as the user's.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.python_modules import kickoff_literals
from prefixlint.load.template import Message, Template, Variable, align
from prefixlint.load.yaml_source import compose, line_of, mapping_get

FORMAT = "crewai"
_AGENT = ("role", "goal", "backstory")
_TASK = ("description", "expected_output")
_KEY = re.compile(r"^[ \t]+(role|goal|backstory|description|expected_output)[ \t]*:", re.MULTILINE)
_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_-]*)\}(?!\})")
HINT = "a CrewAI agents.yaml maps names to {role, goal, backstory}; a tasks.yaml to {description, expected_output}"

# CrewAI's slices (crewai/translations/en.json), as `Prompts._build_prompt` joins them.
ROLE_PLAYING = ("You are ", "{role}", ". ", "{backstory}", "\nYour personal goal is: ", "{goal}")
NO_TOOLS = ("\nTo give my best complete final answer to the task respond using the exact following format:\n\n"
            "Thought: I now can give a great answer\nFinal Answer: Your final answer must be the great and the"
            " most complete as possible, it must be outcome described.\n\nI MUST use these formats, my job"
            " depends on it!")
TASK = ("\nCurrent Task: ", "{description}", "\n\nThis is the expected criteria for your final answer: ",
        "{expected_output}", "\nyou MUST return the actual complete content as the final answer, not a summary.",
        "\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer,"
        " your job depends on it!\n\nThought:")


def sniff(text: str) -> bool:
    keys = set(_KEY.findall(text[:200_000]))
    return set(_AGENT) <= keys or set(_TASK) <= keys


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    root = compose(text, path)
    if root is None or root.id != "mapping":
        raise PrefixlintError("a CrewAI configuration maps agent or task names to their fields", path=path, line=1,
                              hint=HINT)
    templates = []
    for key, node in root.value:
        if node.id != "mapping":
            continue
        pieces: tuple[str, ...]
        if all(mapping_get(node, name) is not None for name in _AGENT):
            pieces, role = ROLE_PLAYING + (NO_TOOLS,), "system"
        elif all(mapping_get(node, name) is not None for name in _TASK):
            pieces, role = TASK, "user"
        else:
            continue
        templates.append(_template(path, text, key, node, pieces, role))
    if not templates:
        raise PrefixlintError("no agent (role, goal, backstory) or task (description, expected_output) here",
                              path=path, line=1, hint=HINT)
    return templates


def _template(path: str, text: str, key, node, pieces: tuple[str, ...], role: str) -> Template:
    content = ""
    offsets: tuple[int, ...] = ()
    at = key.start_mark.index
    for piece in pieces:
        if piece.startswith("{") and piece.endswith("}") and piece[1:-1] in _AGENT + _TASK:
            value = mapping_get(node, piece[1:-1])
            if value.id != "scalar" or value.tag.endswith(":null"):
                raise PrefixlintError(f"`{piece[1:-1]}` must be text", path=path, line=line_of(value))
            content += value.value
            offsets += align(value.value, text, value.start_mark.index, value.end_mark.index, value.style)
        else:
            content += piece.replace("{", "{{").replace("}", "}}")
            offsets += (at,) * len(piece.replace("{", "{{").replace("}", "}}"))
    names = sorted(set(_FIELD.findall(content)))
    literals = kickoff_literals(path) or {}  # `kickoff(inputs={"topic": "..."})`: a program constant
    variables = {name: Variable(name, "stable", (literals[name][0],), None,
                                f"filled by the literal {literals[name][0]!r} passed to kickoff ({literals[name][1]})")
                 if name in literals else Variable(name, "per_request", (), line_of(node)) for name in names}
    message = Message(role, content, offsets, at)
    task = role == "user"
    return Template(path=path, format=FORMAT, source=text, messages=(message,), syntax="format",
                    variables=variables, is_chat=True, sent_alone="CrewAI's task execution" if task else None,
                    sent_as="user" if task else None)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, many=load_all, assembled=True)
