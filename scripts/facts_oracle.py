#!/usr/bin/env python3
"""Independent reading of the facts of play, for the tests: prints `key<TAB>count` lines.

  facts_oracle.py gib DIR      every [제한시간] / [대국결과] of the .gib files under DIR:
                               speed=…, clock=base+inc, termination=… counts
  facts_oracle.py csv FILE...  the elephantchess CSV: one line per game with its facts

Written from the formats' descriptions (the Korean servers' clock words; the dataset's
columns), not from qipu's code.
"""
import collections
import csv
import os
import re
import sys

LIMITS = [(180, "bullet"), (480, "blitz"), (1500, "rapid")]


def speed_of(secs):
    for limit, name in LIMITS:
        if secs < limit:
            return name
    return "classical"


GIB_CLOCK = re.compile(
    r"^(?:각자?\s*)?(\d+)\s*(?:분|分|min)"
    r"(?:[\s,]*(?:초읽기\s*)?(\d+)\s*(?:초|秒)(?:\s*(?:초읽기\s*)?(\d+)\s*(?:회|回))?)?\s*$"
)


def gib_clock(value):
    """(clock text or None, speed or None)"""
    m = GIB_CLOCK.match(value.strip())
    if not m:
        return None, None
    base = int(m.group(1)) * 60
    if m.group(2) is None:
        if base == 0:
            return None, None
        return f"{base}+0", speed_of(base)
    byo = int(m.group(2))
    if byo == 0:
        return None, None
    return None, speed_of(base + 40 * byo)


def gib_ending(value):
    v = re.sub(r"\s", "", value)
    for words, name in [
        (("기권", "불계"), "resignation"),
        (("시간",), "time"),
        (("점수", "점승", "점)"), "count"),
        (("빅장", "빅승"), "bikjang"),
        (("외통", "장군승"), "mate"),
        (("동의",), "agreement"),
        (("접속끊김",), "other"),
    ]:
        if any(w in v for w in words):
            return name
    return None


def gib(root):
    counts = collections.Counter()
    for d, _, files in os.walk(root):
        for f in files:
            raw = open(os.path.join(d, f), "rb").read()
            text = bytes(b for b in raw if b not in (0xFF, 0x1A)).decode("cp949", "replace")
            for m in re.finditer(r'\[제한시간\s+"([^"\n]*)"\]', text):
                clock, speed = gib_clock(m.group(1))
                if clock:
                    counts["clock=" + clock] += 1
                if speed:
                    counts["speed=" + speed] += 1
            for m in re.finditer(r'\[대국결과\s+"([^"\n]*)"\]', text):
                e = gib_ending(m.group(1))
                if e:
                    counts["termination=" + e] += 1
    for k, v in sorted(counts.items()):
        print(f"{k}\t{v}")


ENDINGS = {
    "CHECKMATED": "mate",
    "RESIGNED": "resignation",
    "FLAGGED": "time",
    "STALEMATED": "stalemate",
    "PERPETUAL_CHECKING": "repetition",
    "DRAW_ACCEPTED": "agreement",
}
OUTCOMES = {"RED_WINS": "1-0", "BLACK_WINS": "0-1", "DRAW": "1/2-1/2"}


def score_of(line):
    """(kind, n) of a UCI info line's exact score; None for none or a bound."""
    m = re.search(r"\bscore (cp|mate) (-?\d+)(?: (lowerbound|upperbound))?", line)
    if not m or m.group(3):
        return None
    return (m.group(1), int(m.group(2)))


def text(score):
    return "-" if score is None else f"{score[0]}{score[1]}"


def score_before(line):
    """The dataset's `engine_analysis` analyses the position after the engine's best move,
    from the opponent's side (its pv starts with the opponent's move): the position before
    the move, from the mover's side, is worth the negation."""
    s = score_of(line)
    if s is None:
        return None
    kind, n = s
    if kind == "cp":
        return ("cp", -n)
    # The opponent mates in n > 0 of its moves: the mover is mated in n. The opponent is
    # mated in -n (0: now): the mover mates in -n + 1, the best move being the first.
    return ("mate", -n) if n > 0 else ("mate", -n + 1)


def node_evals(rows):
    """The eval of the position before each move, from its mover: the previous row's
    `move_analysis` (the position after the previous move, from the side to move there) when
    it has an exact score, else the row's own `engine_analysis` negated."""
    out = []
    for i, r in enumerate(rows):
        prev = score_of(rows[i - 1].get("move_analysis", "")) if i > 0 else None
        out.append(prev if prev is not None else score_before(r["engine_analysis"]))
    return out


def elephant(paths):
    games = collections.defaultdict(list)
    for p in paths:
        with open(p, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                games[row["game_id"]].append(row)
    for gid in sorted(games):
        rows = sorted(games[gid], key=lambda r: int(r["move_index"]))
        evals = node_evals(rows)
        first = rows[0]
        facts = [
            gid,
            str(len(rows)),
            " ".join(r["move"] for r in rows[:6]),
            first["timestamp"][:10],
            first["red_elo_before"] or "-",
            first["black_elo_before"] or "-",
            OUTCOMES.get(first["outcome"], "*"),
            ENDINGS.get(first["game_status"], "-"),
            first["time_control"] or "-",
            first["time_control_category"].lower() or "-",
            first["rating_mode"] or "-",
            ",".join(text(e) for e in evals),
            str(sum(1 for e in evals if e is not None)),
        ]
        print("|".join(facts) + "\t1")


if __name__ == "__main__":
    if sys.argv[1] == "gib":
        gib(sys.argv[2])
    else:
        elephant(sys.argv[2:])
