#!/usr/bin/env python3
"""Makes the move-list dump fixtures of tests/formats/dumps.rs (in tests/data/dumps/) from real games.

The games are the first ones of wukong's Hu Ronghua collection (MIT, in ../shared); this
script reads their PGN itself (not with qipu), writes the same games as dumps in three
shapes, with malformed lines put in by hand, and writes what each line must read as to
expected.json. Run from the repository root: python3 tests/data/make_dumps.py
"""
import json
import re
import zipfile
from pathlib import Path

SRC = Path("../shared/data/xiangqi/wukong/xqdb/xqdb/Hu_Ronghua_1391_UCI_games.pgn.zip")
OUT = Path("tests/data/dumps")
N = 8

text = zipfile.ZipFile(SRC).read("Hu_Ronghua_1391_UCI_games.pgn").decode("utf-8")
games = []
for block in re.split(r"\n(?=\[Event )", text):
    body = "\n".join(l for l in block.splitlines() if not l.startswith("["))
    moves = [w for w in body.split() if re.fullmatch(r"[a-i][0-9][a-i][0-9]", w)]
    if len(moves) >= 20:
        games.append(moves)
    if len(games) == N:
        break
assert len(games) == N

OUT.mkdir(parents=True, exist_ok=True)
expected = {}


def write(name, lines, exp):
    (OUT / name).write_text("".join(l + "\n" for l in lines), encoding="utf-8")
    expected[name] = exp


# 1. `id;m,m,m` with a header line, a line with a word that is no move, an id without moves.
lines, exp = ["game_id;moves"], []
for i, g in enumerate(games):
    if i == 3:
        bad = g[:4] + ["h2e"] + g[4:10]  # a move cut short
        lines.append(f"hr-bad;{','.join(bad)}")
        exp.append({"line": len(lines), "error": "not a move", "ply": 5, "token": "h2e"})
        lines.append("hr-empty;")
        exp.append({"line": len(lines), "error": "no moves"})
    lines.append(f"hr{i + 1};{','.join(g)}")
    exp.append({"line": len(lines), "id": f"hr{i + 1}", "moves": g})
write("semicolon.txt", lines, exp)

# 2. `id<TAB>M-M M-M`: upper-case ICCS with dashes, blank lines between, a result at the end.
lines, exp = [], []
for i, g in enumerate(games[:5]):
    words = [f"{m[:2].upper()}-{m[2:].upper()}" for m in g]
    result = ["1-0", "0-1", "1/2-1/2", "*", "1-0"][i]
    lines.append(f"{1000 + i}\t{' '.join(words)} {result}")
    exp.append({"line": len(lines), "id": str(1000 + i), "moves": g, "result": result})
    lines.append("")
write("tab.txt", lines, exp)

# 3. No ids, moves separated by commas, ranks numbered 1-10 (h3e3 = h2e2).
lines, exp = [], []
for g in games[2:7]:
    words = [f"{m[0]}{int(m[1]) + 1}{m[2]}{int(m[3]) + 1}" for m in g]
    lines.append(",".join(words))
    exp.append({"line": len(lines), "moves": g})
write("no-id.txt", lines, exp)

(OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n", encoding="utf-8")
print("wrote", ", ".join(sorted(expected)))
