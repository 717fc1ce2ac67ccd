"""Plain text files: lines of words, numbers and dictionary constants.

Every line ends with the chosen line terminator (POSIX: a text file is a sequence of
terminated lines), so a file that stops mid-line is recognisably truncated.

With edge values on, a file may be written in another encoding (`file_edges.ENCODINGS`).
"""

from __future__ import annotations

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.alphabets import clean_text, word
from lambdafuzz.generators.files.budget import fits

LINE_ENDINGS = ("\n", "\r\n")


@generator(labels.TEXT_LINE)
def text_lines(choices: Choices, *, mean_words: float = 6.0) -> str:
    """One line without its terminator; may be empty."""
    n = choices.draw_geometric(mean_words, max_value=60, site="words")
    parts = []
    for _ in range(n):
        if choices.draw_boolean(0.1, site="number?"):
            parts.append(str(choices.draw_geometric(100.0, max_value=10**9, site="number")))
        else:
            parts.append(clean_text(word(choices), newlines=False))
    return " ".join(parts)


@generator(labels.TEXT_DOCUMENT)
def text_documents(choices: Choices, *, mean_lines: float = 5.0, max_lines: int = 200) -> bytes:
    """A UTF-8 text file, sometimes with a byte-order mark or CRLF line endings."""
    if mean_lines <= 0 or max_lines < 0:
        raise InvalidArgument(f"text_documents: bad mean_lines={mean_lines!r} / max_lines")
    ending = choices.draw_choice(LINE_ENDINGS, site="newline")
    bom = choices.draw_boolean(0.03, site="bom?")
    n = choices.draw_geometric(mean_lines, max_value=max_lines, site="lines")
    lines = []
    for _ in range(n):
        if not fits(choices, 200):
            break
        lines.append(text_lines(choices) + ending)
    text = ("\ufeff" if bom and lines else "") + "".join(lines)
    edge = file_edges.draw_edge(choices, "text")
    return file_edges.encode_text(choices, text, edge) or text.encode("utf-8")
