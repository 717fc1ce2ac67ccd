"""Calendar dates and timestamps, drawn so that a mutation of the year stays a year.

Fields are separate draws (year, month, day, ...) under one labelled frame, so a
type-targeted mutation of `datetime.datetime` rewrites exactly these few choices.
The year is drawn as "around now" (a geometric offset) by default, which makes a specific
past year such as 2008 rare for uniform mutation: the situation SpotOn was built for.

With edge values on, fields of JSON documents named like a time (`deliveredAt`,
`created_at`) hold a moment written as producers write it (`date_texts`, `date_fields`):
in the code's own formats and their near misses, or in the usual ISO 8601 forms.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Any, Final

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


# --------------------------------------------------------------------------- written dates
#: With edge values on, the share of written dates taken from the code's own (its
#: `strptime`/`strftime` formats rendered, and their near misses: `analysis.constants`).
CODE_DATE_P: Final = 0.5
#: With edge values on, the share of time-named JSON fields (`date_fields`) that hold a
#: written date; the others keep the value they were drawn with (a number, a null, ...).
DATE_FIELD_P: Final = 0.5
#: How producers write a moment: ISO 8601 with and without `Z`, with milliseconds
#: (JavaScript's `toISOString`), with microseconds and an offset (Python's `isoformat`),
#: with a space, a date alone, epoch seconds as text.
WRITTEN_FORMS: Final = (
    "date",
    "seconds",
    "seconds-z",
    "millis-z",
    "micros-offset",
    "space",
    "epoch",
)
#: Field names that hold a date or a time: `deliveredAt`, `created_at`, `booked_on`,
#: `eventTime`, `timestamp`, `date`, `expires`.
TIME_NAME: Final = re.compile(
    r"(?i:(?<!up)date|time(?!out)|stamp|expir|deadline|^when$|^day$)"
    r"|_at$|_on$|_AT$|_ON$|[a-z0-9]At$|[a-z0-9]On$"
)
_TIME: Final = r"\d{2}:\d{2}(?::\d{2})?(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2}| ?UTC| ?GMT)?"
#: Dictionary constants that are written dates or times (`2026-06-15T08:30:45Z`,
#: `15/06/2026`, `08:30:45.120`): the harvest's renderings of the code's formats.
_WRITTEN: Final = re.compile(
    rf"(?:\d{{4}}([-/.])\d{{2}}\1\d{{2}}|\d{{2}}([-/.])\d{{2}}\2\d{{4}})(?:[T ]{_TIME})?|{_TIME}"
)
#: How deep `date_fields` looks into nested objects.
MAX_FIELD_DEPTH: Final = 4


def is_time_name(name: str) -> bool:
    """Whether a field named `name` holds a date or a time, by the usual names."""
    return bool(TIME_NAME.search(name))


def code_date_texts(choices: Choices) -> tuple[str, ...]:
    """The written dates among the dictionary's constants, in order."""
    dictionary = choices.dictionary
    cached = _CODE_DATES.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    found = tuple(c for c in dictionary if _WRITTEN.fullmatch(c))
    _CODE_DATES.clear()
    _CODE_DATES[id(dictionary)] = (dictionary, found)
    return found


#: The last dictionary's written dates: a campaign passes one dictionary tuple to every
#: input's `Choices`, so it is scanned once, not per field (950 constants: 362 us a scan,
#: 0.17 us cached; timeit, best of 3).  Keyed and checked by identity.
_CODE_DATES: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}


@generator(labels.DATETIME)
def date_texts(choices: Choices) -> str:
    """A moment written as a producer writes it: one of the code's written dates at
    `CODE_DATE_P` (when it has any), else one of `WRITTEN_FORMS`."""
    code = code_date_texts(choices)
    if code and choices.draw_boolean(CODE_DATE_P, site="code-date?"):
        return choices.draw_choice(code, site="code-date")
    moment = datetimes(choices)
    form = choices.draw_choice(WRITTEN_FORMS, site="form")
    if form == "date":
        return moment.date().isoformat()
    if form == "seconds":
        return moment.isoformat()
    if form == "seconds-z":
        return f"{moment.isoformat()}Z"
    if form == "space":
        return moment.isoformat(sep=" ")
    if form == "epoch":
        return str(int(moment.replace(tzinfo=dt.UTC).timestamp()))
    if form == "millis-z":
        millis = choices.draw_integer(0, 999, site="millis")
        return f"{moment.isoformat()}.{millis:03d}Z"
    micros = choices.draw_integer(0, 999_999, site="micros")
    return moment.replace(microsecond=micros, tzinfo=dt.UTC).isoformat()


def date_fields(choices: Choices, document: Any, depth: int = 0) -> Any:
    """`document` (parsed JSON) with its time-named fields (`is_time_name`) holding a
    written date (`date_texts`) at `DATE_FIELD_P`, nested objects included: a handler
    reading `detail["deliveredAt"]` meets the timestamps producers send (milliseconds
    where it parses seconds, the code's own formats and their near misses).  Draws
    nothing unless edge values are on."""
    if not choices.edge_values or depth > MAX_FIELD_DEPTH:
        return document
    if isinstance(document, list):
        return [date_fields(choices, item, depth + 1) for item in document]
    if not isinstance(document, dict):
        return document
    result = {}
    for name, value in document.items():
        if is_time_name(name) and choices.draw_boolean(DATE_FIELD_P, site="date-field?"):
            result[name] = date_texts(choices, site="date-field")
        else:
            result[name] = date_fields(choices, value, depth + 1)
    return result
