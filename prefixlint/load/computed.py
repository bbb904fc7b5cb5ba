"""Values the code computes rather than reads (issue 19 item 5): the clock, a UUID or a random
source (a new value on every call), and what the process reads of the machine it runs on (the
user it runs as, the host, its working folder: the same on every request one deployment serves).
Each call is known by its last two dotted names (`datetime.now`) or, written bare, by its last
name (`uuid4()`), in Python and in JavaScript or TypeScript; `filled_by` writes the evidence.
"""

from __future__ import annotations

import re

from prefixlint.load.template import Variable

#: Calls whose value changes by construction, by their last two dotted names (`name()`: the last
#: one alone) -> (variable name, how often it changes, how to generate two samples).
CLOCK_CALLS: dict[str, tuple[str, str, str]] = {
    "datetime.now": ("now", "per_request", "iso_datetime"), "datetime.utcnow": ("now", "per_request", "iso_datetime"),
    "datetime.today": ("now", "per_request", "iso_datetime"), "timezone.now": ("now", "per_request", "iso_datetime"),
    "pendulum.now": ("now", "per_request", "iso_datetime"), "arrow.now": ("now", "per_request", "iso_datetime"),
    "arrow.utcnow": ("now", "per_request", "iso_datetime"), "date.today": ("today", "per_day", "iso_date"),
    "time.time": ("time", "per_request", "epoch"), "time.time_ns": ("time", "per_request", "epoch"),
    "time.ctime": ("time", "per_request", "rfc2822"), "time.localtime": ("time", "per_request", "strftime"),
    "time.gmtime": ("time", "per_request", "strftime"), "time.strftime": ("time", "per_request", "strftime"),
    "time.asctime": ("time", "per_request", "rfc2822"), "utils.formatdate": ("now", "per_request", "rfc2822"),
    "formatdate()": ("now", "per_request", "rfc2822"),
    "uuid.uuid4": ("uuid", "per_request", "uuid"), "uuid.uuid1": ("uuid", "per_request", "uuid"),
    "uuid4()": ("uuid", "per_request", "uuid"), "uuid1()": ("uuid", "per_request", "uuid"),
    "secrets.token_hex": ("nonce", "per_request", "hex"), "secrets.token_urlsafe": ("nonce", "per_request", "hex"),
    "random.random": ("random", "per_request", "random"), "random.randint": ("random", "per_request", "integer"),
    "random.choice": ("random", "per_request", "random"),
    # JavaScript and TypeScript
    "new Date()": ("now", "per_request", "iso_datetime"), "Date.now": ("now", "per_request", "epoch"),
    "performance.now": ("now", "per_request", "epoch"), "crypto.randomUUID": ("uuid", "per_request", "uuid"),
    "randomUUID()": ("uuid", "per_request", "uuid"), "uuidv4()": ("uuid", "per_request", "uuid"),
    "nanoid()": ("uuid", "per_request", "uuid"), "Math.random": ("random", "per_request", "random"),
}

#: What the process reads of its machine: the same on every request a deployment serves (a
#: clock in the same expression still wins: `clock_call`'s `prefer`).
CLOCK_CALLS.update({
    "getpass.getuser": ("username", "per_deployment", "text"), "os.getlogin": ("username", "per_deployment", "text"),
    "socket.gethostname": ("hostname", "per_deployment", "text"), "platform.node": ("hostname", "per_deployment", "text"),
    "os.getcwd": ("cwd", "per_deployment", "text"), "Path.cwd": ("cwd", "per_deployment", "text"),
    "Path.home": ("home", "per_deployment", "text"),
    # JavaScript and TypeScript (Node's `os` and `process`)
    "os.userInfo": ("username", "per_deployment", "text"), "os.hostname": ("hostname", "per_deployment", "text"),
    "os.homedir": ("home", "per_deployment", "text"), "process.cwd": ("cwd", "per_deployment", "text"),
})


def clock_call(callee: str) -> tuple[str, str, str] | None:
    """The entry of the call `callee` (`datetime.datetime.now`, `uuid4`), or None."""
    return CLOCK_CALLS.get(".".join(callee.split(".")[-2:])) or CLOCK_CALLS.get(callee.split(".")[-1] + "()")


def prefer(found: tuple[str, str, str] | None, other: tuple[str, str, str] | None) -> tuple[str, str, str] | None:
    """Of two calls in one expression, the one that changes more often: a clock beside the
    working folder makes the value a clock's."""
    if found is None or other is not None and found[1] == "per_deployment" and other[1] != "per_deployment":
        return other
    return found


def clock_variable(name: str, frequency: str, generate: str, strftime: str | None = None) -> Variable:
    """A value the code computes from the clock, a UUID or a random source."""
    from prefixlint.load.sample_values import GENERATED, MOMENTS

    if strftime:
        samples = tuple(moment.strftime(strftime) for moment in MOMENTS)
    else:
        samples = GENERATED.get(generate, GENERATED["text"])
    if frequency == "per_deployment":
        return Variable(name, "stable", samples[:1])
    return Variable(name, frequency, samples)


def filled_by(variable: Variable, call: str, line: int, module_level: bool | str) -> Variable:
    """The evidence of a value the code computes (`call` at `line`): an expression evaluated at
    module level runs once per process (at import), the same on every request it serves; so
    does one in a function whose result is cached for the process (`module_level`: its name)."""
    call = re.sub(r"(?:![rsa])?(?::[^()\[\]]*)?$", "", " ".join(call.split()))  # an f-string's `:%Y-%m-%d`
    call = call if len(call) <= 60 else call[:57] + "..."
    if module_level and variable.kind not in (None, "stable"):
        where = f"in {module_level}(), whose result is cached" if isinstance(module_level, str) else "at import"
        return Variable(variable.name, "stable", variable.samples[:1], line, f"filled by {call} once per process, {where}")
    return Variable(variable.name, variable.kind, variable.samples, line, f"filled by {call}")
