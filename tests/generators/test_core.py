"""Laws of the choice sequence: replay, JSON round trip, EI locality, labels, mapping."""

from __future__ import annotations

import json
import math
import pickle
import string

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.constraints import (
    BooleanConstraints,
    BytesConstraints,
    ChoiceKind,
    FloatConstraints,
    IntegerConstraints,
    StringConstraints,
)
from lambdafuzz.generators.core import (
    FRESH,
    MINIMAL,
    Choices,
    ChoiceSequence,
    Overrun,
    ReplayMode,
    UnsatisfiedAssumption,
    generator,
)
from lambdafuzz.generators.dates import dates, datetimes
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.file_attributes import FILE_ATTRIBUTES_LABEL, file_attributes


def generate(seed: int, prefix=(), mode=ReplayMode.LINEAR):
    choices = Choices(prefix, seed=seed, mode=mode)
    return file_attributes(choices), choices


@pytest.mark.parametrize("mode", list(ReplayMode))
@pytest.mark.parametrize("seed", range(20))
def test_same_sequence_same_value_in_both_modes(seed, mode):
    value, choices = generate(seed)
    recording = choices.recording()
    again, replay = generate(seed + 1000, recording.prefix(mode), mode)
    assert again == value, f"seed={seed}"
    assert replay.recording() == recording
    assert replay.misaligned_at is None


@pytest.mark.parametrize("seed", range(20))
def test_json_round_trip_is_exact(seed):
    _, choices = generate(seed)
    recording = choices.recording()
    assert ChoiceSequence.loads(recording.dumps()) == recording


def test_json_round_trip_of_every_kind():
    choices = Choices(seed=3)
    choices.draw_float(-1e300, 1e300)
    choices.draw_float(0.0, 1.0)
    choices.draw_bytes(0, 9)
    choices.draw_boolean()
    choices.draw_string('ab"\\/é', 0, 9)
    choices.draw_integer(-(2**70), 2**70)
    recording = choices.recording()
    assert ChoiceSequence.loads(recording.dumps()) == recording


def _indices_under(recording: ChoiceSequence, site: str) -> list[int]:
    return [i for i, c in enumerate(recording.choices) if any(s == site for s, _ in c.ei)]


@pytest.mark.parametrize("seed", range(10))
def test_ei_mode_overwriting_modified_date_leaves_the_rest(seed):
    value, choices = generate(seed)
    recording = choices.recording()
    prefix = recording.by_ei()
    for i in _indices_under(recording, "modified"):
        prefix[recording.choices[i].ei] = FRESH
    mutated, _ = generate(seed + 1, prefix, ReplayMode.EXECUTION_INDEXED)
    assert mutated.name == value.name
    assert mutated.size == value.size
    assert mutated.created == value.created


def test_ei_mode_keeps_dates_when_name_changes_length_but_linear_mode_shifts():
    # A name drawn as one string never shifts anything, so lengthen the *number of draws*
    # in front of the dates: insert an extra draw at the start (a length-changing mutation).
    value, choices = generate(7)
    recording = choices.recording()
    linear = [999_999, *recording.values()]  # one inserted value shifts every later draw
    shifted, replay = generate(8, linear, ReplayMode.LINEAR)
    assert replay.misaligned_at is not None
    assert (shifted.created, shifted.modified) != (value.created, value.modified)

    # In EI mode the same structural change (a draw under a new call site) is invisible.
    prefix = recording.by_ei()
    prefix[(("file_attributes", 0), ("extra", 0))] = 999_999
    kept, _ = generate(8, prefix, ReplayMode.EXECUTION_INDEXED)
    assert kept == value


def test_every_date_draw_carries_date_and_parent_labels():
    choices = Choices(seed=11)
    file_attributes(choices)
    date_draws = [c for c in choices.choices if labels.DATE in c.labels]
    assert len(date_draws) == 2 * 4  # year offset, future flag, month, day for two dates
    for c in date_draws:
        assert c.labels[:3] == (FILE_ATTRIBUTES_LABEL, labels.DATETIME, labels.DATE)
    name_draw = choices.choices[0]
    assert name_draw.labels == (FILE_ATTRIBUTES_LABEL,)


@given(
    st.integers(0, 2**32),
    st.lists(
        st.one_of(st.integers(), st.floats(), st.binary(), st.text(), st.booleans()), max_size=40
    ),
)
@settings(max_examples=200, deadline=None)
@example(0, [10**30, -5, float("nan"), b"", "x" * 100])
def test_misaligned_replay_never_raises_and_stays_in_bounds(seed, junk):
    choices = Choices(junk, seed=seed)
    value = file_attributes(choices)
    assert 1 <= len(value.name.split(".")[0]) <= 24
    assert value.modified >= value.created
    for c in choices.choices:
        assert c.kind is c.constraints.kind
        if c.kind == "int":
            assert c.constraints.permits(c.value)


