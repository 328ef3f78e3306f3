#!/usr/bin/env python3
"""The move scores `qipu analyse --records` must store from an elephantchess.io CSV, computed
here from the CSV alone (the csv module, a dictionary board; no qipu code), as JSON lines:

    {"game": GAME_ID, "ply": P, "move": "h2e2", "cp": N | "mate": N, "depth": D}

one per distinct (position, move), named by the first (game, ply) that reaches the position
(games in the order their first row appears, plies from 0). The rules, from the CSV's columns:

- `move_analysis` of row i is the engine's line for the position after move i, from the side to
  move there; `engine_analysis` of row i is its line after its own best move, from the same
  side. A `lowerbound`/`upperbound` score is not read.
- The position before move i is valued by row i-1's `move_analysis` (with its pv, whose first
  move is the engine's choice there), else by row i's `engine_analysis` negated (no pv).
- Scores stored: the engine's choice before move i with that value; the move played at i with
  the value of the position before move i+1 seen from the other side (cp negated; mated in n
  -> mate in n+1; mate in n -> mated in n), unless the choice was the played move (then the
  choice's value stands). A score replaces another only when deeper (the first on a tie).

Usage: elephant_evals_oracle.py FILE.csv
"""
import csv
import json
import sys


def parse(line):
    w = line.split()
    if "score" not in w:
        return None
    i = w.index("score")
    if i + 2 >= len(w):
        return None
    kind, n = w[i + 1], w[i + 2]
    try:
        n = int(n)
    except ValueError:
        return None
    if i + 3 < len(w) and w[i + 3] in ("lowerbound", "upperbound"):
        return None
    if kind not in ("cp", "mate"):
        return None
    depth = 0
    if "depth" in w and w.index("depth") + 1 < len(w):
        try:
            depth = int(w[w.index("depth") + 1])
        except ValueError:
            depth = 0
    pv = w[w.index("pv") + 1:] if "pv" in w else []
    return (kind, n, depth, pv)


def other_side(kind, n):
    """The value of the position before a move, from the mover, given the one after it."""
    if kind == "cp":
        return ("cp", -n)
    return ("mate", -n + 1) if n <= 0 else ("mate", -n)


START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"


def start_board():
    board = {}
    for fen_row, row in enumerate(START.split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[(f, 9 - fen_row)] = ch
                f += 1
    return board


def square(text):
    return (ord(text[0]) - ord("a"), int(text[1:]))


def main(path):
    games = {}
    order = []
    with open(path, newline="", encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            gid = row["game_id"].strip()
            if gid not in games:
                games[gid] = []
                order.append(gid)
            games[gid].append(row)
    stored = {}  # (position, move) -> (first game, ply, kind, n, depth)
    position_of = {}  # position -> (game, ply) first reaching it

    def put(pos, move, kind, n, depth, where):
        key = (pos, move)
        had = stored.get(key)
        if had is None or depth > had[4]:
            first = position_of[pos]
            stored[key] = (first[0], first[1], kind, n, depth)

    for gid in order:
        rows = sorted(games[gid], key=lambda r: int(r["move_index"]))
        moves = [r["move"].strip() for r in rows]
        before = []  # value of the position before each move, mover's view: (kind, n, depth, pv)
        for i, r in enumerate(rows):
            prev = parse(rows[i - 1].get("move_analysis", "")) if i > 0 else None
            if prev is not None:
                before.append(prev)
                continue
            own = parse(r.get("engine_analysis", ""))
            if own is None:
                before.append(None)
            else:
                kind, n = other_side(own[0], own[1])
                before.append((kind, n, own[2], []))
        board = start_board()
        for i, m in enumerate(moves):
            pos = (tuple(sorted(board.items())), i % 2)
            position_of.setdefault(pos, (gid, i))
            here = before[i]
            choice = here[3][0] if here is not None and here[3] else None
            if choice is not None:
                put(pos, choice, here[0], here[1], here[2], (gid, i))
            nxt = before[i + 1] if i + 1 < len(before) else None
            if choice != m and nxt is not None:
                kind, n = other_side(nxt[0], nxt[1])
                put(pos, m, kind, n, nxt[2], (gid, i))
            piece = board.pop(square(m[:2]), None)
            board[square(m[2:])] = piece
    for (pos, move), (gid, ply, kind, n, depth) in stored.items():
        print(json.dumps({"game": gid, "ply": ply, "move": move, kind: n, "depth": depth}))


if __name__ == "__main__":
    main(sys.argv[1])
