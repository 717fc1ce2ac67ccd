"""`Choices.numbers`: the code's numbers in fresh integer/float draws and date years, at
their documented rates, and nothing changed when there are none."""

from __future__ import annotations

from lambdafuzz.generators.core import NUMBERS_P, Choices
from lambdafuzz.generators.dates import CODE_YEAR_P, dates
from lambdafuzz.generators.draw_policy import DrawPolicy

DRAWS = 4000


def _ints(numbers: tuple[int | float, ...], seed: int = 5) -> list[int]:
    choices = Choices(seed=seed, policy=DrawPolicy(numbers=numbers))
    return [choices.draw_integer(0, 10_000) for _ in range(DRAWS)]


def test_integer_draws_take_fitting_numbers_at_the_documented_rate():
    drawn = _ints((2008, 25, -3, 10_001, 2.5))
    hits = sum(1 for v in drawn if v in (2008, 25))
    assert abs(hits / DRAWS - NUMBERS_P) < 0.02  # out-of-range and fractional never fit
    assert all(0 <= v <= 10_000 for v in drawn)


def test_float_draws_take_fitting_numbers():
    choices = Choices(seed=2, policy=DrawPolicy(numbers=(2.5, 7, 99.0)))
    drawn = [choices.draw_float(0.0, 10.0) for _ in range(DRAWS)]
    hits = sum(1 for v in drawn if v in (2.5, 7.0))
    assert abs(hits / DRAWS - NUMBERS_P) < 0.02
    assert 99.0 not in drawn


def test_without_numbers_draws_are_unchanged_and_choices_never_take_them():
    plain = Choices(seed=9)
    with_numbers = Choices(seed=9, policy=DrawPolicy(numbers=(1, 2)))
    assert [plain.draw_choice("abcdef") for _ in range(200)] == [
        with_numbers.draw_choice("abcdef") for _ in range(200)
    ]
    default = Choices(seed=5)
    assert _ints(()) == [default.draw_integer(0, 10_000) for _ in range(DRAWS)]


def test_a_recording_replays_with_its_numbers():
    choices = Choices(seed=4, policy=DrawPolicy(numbers=(2008,)))
    made = [dates(choices) for _ in range(50)]
    replay = Choices(choices.recording().values(), policy=DrawPolicy(numbers=(2008,)))
    assert [dates(replay) for _ in range(50)] == made
    assert replay.misaligned_at is None


def test_dates_take_a_code_year_at_the_documented_rate():
    years = [
        dates(Choices(seed=i, policy=DrawPolicy(numbers=(2008, 7, 1e9)))).year for i in range(DRAWS)
    ]
    assert abs(years.count(2008) / DRAWS - CODE_YEAR_P) < 0.02
    plain = [dates(Choices(seed=i)).year for i in range(DRAWS)]
    assert plain.count(2008) < 5


def test_infinite_and_nan_numbers_never_fit():
    """`1e309` in the code is a float infinity: it must not break or enter a draw."""
    odd = (float("inf"), float("-inf"), float("nan"))
    choices = Choices(seed=3, policy=DrawPolicy(numbers=odd))
    assert all(0 <= choices.draw_integer(0, 9) <= 9 for _ in range(500))
    assert all(0.0 <= choices.draw_float(0.0, 1.0) <= 1.0 for _ in range(500))
    assert all(
        dates(Choices(seed=i, policy=DrawPolicy(numbers=odd))).year <= 2099 for i in range(50)
    )