def test_out_of_bounds_value_maps_deterministically():
    a = Choices([57], seed=1)
    b = Choices([57], seed=2)
    assert a.draw_integer(0, 9) == b.draw_integer(0, 9) == 7
    assert a.misaligned_at == 0


def test_minimal_marker_gives_smallest_values():
    choices = Choices([MINIMAL, MINIMAL, MINIMAL, MINIMAL], seed=0)
    assert choices.draw_integer(5, 9) == 5
    assert choices.draw_bytes(2, 5) == b"\0\0"
    assert choices.draw_string("xyz", 1, 3) == "x"
    assert choices.draw_boolean() is False


def test_minimal_marker_is_the_constraints_simplest_value():
    choices = Choices([MINIMAL] * 9, seed=0)
    assert choices.draw_integer(-100, 100) == 0
    assert choices.draw_integer(-10, -3) == -3  # the bound nearest 0, not the lower bound
    assert choices.draw_integer(5, 9) == 5
    assert choices.draw_float(-2.0, -1.0) == -1.0
    assert choices.draw_float(1.5, 2.0) == 1.5
    assert choices.draw_float(-1.0, 1.0) == 0.0
    assert choices.draw_geometric(3.0, min_value=2) == 2
    assert choices.draw_string("xyz", 0, 3) == ""
    assert choices.draw_bytes(0, 3) == b""
    assert choices.misaligned_at is None
    for c in choices.choices:
        assert c.value == c.constraints.simplest()
        assert c.constraints.permits(c.value)


@pytest.mark.parametrize(
    ("constraints", "simplest", "permitted", "refused"),
    [
        (IntegerConstraints(-100, 100), 0, [-100, 0, 100], [101, -101, 1.0, True, "1"]),
        (IntegerConstraints(5, 50), 5, [5, 50], [4, 51, 5.0]),
        (IntegerConstraints(-50, -5), -5, [-50, -5], [0, -4]),
        (FloatConstraints(-1.0, 1.0), 0.0, [-1.0, 0.5, 1.0], [1.5, math.nan, 0, "0.5"]),
        (FloatConstraints(2.0, 3.0), 2.0, [2.0, 3.0], [1.0, math.inf]),
        (FloatConstraints(-3.0, -2.0), -2.0, [-3.0], [0.0]),
        (BooleanConstraints(0.5), False, [True, False], [0, 1, "True"]),
        (
            BytesConstraints(2, 4),
            b"\0\0",
            [b"ab", b"abcd"],
            [b"a", b"abcde", "ab", bytearray(b"ab")],
        ),
        (StringConstraints("xyz", 1, 3), "x", ["x", "zyx"], ["", "xxxx", "a", b"x"]),
    ],
)
def test_constraints_records_know_simplest_and_permitted_values(
    constraints, simplest, permitted, refused
):
    assert constraints.simplest() == simplest
    assert type(constraints.simplest()) is type(simplest)
    assert constraints.permits(simplest)
    for value in permitted:
        assert constraints.permits(value), value
    for value in refused:
        assert not constraints.permits(value), value
        assert constraints.permits(constraints.fit(value)), value


@given(
    st.one_of(
        st.integers(), st.floats(), st.binary(), st.text(), st.booleans(), st.none(), st.tuples()
    )
)
@settings(max_examples=300, deadline=None)
def test_fit_maps_any_value_to_a_permitted_one_deterministically(raw):
    for constraints in (
        IntegerConstraints(-7, 300),
        IntegerConstraints(3, 3),
        FloatConstraints(-2.5, 10.0),
        BooleanConstraints(0.1),
        BytesConstraints(1, 5),
        StringConstraints("ab\u00e9", 2, 4),
    ):
        fitted = constraints.fit(raw)
        assert constraints.permits(fitted), (constraints, raw, fitted)
        assert constraints.fit(raw) == fitted


def test_equal_draw_arguments_share_one_constraints_record():
    choices = Choices(seed=0)
    choices.draw_integer(0, 9)
    choices.draw_integer(0, 9)
    choices.draw_float(0, 1)  # int bounds are normalised to floats when the record is built
    choices.draw_float(0.0, 1.0)
    a, b, f, g = choices.choices
    assert a.constraints is b.constraints
    assert f.constraints is g.constraints == FloatConstraints(0.0, 1.0)
    assert type(f.constraints.min_value) is float


