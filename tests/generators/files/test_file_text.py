"""Plain text: terminated lines of words and dictionary constants."""

from __future__ import annotations

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files.text_files import text_documents
from lambdafuzz.generators.files.validation import rejection


def test_text_is_utf8_with_terminated_lines() -> None:
    crlf = 0
    for seed in range(200):
        data = text_documents(
            Choices(seed=seed, policy=DrawPolicy(dictionary=("a\nb", "\x00", "\ud800")))
        )
        text = data.decode("utf-8")
        assert not text or text.endswith("\n")
        crlf += "\r\n" in text
        assert rejection("txt", data) is None, f"seed {seed}"
    assert crlf > 0


def test_dictionary_constants_appear_on_one_line() -> None:
    text = "".join(
        text_documents(
            Choices(seed=s, policy=DrawPolicy(dictionary=("ERROR:", "a\nb"), dictionary_p=0.5))
        ).decode()
        for s in range(30)
    )
    assert "ERROR:" in text and "a b" in text  # a newline inside a constant does not split lines
    assert "a\nb" not in text


def test_lines_are_labelled() -> None:
    choices = Choices(seed=4)
    data = text_documents(choices)
    recording = choices.recording()
    line_frames = {c.ei[:2] for c in recording.choices if labels.TEXT_LINE in c.labels}
    lines = data.decode().splitlines()
    assert len(line_frames) == len(lines) > 1  # one frame per line, empty lines included
    assert recording.label_counts()[labels.TEXT_DOCUMENT] == len(recording)
