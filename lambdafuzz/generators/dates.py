"""Calendar dates and timestamps, drawn so that a mutation of the year stays a year.

Fields are separate draws (year, month, day, ...) under one labelled frame, so a
type-targeted mutation of `datetime.datetime` rewrites exactly these few choices.
The year is drawn as "around now" (a geometric offset) by default, which makes a specific
past year such as 2008 rare for uniform mutation: the situation SpotOn was built for.
"""

from __future__ import annotations

import calendar
import datetime as dt

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices, generator

#: The reference year "now" for generated dates; fixed so inputs do not depend on the clock.
REFERENCE_YEAR = 2026
#: Probability that a date takes its year from the numbers the code compares with
#: (`Choices.numbers`, the `frontier` strategy's harvest), when one is a year in range:
#: `if photo_year == 2008` is otherwise met once in ~5,000 dates around now.
CODE_YEAR_P = 0.1


@generator(labels.DATE)
def dates(
    choices: Choices,
    *,
    min_year: int = 1970,
    max_year: int = 2099,
    around: int | None = REFERENCE_YEAR,
    mean_offset: float = 3.0,
) -> dt.date:
    """A valid calendar date.  With `around`, the year is `around - geometric(mean_offset)`
    (sometimes in the future), else uniform in [min_year, max_year]."""
    code_years = [n for n in choices.numbers if min_year <= n <= max_year and n == int(n)]
    if code_years and choices.draw_boolean(CODE_YEAR_P, site="code-year?"):
        year = int(choices.draw_choice(code_years, site="code-year"))
    elif around is None:
        year = choices.draw_integer(min_year, max_year, site="year")
    else:
        offset = choices.draw_geometric(mean_offset, max_value=max_year - min_year, site="year")
        future = choices.draw_boolean(0.1, site="future")
        year = around + offset if future else around - offset
        year = min(max(year, min_year), max_year)
    month = choices.draw_integer(1, 12, site="month")
    last = calendar.monthrange(year, month)[1]
    day = choices.draw_integer(1, last, site="day")
    return dt.date(year, month, day)


@generator(labels.DATETIME)
def datetimes(
    choices: Choices,
    *,
    min_year: int = 1970,
    max_year: int = 2099,
    around: int | None = REFERENCE_YEAR,
) -> dt.datetime:
    """A naive datetime with second precision (what EXIF and most file formats store)."""
    day = dates(choices, min_year=min_year, max_year=max_year, around=around)
    hour = choices.draw_integer(0, 23, site="hour")
    minute = choices.draw_integer(0, 59, site="minute")
    second = choices.draw_integer(0, 59, site="second")
    return dt.datetime(day.year, day.month, day.day, hour, minute, second)
