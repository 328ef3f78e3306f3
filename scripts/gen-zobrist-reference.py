#!/usr/bin/env python3
"""Writes tests/data/rules/zobrist.csv: keys of real move sequences, computed here directly
from the frozen table in src/rules/zobrist_table.rs (not by qipu), so the Rust test guards the
key definition: XOR of piece-square values, the side value when the second player is to move,
and the variant salt. Moves come from the oracle games (Fairy-Stockfish squares, ranks 1-10).

usage: scripts/gen-zobrist-reference.py ../shared/oracle > tests/data/rules/zobrist.csv
"""
import json, re, sys, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
table_src = (root / "src/rules/zobrist_table.rs").read_text()
body = table_src.split("PIECE_SQUARE: [[u64; 90]; 14] = [", 1)[1].split("];", 1)[0]
values = [int(h, 16) for h in re.findall(r"0x([0-9a-f]{16})", body)]
assert len(values) == 14 * 90
piece_square = [values[i * 90:(i + 1) * 90] for i in range(14)]
side = int(re.search(r"SECOND_TO_MOVE: u64 = 0x([0-9a-f]+)", table_src).group(1), 16)
salts = [int(h, 16) for h in re.search(r"VARIANT_SALT: \[u64; 2\] = \[0x([0-9a-f]+), 0x([0-9a-f]+)\]", table_src).groups()]
ROLES = "kabnrcp"
START = {
    "xiangqi": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "janggi": "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
}

def parse_fen(fen):
    board = {}
    rows, turn = fen.split()[0].split("/"), fen.split()[1]
    for r, row in enumerate(rows):
        rank, file = 9 - r, 0
        for c in row:
            if c.isdigit():
                file += int(c)
            else:
                board[rank * 9 + file] = c
                file += 1
    return board, turn

def key(board, turn, variant):
    k = salts[0 if variant == "xiangqi" else 1]
    for sq, c in board.items():
        code = ROLES.index(c.lower()) + (7 if c.islower() else 0)
        k ^= piece_square[code][sq]
    return k ^ (side if turn == "b" else 0)

def fs_squares(m):
    parts = re.findall(r"([a-i])(\d+)", m)
    return [(ord(f) - 97, int(r) - 1) for f, r in parts]

oracle = pathlib.Path(sys.argv[1])
print("variant,start_fen,moves,key")
for name, step in [("xiangqi-positions", 300), ("janggi-positions", 300), ("xiangqi-endgame-positions", 700)]:
    for i, line in enumerate(open(oracle / f"{name}.jsonl")):
        if i % step:
            continue
        rec = json.loads(line)
        variant, start = rec["variant"], rec["start_fen"]
        board, turn = parse_fen(start)
        moves = []
        for m in rec["moves_played_uci"]:
            (ff, fr), (tf, tr) = fs_squares(m)
            a, b = fr * 9 + ff, tr * 9 + tf
            if a == b:
                moves.append("pass")
            else:
                board[b] = board.pop(a)
                moves.append(f"{chr(97 + ff)}{fr}{chr(97 + tf)}{tr}")
            turn = "b" if turn == "w" else "w"
        fen_col = "" if start == START[variant] else start
        print(f"{variant},{fen_col},{' '.join(moves)},{key(board, turn, variant):016x}")
