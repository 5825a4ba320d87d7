"""Private helpers that every layer may use.

Argument checks, distribution tails, text, atomic writes, typing aliases and lazy submodule
access.

Owns: :mod:`.checks` (every ``ValueError`` that names an argument), :mod:`.dist` and
:mod:`.tails` (survival functions and log tails, scipy imported on first use), :mod:`.text`
(direction controls), :mod:`.atomic` (private outputs written whole or not at all),
:mod:`.jsonable` (numpy scalars as Python, values made JSON-safe), :mod:`.bounded` (reading
that stops at a limit on the bytes produced: archive members, gzip streams, JSON's cost),
:mod:`.aliases` (typing aliases) and :mod:`.lazy`.
May import: the standard library, numpy and pandas (and zstandard, for zstd members); nothing
else of the package.
"""

__all__: list[str] = []
