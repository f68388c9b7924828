"""The zoo's folder and cards (:mod:`paohuzi_env.agents.zoo`), read as data: which entries
exist, their names and each preset's default entry. Kept apart from :mod:`.zoo` so that
:func:`paohuzi_env.agents.network.packaged_guide` finds the default search's guide without
importing the agents that :mod:`.zoo` builds (no import cycle). Reading a card parses JSON only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..game.rules import Rules, as_rules
from .records import read_json_record

ZOO_DIR = Path(__file__).resolve().parent.parent / "zoo"
"""Where the entries live: ``ZOO_DIR/PRESET/ENTRY/{network.safetensors,network.json,card.json}``."""
CARD_FORMAT = "paohuzi-zoo-card/1"
"""The ``format`` of a card."""
PREFIX = "zoo"
"""The agent spec prefix: ``zoo:NAME``."""
WEIGHTS = "network.safetensors"
CARD = "card.json"


@dataclass(frozen=True)
class Entry:
    """One zoo entry: its name (``PRESET/ENTRY``), preset, folder and card."""

    name: str
    preset: str
    default: bool
    folder: Path
    card: dict[str, Any]

    @property
    def weights(self) -> Path:
        """The ``network.safetensors`` of the entry."""
        return self.folder / WEIGHTS

    @property
    def spec(self) -> str:
        """The shortest agent spec that names this entry."""
        return f"{PREFIX}:{self.preset if self.default else self.name}"


def _read_card(path: Path) -> dict[str, Any]:
    return read_json_record(path, "zoo card", "a zoo card", CARD_FORMAT)


def _scan(root: Path) -> tuple[Entry, ...]:
    """Every entry under ``root``, sorted by name; checked: a card's ``name`` and ``preset``
    are its folder's, and each preset has at most one default entry."""
    found: list[Entry] = []
    if not root.is_dir():
        return ()
    for card_path in sorted(root.glob(f"*/*/{CARD}")):
        folder = card_path.parent
        preset, entry = folder.parent.name, folder.name
        data = _read_card(card_path)
        name = f"{preset}/{entry}"
        if data.get("name") != name or data.get("preset") != preset:
            raise ValueError(f"zoo card {card_path} names {data.get('name')!r} (preset "
                             f"{data.get('preset')!r}); its folder makes it {name!r}")
        default = data.get("default", False)
        if not isinstance(default, bool):
            raise ValueError(f"zoo card {card_path}: default must be true or false")
        found.append(Entry(name, preset, default, folder, data))
    defaults: dict[str, str] = {}
    for e in found:
        if e.default:
            if e.preset in defaults:
                raise ValueError(f"zoo: presets have one default entry each; {e.preset!r} has "
                                 f"{defaults[e.preset]!r} and {e.name!r}")
            defaults[e.preset] = e.name
    return tuple(found)


_entries: tuple[Entry, ...] | None = None


def _all() -> tuple[Entry, ...]:
    global _entries
    if _entries is None:
        _entries = _scan(ZOO_DIR)
    return _entries


def names() -> tuple[str, ...]:
    """Every name the zoo knows: each preset with a default entry, then each ``PRESET/ENTRY``."""
    entries = _all()
    return (*sorted(e.preset for e in entries if e.default), *(e.name for e in entries))


def entry(name: str) -> Entry:
    """The entry ``name`` names (``PRESET`` for the preset's default entry, or ``PRESET/ENTRY``).

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    if not isinstance(name, str):
        raise TypeError(f"a zoo name is a string, got {type(name).__name__}")
    for e in _all():
        if name == e.name or (e.default and name == e.preset):
            return e
    known = ", ".join(names()) or "none (the zoo folder is empty)"
    raise ValueError(f"unknown zoo name {name!r}; known: {known}")


def default_entry(rules: str | Rules) -> Entry | None:
    """The default entry of ``rules``' preset (None where it has none). Only a preset's own
    rules have one: a rule set with overrides gets None, since a network plays only the rules it
    was trained on."""
    rules = as_rules(rules)
    try:
        preset = as_rules(rules.name)
    except ValueError:
        return None
    if preset != rules:
        return None
    return next((e for e in _all() if e.default and e.preset == rules.name), None)
