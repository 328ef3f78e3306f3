#!/usr/bin/env python3
"""Makes the two font subsets the web page ships (src/web/assets/fonts/), so that its board,
moves and opening names read on a machine without CJK fonts (issue #30 item 12).

Source: Noto Serif CJK TC Bold and Noto Sans CJK TC Regular (SIL Open Font License 1.1;
Debian's fonts-noto-cjk: /usr/share/fonts/opentype/noto). The characters kept are every Han,
Hangul, CJK punctuation and full-width character that the page itself, the move notations
(src/notation), the explorer's names (src/explorer) and the opening names (data/ecco-names.tsv)
can show. Players' names and events are not covered: they fall back to the system's fonts.

    apt-get install fonts-noto-cjk && pip install fonttools brotli
    python3 scripts/make-web-fonts.py
"""
import glob
import os
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
NOTO = "/usr/share/fonts/opentype/noto"
OUT = os.path.join(ROOT, "src/web/assets/fonts")


def wanted(o):
    return (0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF
            or 0x3130 <= o <= 0x318F or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F)


def characters():
    files = [os.path.join(ROOT, "data/ecco-names.tsv")]
    for pattern in ("src/notation/*.rs", "src/explorer/*.rs", "src/web/assets/*.js",
                    "src/web/assets/*.html"):
        files += glob.glob(os.path.join(ROOT, pattern))
    chars = set()
    for f in sorted(files):
        with open(f, encoding="utf-8") as fh:
            chars.update(c for c in fh.read() if wanted(ord(c)))
    return "".join(sorted(chars))


def make(ttc, name, out, text):
    fonts = TTCollection(os.path.join(NOTO, ttc)).fonts
    font = next((f for f in fonts if f["name"].getDebugName(4) == name), None)
    if font is None:
        sys.exit(f"{name} not found in {ttc}")
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(text=text)
    sub.subset(font)
    font.flavor = "woff2"
    font.save(os.path.join(OUT, out))
    print(f"{out}: {len(text)} characters, {os.path.getsize(os.path.join(OUT, out))} bytes")


text = characters()
os.makedirs(OUT, exist_ok=True)
make("NotoSerifCJK-Bold.ttc", "Noto Serif CJK TC Bold", "qipu-board.woff2", text)
make("NotoSansCJK-Regular.ttc", "Noto Sans CJK TC", "qipu-text.woff2", text)
with open(os.path.join(OUT, "characters.txt"), "w", encoding="utf-8") as fh:
    fh.write(text + "\n")
