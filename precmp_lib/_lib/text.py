"""User text that does not show as itself: direction controls, odd names, lost bytes.

>>> 0x202E in DIRECTION_CONTROLS, ord("a") in DIRECTION_CONTROLS
(True, False)
"""

# Unicode's bidirectional controls: the embeddings and overrides (U+202A to U+202E), the
# isolates (U+2066 to U+2069) and the marks LRM, RLM and ALM. Inside a name they reorder the
# text after it, so that "\u202eA_ledom" reads as "model_A". The pages show each as U+FFFD,
# the command's messages as its escape.
DIRECTION_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)


def printable_name(name: str) -> str:
    r"""Return a name the system gave (a file name, an argument) as text any page can hold.

    Bytes that are not UTF-8 reach Python as lone surrogates (``caf\xe9.csv`` in Latin-1),
    which no page, JSON or terminal can write: they are shown as their bytes, ``\xe9``. Any
    other lone surrogate is shown as its escape.

    >>> import os
    >>> printable_name(os.fsdecode(b"caf\xe9.csv")), printable_name("café.csv")
    ('caf\\xe9.csv', 'café.csv')
    >>> printable_name("m\ud800")
    'm\\ud800'
    """
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that no byte made
        raw = name.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


# What a reader puts where bytes were not UTF-8; Spark does so without a word.
REPLACEMENT = "\ufffd"


def lost_bytes(column: str, noun: str, value: str) -> str:
    """Say that a text of ``column`` holds U+FFFD, so it cannot be told from other broken texts.

    >>> lost_bytes("y", "label", "a\ufffd")
    "column 'y' has the label 'a\ufffd' holding U+FFFD, the character put where bytes were not UTF-8 text; labels that lost their bytes cannot be told apart: save the file as UTF-8"
    """
    shown = value if len(value) <= 40 else value[:40] + "..."
    return (f"column {column!r} has the {noun} {shown!r} holding U+FFFD, the character put "
            f"where bytes were not UTF-8 text; {noun}s that lost their bytes cannot be told "
            "apart: save the file as UTF-8")


# The most characters of one piece of user text (a name, an id, a value) a message echoes.
ECHO = 80


def shorten(text: str, most: int = ECHO) -> str:
    """Return ``text`` cut to at most ``most`` characters, ending in "..." when cut.

    A message names what it is about, but a name or id of a megabyte would bury the line.

    >>> shorten("model_a")
    'model_a'
    >>> shorten("x" * 1_000_000)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'
    >>> len(shorten("x" * 1_000_000))
    80
    """
    return text if len(text) <= most else text[:most - 3] + "..."


def clip_for_message(text: str, limit: int = 80) -> str:
    """Return a user's text (a name, an id) cut to ``limit`` characters for a one-line message.

    A name read from a file may be a megabyte long; a message shows its start and says how
    long it is. Lone surrogates are shown as their escapes (see :func:`printable_name`).

    >>> clip_for_message("model_a")
    'model_a'
    >>> clip_for_message("m" * 1_000_000, limit=20)
    'mmmmmmmmmmmmmmmmmmmm... (1,000,000 characters)'
    """
    shown = printable_name(text[:limit])
    return shown if len(text) <= limit else f"{shown}... ({len(text):,} characters)"
