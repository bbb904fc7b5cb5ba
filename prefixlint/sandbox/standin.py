"""The stand-in value of an undeclared template input (`Sample`), kept with the sandbox that
lets ordinary template code use it (`prefixlint.sandbox`) and refuses the rest.

`prefixlint.render.values` makes the generated values of a render Samples."""

from __future__ import annotations


class Sample(str):
    """A generated value that also stands in for a structure the template expects.

    Files without samples (plain templates) may loop over a variable or read its fields
    (`{% for item in chat_history %}{{ item.inputs.question }}`). A Sample is its text, and
    additionally: iterating it gives two items, and a field or key it lacks gives the same
    text again, so such templates render with realistic text in every place. `title`,
    `count` and `index` read as fields, not as the str methods of the same names.

    Methods a template calls on an input are the safe ones of a mapping (`items`, `keys`,
    `values`, `get`) besides str's own (`split`, `strip`, `upper` ...); the sandbox lets any
    other method called on a Sample return its text (`prefixlint.render.sandbox`). Names that
    reach Python internals (`_`-prefixed) or mark a callable unsafe are never stood in for.
    """

    FIELDS = frozenset({"title", "count", "index"})
    #: attributes the sandbox (and other engines) probe: their absence means "safe", so no stand-in
    PROBES = frozenset({"unsafe_callable", "alters_data", "mro", "func_globals", "func_code", "gi_frame",
                        "gi_code", "cr_frame", "cr_code", "ag_code", "ag_frame", "tb_frame", "f_globals"})

    def __getattribute__(self, name: str):
        if name in Sample.FIELDS:
            return Sample(str(self))
        return super().__getattribute__(name)

    def __getattr__(self, name: str):
        if name.startswith("_") or name in Sample.PROBES:
            raise AttributeError(name)
        return Sample(str(self))

    def items(self):
        return [(Sample(str(self)), Sample(str(self))), (Sample(str(self)), Sample(str(self)))]

    def keys(self):
        return list(self)

    def values(self):
        return list(self)

    def get(self, key=None, default=None):
        return Sample(str(self))

    def __getitem__(self, key):
        if isinstance(key, str):
            return Sample(str(self))
        return str.__getitem__(self, key)

    def __iter__(self):
        return iter((Sample(str(self)), Sample(str(self))))