def test_choices_pickle_with_their_constraints_records():
    _, choices = generate(4)
    recording = choices.recording()
    restored = pickle.loads(pickle.dumps(recording))
    assert restored == recording
    for c in recording.choices:
        cls, args = c.constraints.__reduce__()  # positional: no __setstate__ round trip
        assert cls(*args) == c.constraints


def test_a_pickled_recording_is_unpacked_only_when_read():
    _, choices = generate(5)
    recording = choices.recording()
    restored = pickle.loads(pickle.dumps(recording))
    assert restored._choices is None  # still the packed blob the worker sent
    assert restored.choices == recording.choices  # every field of every draw, in order
    assert [type(c.value) for c in restored.choices] == [type(c.value) for c in recording.choices]
    assert pickle.loads(pickle.dumps(restored)) == recording  # re-pickled before or after
    assert pickle.loads(pickle.dumps(ChoiceSequence(()))).choices == ()


def test_a_recording_pickled_straight_from_its_draws_equals_one_read_first():
    """`Choices.recording` keeps the draws as plain rows; packed unread or read first, the
    same sequence arrives."""
    _, choices = generate(6)
    unread = pickle.loads(pickle.dumps(choices.recording()))
    read = choices.recording()
    assert read.choices == tuple(choices.choices)  # made into `Choice`s on reading
    assert unread == pickle.loads(pickle.dumps(read)) == read
    assert len(read) == choices.count > 0
    empty = Choices(seed=0).recording()
    assert pickle.loads(pickle.dumps(empty)).choices == () == empty.choices


def test_a_forged_recording_blob_reads_as_an_empty_recording():
    for blob in (b"not a pickle", pickle.dumps((1, 2)), pickle.dumps("text")):
        assert ChoiceSequence.packed(blob).choices == ()


#: A recording as `ChoiceSequence.dumps` wrote it before constraints were records: each
#: kind's constraints as a positional list (float bounds as hex).  The string is a
#: dictionary constant outside its alphabet, which replays verbatim.
OLD_FORMAT_JSON = """[
{"kind": "int", "value": -2, "constraints": [-5, 5], "ei": "thing#0/n#0", "labels": ["thing"]},
{"kind": "float", "value": "-0x1.a0e34021c89e0p-3",
 "constraints": ["-0x1.8000000000000p+0", "0x1.0000000000000p+1"], "ei": "thing#0/x#0",
 "labels": ["thing"]},
{"kind": "bool", "value": false, "constraints": [0.25], "ei": "thing#0/b#0", "labels": ["thing"]},
{"kind": "bytes", "value": "6eb4", "constraints": [1, 4], "ei": "thing#0/raw#0",
 "labels": ["thing"]},
{"kind": "str", "value": "Daily_Survey", "constraints": ["abc", 2, 6], "ei": "thing#0/s#0",
 "labels": ["thing"]},
{"kind": "int", "value": 24, "constraints": [0, 1000], "ei": "thing#0/size#0",
 "labels": ["thing"]}
]"""


@generator("thing")
def _every_kind(choices):
    return (
        choices.draw_integer(-5, 5, site="n"),
        choices.draw_float(-1.5, 2.0, site="x"),
        choices.draw_boolean(0.25, site="b"),
        choices.draw_bytes(1, 4, site="raw"),
        choices.draw_string("abc", 2, 6, site="s"),
        choices.draw_geometric(3.0, site="size"),
    )


def test_old_format_json_with_positional_constraints_still_loads():
    recording = ChoiceSequence.loads(OLD_FORMAT_JSON)
    assert [c.constraints for c in recording.choices] == [
        IntegerConstraints(-5, 5),
        FloatConstraints(-1.5, 2.0),
        BooleanConstraints(0.25),
        BytesConstraints(1, 4),
        StringConstraints("abc", 2, 6),
        IntegerConstraints(0, 1000),
    ]
    assert [c.kind for c in recording.choices] == [
        ChoiceKind.INTEGER,
        ChoiceKind.FLOAT,
        ChoiceKind.BOOLEAN,
        ChoiceKind.BYTES,
        ChoiceKind.STRING,
        ChoiceKind.INTEGER,
    ]
    assert recording.values() == [
        -2,
        float.fromhex("-0x1.a0e34021c89e0p-3"),
        False,
        b"\x6e\xb4",
        "Daily_Survey",
        24,
    ]
    assert recording.choices[4].ei == (("thing", 0), ("s", 0))
    assert recording.choices[4].labels == ("thing",)
    for mode in ReplayMode:
        replay = Choices(
            recording.prefix(mode),
            seed=1,
            mode=mode,
            policy=DrawPolicy(dictionary=["Daily_Survey"]),
        )
        assert _every_kind(replay, site="thing") == tuple(recording.values())
        assert replay.misaligned_at is None
        assert replay.recording() == recording
    # written back in the named form, which reads back to the same recording
    written = json.loads(recording.dumps())
    assert written[0]["constraints"] == {"min_value": -5, "max_value": 5}
    assert written[1]["constraints"] == {
        "min_value": "-0x1.8000000000000p+0",
        "max_value": "0x1.0000000000000p+1",
    }
    assert written[4]["constraints"] == {"alphabet": "abc", "min_size": 2, "max_size": 6}
    assert ChoiceSequence.loads(recording.dumps()) == recording


