"""The coach measured: its cost, its steadiness and whether it tells the levels apart.

    python -m bench.coach cost --variant schmier6 --hands 4
    python -m bench.coach agree --variant wisconsin4 --hands 4
    python -m bench.coach levels --variant wisconsin4 --hands 6

`hands` plays hands with the bots and makes their records exactly as a room does
(`rooms.records.Book` folding the log); `measure` weighs them as the server does and
times it; `__main__` runs the measurements.
"""
