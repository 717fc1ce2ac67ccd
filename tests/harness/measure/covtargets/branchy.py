"""One function per branch construct, for comparing our arms with coverage.py's arcs.

Line numbers matter to the tests only through coverage.py and a few `_line_of` lookups,
so constructs can be added at the end freely."""

import contextlib

MODE = "strict" if __name__.endswith("branchy") else "loose"
if MODE == "strict":
    LEVEL = 2
else:
    LEVEL = 1


def if_elif_else(x):
    if x > 10:
        r = "big"
    elif x > 0:
        r = "small"
    else:
        r = "neg"
    return r


def while_loop(n):
    total = 0
    while n > 0:
        total += n
        n -= 1
    return total


def for_loop(items):
    total = 0
    for item in items:
        total += item
    return total


def for_loop_last(items):
    seen = []
    for item in items:
        seen.append(item)


# fmt: off
# Multi-line expressions: coverage.py files them under the statement's first line.
def ternary(x):
    y = (
        "yes"
        if x
        else "no"
    )
    return y


def short_circuit(a, b):
    if a and b:
        r = 1
    else:
        r = 2
    if a or b:
        r += 10
    return r


def matcher(cmd):
    match cmd:
        case "go":
            r = 1
        case [x, y]:
            r = x + y
        case {"k": v}:
            r = v
        case _:
            r = 0
    return r


def catcher(s):
    try:
        r = int(s)
    except ValueError:
        r = -1
    except TypeError:
        r = -2
    return r


def comprehension(items):
    evens = [
        i
        for i in items
        if i % 2 == 0
    ]
    return evens


def generator_expr(items):
    return sum(
        i
        for i in items
        if i > 2
    )
# fmt: on


def nested(x):
    def inner(y):
        if y:
            return 1
        return 2

    f = lambda z: 3 if z else 4  # noqa: E731
    return inner(x) + f(x)


def is_none(x):
    if x is None:
        r = 0
    else:
        r = 1
    return r


def long_jump(x):
    # long enough that the jumps need EXTENDED_ARG
    if x:
        a = 1
        a += 1
        a += 2
        a += 3
        a += 4
        a += 5
        a += 6
        a += 7
        a += 8
        a += 9
        a += 10
        a += 11
        a += 12
        a += 13
        a += 14
        a += 15
        a += 16
        a += 17
        a += 18
        a += 19
        a += 20
        a += 21
        a += 22
        a += 23
        a += 24
        a += 25
        a += 26
        a += 27
        a += 28
        a += 29
        a += 30
        a += 31
        a += 32
        a += 33
        a += 34
        a += 35
        a += 36
        a += 37
        a += 38
        a += 39
        a += 40
        a += 41
        a += 42
        a += 43
        a += 44
        a += 45
        a += 46
        a += 47
        a += 48
        a += 49
        a += 50
        a += 51
        a += 52
        a += 53
        a += 54
        a += 55
        a += 56
        a += 57
        a += 58
        a += 59
        a += 60
        a += 61
        a += 62
        a += 63
        a += 64
        a += 65
        a += 66
        a += 67
        a += 68
        a += 69
        a += 70
        a += 71
        a += 72
        a += 73
        a += 74
        a += 75
        a += 76
        a += 77
        a += 78
        a += 79
        a += 80
        a += 81
        a += 82
        a += 83
        a += 84
        a += 85
        a += 86
        a += 87
        a += 88
        a += 89
        a += 90
        a += 91
        a += 92
        a += 93
        a += 94
        a += 95
        a += 96
        a += 97
        a += 98
        a += 99
        a += 100
        a += 101
        a += 102
        a += 103
        a += 104
        a += 105
        a += 106
        a += 107
        a += 108
        a += 109
        a += 110
        a += 111
        a += 112
        a += 113
        a += 114
        a += 115
        a += 116
        a += 117
        a += 118
        a += 119
        a += 120
        a += 121
        a += 122
        a += 123
        a += 124
        a += 125
        a += 126
        a += 127
        a += 128
        a += 129
        a += 130
        a += 131
        a += 132
        a += 133
        a += 134
        a += 135
        a += 136
        a += 137
        a += 138
        a += 139
        a += 140
        a += 141
        a += 142
        a += 143
        a += 144
        a += 145
        a += 146
        a += 147
        a += 148
        a += 149
        a += 150
    else:
        a = 0
    return a


def with_block(error):
    with contextlib.suppress(ValueError):
        if error is not None:
            raise error
        return 1
    return 2


def checked(x):
    assert x > 0, "positive"
    return x


def search(items, wanted):
    for item in items:
        if item is None:
            continue
        if item == wanted:
            break
    else:
        return -1
    return wanted


def spin(n):
    while True:
        n -= 1
        if n <= 0:
            break
    return n