def test_fresh_values_depend_only_on_seed():
    assert generate(42)[0] == generate(42)[0]
    assert generate(42)[0] != generate(43)[0]


def test_max_choices_overrun_is_an_invalid_input():
    choices = Choices(seed=0, max_choices=5)
    with pytest.raises(Overrun):
        for _ in range(6):
            choices.draw_boolean()
    assert issubclass(Overrun, UnsatisfiedAssumption)


def test_unread_tail_is_dropped():
    choices = Choices([1, 2, 3, 4, 5], seed=0)
    choices.draw_integer(0, 10)
    assert choices.recording().values() == [1]


def test_assume_marks_invalid():
    choices = Choices(seed=0)
    choices.assume(True)
    with pytest.raises(UnsatisfiedAssumption, match="too big"):
        choices.assume(False, "too big")


def test_dictionary_strings_appear_at_configured_rate():
    words = ("Daily_Survey", "2008")
    hits = 0
    n = 4000
    for seed in range(n):
        c = Choices(seed=seed, policy=DrawPolicy(dictionary=words, dictionary_p=0.25))
        hits += c.draw_string(string.ascii_lowercase, 1, 8) in words
    # binomial(4000, 0.25): sd ~ 27; allow 5 sd
    assert abs(hits - n * 0.25) < 5 * 27, hits


def test_dictionary_string_replays_verbatim_outside_alphabet():
    c = Choices(seed=5, policy=DrawPolicy(dictionary=("Daily_Survey",), dictionary_p=1.0))
    assert c.draw_string(string.digits, 1, 3) == "Daily_Survey"
    replay = Choices(
        c.recording().values(), seed=0, policy=DrawPolicy(dictionary=("Daily_Survey",))
    )
    assert replay.draw_string(string.digits, 1, 3) == "Daily_Survey"
    assert replay.misaligned_at is None


def test_weighted_and_geometric_draws():
    counts = {"a": 0, "b": 0}
    total = 0
    for seed in range(3000):
        c = Choices(seed=seed)
        counts[c.draw_weighted(["a", "b"], [1, 3])] += 1
        total += c.draw_geometric(5.0)
    assert 0.70 < counts["b"] / 3000 < 0.80
    assert 4.4 < total / 3000 < 5.6


def test_bad_arguments_raise_invalid_argument():
    c = Choices(seed=0)
    with pytest.raises(InvalidArgument):
        c.draw_integer(5, 1)
    with pytest.raises(InvalidArgument):
        c.draw_choice([])
    with pytest.raises(InvalidArgument):
        Choices(seed=0, policy=DrawPolicy(dictionary=("x",), dictionary_p=2.0))


def test_generator_decorator_labels_and_sites():
    @generator("thing")
    def thing(choices):
        return datetimes(choices), dates(choices)

    c = Choices(seed=1)
    thing(c, site="first")
    thing(c, site="first")
    sites = {c.ei[0] for c in c.choices}
    assert sites == {("first", 0), ("first", 1)}
    assert all(ch.labels[0] == "thing" for ch in c.choices)


def test_sites_with_slashes_survive_the_saved_form():
    """A secret's or a parameter's name (`prod/db`, `/app/batch-size`) is part of its draws'
    call sites: the saved execution index escapes `/` (and `%`) inside a site, loads back
    to the same sites, and passes the saved-file check."""
    from lambdafuzz.fuzzer.corpus import _valid_ei
    from lambdafuzz.generators.core import ChoiceSequence

    choices = Choices(seed=1)
    for site in ("secret:prod/db", "parameter:/app/batch-size", "odd%2Fsite", "100%"):
        with choices.scope("test.site", site=site):
            choices.draw_integer(0, 9, site="n")
    recording = choices.recording()
    saved = json.loads(recording.dumps())
    assert all(_valid_ei(c["ei"]) for c in saved)
    assert saved[0]["ei"].startswith("secret:prod%2Fdb#0/")
    again = ChoiceSequence.loads(recording.dumps())
    assert [c.ei for c in again.choices] == [c.ei for c in recording.choices]
    assert again.choices[2].ei[0][0] == "odd%2Fsite" and again.choices[3].ei[0][0] == "100%"
