#!/usr/bin/env python3
"""Test-time oracle: reads records with the Python `cchess` package (pip install cchess) and
prints one JSON object per game: file, index, start FEN, every line in ICCS. Used only by
qipu's tests to cross-check its readers; arguments are file paths."""
import json
import sys

import cchess

for path in sys.argv[1:]:
    low = path.lower()
    try:
        if low.endswith('.cbl'):
            lib = cchess.read_from_cbl(path)
            games = lib.get('games', []) if isinstance(lib, dict) else []
        elif low.endswith('.cbr'):
            games = [cchess.read_from_cbr(path)]
        elif low.endswith('.cbf'):
            games = [cchess.read_from_cbf(path)]
        else:
            games = [cchess.read_from_xqf(path)]
    except Exception as e:  # the oracle's own failures are reported, not fatal
        print(json.dumps({'file': path, 'error': str(e)}, ensure_ascii=False))
        continue
    for i, g in enumerate(games):
        if g is None:
            continue
        lines = g.dump_iccs_moves()
        print(json.dumps({'file': path, 'index': i, 'fen': g.init_board.to_fen(),
                          'lines': [list(l) for l in lines]}, ensure_ascii=False))
