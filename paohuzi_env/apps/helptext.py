"""Plain text for a command's ``--help`` from a module docstring written in reST.

The commands take their ``--help`` description from their module's docstring, which the API
reference renders with Sphinx; a terminal should not show the markup. :func:`plain_text` drops
it: ``literal`` becomes literal, :mod:`a.b` (and the other roles) becomes a.b, with a leading
``~`` the last component only, and ``title <target>`` the title.
"""

from __future__ import annotations

import re

__all__ = ["plain_text"]

# A role: :mod:`x`, :class:`x`, :py:func:`x` ... (the role name may hold colons).
_ROLE = re.compile(r":[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*:`([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)


def _role_text(m: re.Match[str]) -> str:
    text = m.group(1)
    titled = re.fullmatch(r"(.*?)\s*<[^<>]+>", text, re.DOTALL)
    if titled and titled.group(1):
        return titled.group(1)
    if text.startswith("~"):
        return text[1:].rsplit(".", 1)[-1]
    return text.lstrip("!")


def plain_text(doc: str | None) -> str:
    """``doc`` without its reST markup (roles and double-backquoted literals), for ``--help``.

    Args:
        doc: a docstring (``None`` for a module run with ``python -OO``, which strips them).

    Returns:
        The same text with :mod:`a.b` as a.b, ``x`` as x; the empty string for ``None``.
    """
    if not doc:
        return ""
    return _LITERAL.sub(r"\1", _ROLE.sub(_role_text, doc))
