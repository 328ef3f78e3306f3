#!/usr/bin/env python3
"""Independent readings of a `qipu export --games` CSV, for the opening names and the CSV tests.

  ecco_oracle.py depth GAMES.csv           prints data/ecco-depth.tsv: per ECCO code, the ply at
                                           which its games are told apart (see below)
  ecco_oracle.py name GAMES.csv DEPTH.tsv MOVES...
                                           the name the rule gives the position after MOVES
                                           (ICCS, from the standard start), and its games
  ecco_oracle.py fen GAMES.csv ID PLY      the board and side to move after PLY plies of game ID

A code's depth: for each game labelled with it (standard start), the first ply at which at
least two thirds of the labelled games that played the same first moves carry its code; the
code's depth is the median of these plies over its games (a code's defining line, as the games
show it: xqbase's classifier reads at most 20 plies). Positions here are move prefixes replayed
on a plain board, written from the rules of movement (a move lifts the piece on its from-square
and puts it on its to-square), not from qipu's code.
"""
import collections
import csv
import sys

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
ECCO_PLIES = 20


def xiangqi_games(path):
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["variant"] == "xiangqi":
                yield row


def board_of(fen):
    """10 ranks (index 0 = rank 0, the first player's back rank) of 9 files."""
    placement, side = fen.split()[:2]
    ranks = []
    for text in placement.split("/"):
        rank = []
        for ch in text:
            if ch.isdigit():
                rank.extend([None] * int(ch))
            else:
                rank.append(ch)
        ranks.append(rank)
    ranks.reverse()
    return ranks, side


def play(board, side, move):
    if move != "pass":
        f0, r0 = ord(move[0]) - ord("a"), int(move[1])
        f1, r1 = ord(move[2]) - ord("a"), int(move[3])
        board[r1][f1] = board[r0][f0]
        board[r0][f0] = None
    return "b" if side == "w" else "w"


def placement(board):
    out = []
    for rank in reversed(board):
        text, empty = "", 0
        for p in rank:
            if p is None:
                empty += 1
            else:
                text += (str(empty) if empty else "") + p
                empty = 0
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


def labelled(path):
    return [
        (g["ecco"], g["moves"].split())
        for g in xiangqi_games(path)
        if g["start_fen"] == START and g["ecco"]
    ]


def prefix_counts(games, plies):
    counts = collections.defaultdict(collections.Counter)
    for code, moves in games:
        for p in range(min(len(moves), plies) + 1):
            counts[tuple(moves[:p])][code] += 1
    return counts


def depths(path):
    games = labelled(path)
    counts = prefix_counts(games, ECCO_PLIES)
    told = collections.defaultdict(list)
    for code, moves in games:
        for p in range(min(len(moves), ECCO_PLIES) + 1):
            c = counts[tuple(moves[:p])]
            if 3 * c[code] >= 2 * sum(c.values()):
                told[code].append(p)
                break
    print("code\tplies\tgames")
    for code in sorted(told):
        v = sorted(told[code])
        print(f"{code}\t{v[(len(v) - 1) // 2]}\t{len(v)}")


def read_depths(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            code, plies, _ = line.rstrip("\n").split("\t")
            out[code] = int(plies)
    return out


def read_names(path="data/ecco-names.tsv"):
    out = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            code, opening, variation = (line.rstrip("\n").split("\t") + ["", ""])[:3]
            out[code] = (opening.strip(), variation.strip())
    return out


def name(path, depth_path, moves):
    """The rule, written from its statement: the code two thirds of the games carry, if it is
    not deeper than the position; else the longest beginning of the opening names two thirds
    of the games share (at least two characters) that some code as shallow as the position
    begins with."""
    depth = read_depths(depth_path)
    names = read_names()
    ply = len(moves)
    target = placement_after(START, moves)
    labels = collections.Counter()
    games = 0
    for g in xiangqi_games(path):
        m = g["moves"].split()
        if len(m) < ply:
            continue
        # Same position at the same ply (transpositions included).
        if placement_after(g["start_fen"], m[:ply]) != target:
            continue
        games += 1
        if g["ecco"]:
            labels[g["ecco"]] += 1
    total = sum(labels.values())
    print(f"games {games} labelled {total}")
    if not total or ply == 0:
        print("name -")
        return
    code, top = max(labels.items(), key=lambda a: (a[1], [-ord(ch) for ch in a[0]]))
    deep = lambda c: depth.get(c, ECCO_PLIES)
    if 3 * top >= 2 * total and deep(code) <= ply:
        o, v = names.get(code, ("", ""))
        print(f"name {code} {o + (' — ' + v if v else '')}")
        return
    shallow = [names[c][0] for c in names if deep(c) <= ply]
    prefix = ""
    while True:
        nxt = collections.Counter()
        for c, n in labels.items():
            o = names.get(c, ("", ""))[0]
            if len(o) > len(prefix) and o.startswith(prefix):
                nxt[o[len(prefix)]] += n
        if not nxt:
            break
        ch, n = max(nxt.items(), key=lambda a: (a[1], -ord(a[0])))
        if 3 * n < 2 * total or not any(s.startswith(prefix + ch) for s in shallow):
            break
        prefix += ch
    print(f"name {prefix if len(prefix) >= 2 else '-'}")


def placement_after(fen, moves):
    board, side = board_of(fen)
    for m in moves:
        side = play(board, side, m)
    return placement(board) + " " + side


def fen(path, game_id, ply):
    with open(path, newline="", encoding="utf-8") as f:
        for g in csv.DictReader(f):
            if g["id"] == game_id:
                print(placement_after(g["start_fen"], g["moves"].split()[: int(ply)]))
                return
    sys.exit(f"no game {game_id}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "depth":
        depths(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "name":
        name(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 5 and sys.argv[1] == "fen":
        fen(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
