"""The settings one file is checked with: its configuration, with the flags given winning.

`SettingsBuilder` is the one place that turns configuration files and flags into `Settings`:
`prefixlint check` (and so the pre-commit hook, which runs it) and `prefixlint report` both
build every file's settings with it, so the same file under the same configuration is
measured the same way by both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Callable, Mapping

from prefixlint.config import DEFAULT_MIN_STABLE_TOKENS, DEFAULT_MIN_TAIL_TOKENS, Config, load_config
from prefixlint.engines.profiles import DEFAULT_ENGINE, get_profile
from prefixlint.errors import PrefixlintError
from prefixlint.render.history import DEFAULT_TURNS
from prefixlint.tokenize import DEFAULT_TOKENIZER, load_tokenizer


@dataclass(frozen=True)
class Settings:
    """What `check` needs to know for one file (the merged configuration and flags)."""

    tokenizer: str = DEFAULT_TOKENIZER
    engine: str = DEFAULT_ENGINE
    block_size: int | None = None
    #: Whether a rule code is reported (`Config.is_enabled`: select/ignore, each code decided once
    #: for the file); None: every rule.
    enabled: Callable[[str], bool] | None = None
    min_stable_tokens: int = DEFAULT_MIN_STABLE_TOKENS
    #: `min-tail-tokens`: the run of stable tokens after a value no conversation follows that makes a finding.
    min_tail_tokens: int = DEFAULT_MIN_TAIL_TOKENS
    extend_volatile: Any = None
    offline: bool = False
    #: `--chat-template` / `chat-template`: the file a chat file's messages are rendered with.
    chat_template: str | None = None
    #: `system-prompts`: whether the configuration lists a file as a system prompt; None: none listed.
    is_system_prompt: Callable[[str], bool] | None = None
    #: Whether the configuration's `prompts` (or `system-prompts`) names the file: a prompt
    #: whatever it looks like (a page in `docs/`).
    configured_prompt: bool = False
    #: `history-turns`: the turns of conversation history a system prompt is followed by.
    history_turns: int = DEFAULT_TURNS
    #: Keep the tokens behind the numbers (`FileResult.token_view`, for `check --format html`).
    token_view: bool = False


#: The flags that override a configuration key, as `Config.merge_cli` takes them.
FLAG_NAMES = ("tokenizer", "engine", "block_size", "select", "ignore", "chat_template", "extend_select",
              "cli_per_file_ignores")


@dataclass(frozen=True)
class SettingsBuilder:
    """path -> the Settings of that file: the configuration that applies to it (the nearest
    configuration file, `config_file` for every path, or none when `isolated`), then every
    flag that was given (not None)."""

    flags: Mapping[str, Any] = field(default_factory=dict)
    offline: bool = False
    config_file: Path | None = None
    isolated: bool = False
    token_view: bool = False

    def _confine(self, config: Config) -> None:
        """A tokenizer or chat template that the configuration file (not a flag) names by path
        must lie inside the repository: a pull request edits the configuration too."""
        from prefixlint.confine import confined

        for key, name in (("tokenizer", "tokenizer"), ("chat_template", "chat-template")):
            value = getattr(config, key)
            if self.flags.get(key) is None and value and key in config.given and config.source is not None:
                if os.path.exists(value):
                    try:
                        confined(str(config.source), value, f"{name} {value}")
                    except PrefixlintError as exc:  # at the key's line, as every configuration error
                        file, line = config.where(key)
                        raise PrefixlintError(f"{name}: {exc.message}", path=file or str(config.source), line=line,
                                              hint=exc.hint) from None

    def config(self, path: str | Path) -> Config:
        config = load_config(Path(path), config_file=self.config_file, isolated=self.isolated)
        return config.merge_cli(**self.flags)

    def validate_flags(self, start: str | Path, *, read_files: bool = True) -> None:
        """Check the flags once, up front: a bad --select is one usage error, not one per file.
        Without `read_files`, no configuration file is read (unless `config_file` names one): a
        broken configuration is then an error of the files it applies to."""
        isolated = self.isolated or (not read_files and self.config_file is None)
        load_config(Path(start), config_file=self.config_file, isolated=isolated).merge_cli(**self.flags)

    def __call__(self, path: str | Path) -> Settings:
        config = self.config(path)
        self._confine(config)  # before anything configured by path is opened
        engine, tokenizer = config.engine, config.tokenizer
        if engine and self.flags.get("engine") is None and "engine" in config.given:
            _at_config(config, "engine", lambda: get_profile(engine))
        if tokenizer and self.flags.get("tokenizer") is None and "tokenizer" in config.given:
            _at_config(config, "tokenizer", lambda: load_tokenizer(tokenizer, offline=self.offline))
        return Settings(
            tokenizer=config.tokenizer or DEFAULT_TOKENIZER, engine=config.engine or DEFAULT_ENGINE,
            block_size=config.block_size, enabled=lru_cache(maxsize=None)(partial(config.is_enabled, path=str(path))),
            min_stable_tokens=config.min_stable_tokens, extend_volatile=config.extend_volatile, offline=self.offline,
            chat_template=config.chat_template, token_view=self.token_view,
            is_system_prompt=config.is_system_prompt if config.system_prompts else None,
            history_turns=config.history_turns, min_tail_tokens=config.min_tail_tokens,
            configured_prompt=config.is_configured_prompt(path),
        )


def _at_config(config: Config, name: str, load: Callable[[], Any]) -> None:
    """An engine or tokenizer the configuration names that does not load is an error of the
    configuration file, at the key's line (not of each template it applies to)."""
    from prefixlint.errors import PrefixlintError

    try:
        load()
    except PrefixlintError as exc:
        file, line = config.where(name)
        exc.message = f"{name}: {exc.message}"
        exc.path, exc.line, exc.column = file, line, None
        raise
