#!/usr/bin/env python3
"""Writes the format fixtures of tests/formats.rs (all made up for qipu; no third-party text).
Run from this folder: python3 make_fixtures.py"""
import io, zipfile

def w(name, data):
    with open(name, "wb") as f:
        f.write(data)

# GBK, CRLF, xqbase tags with inner quotes, comments, a nested variation, a Black-only line
# after a comment, an advert after the result, then a second game.
gbk = """[Game "Chinese Chess"]
[Event ""中立杯"象棋快棋赛"]
[Date "2006.08.03"]
[Red "甲"]
[RedTeam "北京"]
[Black "乙"]
[BlackTeam "上海"]
[Result "1-0"]
[ECCO "B00"]
[Opening "中炮局"]
  1. 炮二平五 {中炮} (1. 相三进五 马８进７ (1... 炮８平５)) 马８进７
  2.          马二进三 车９平８
 1-0
============================
欢迎访问《象棋百科全书》网站

[Game "Chinese Chess"]
[Date "2007年1月"]
[Result "0-1"]
1. 兵七进一 卒７进１ 0-1
""".replace("\n", "\r\n")
w("gbk-crlf.pgn", gbk.encode("gbk"))

# Big5, Black to move from a FEN, numbered "1. 卒３進１".
big5 = """[Game "Chinese Chess"]
[Event "測試"]
[Date "1981"]
[Red "紅方"]
[Black "黑方"]
[Result "0-1"]
[FEN "4k4/9/9/4p4/9/9/9/9/9/3K5 b - - 0 1"]

1. 卒５進１
2. 帥四進一 卒５進１
0-1
"""
w("big5-black-first.pgn", big5.encode("big5"))

# UTF-16LE with a BOM, ICCS.
u16 = '[Game "Chinese Chess"]\r\n[Format "ICCS"]\r\n[Red "红"]\r\n1. H2-E2 H9-G7 2. H0-G2 I9-H9 *\r\n'
w("utf16le.pgn", b"\xff\xfe" + u16.encode("utf-16-le"))

# UTF-8 with a BOM, WXF with full-width characters.
w("utf8-bom-wxf.pgn", ("\ufeff[Game \"Chinese Chess\"]\n[Format \"WXF\"]\n"
                         "1. Ｃ２＝５ Ｈ８＋７ 2. Ｈ２＋３ Ｒ９＝８ 1/2-1/2\n").encode("utf-8"))

# CP949 .gib: a normal game, a forfeit with no moves, a Han-first [판] handicap game and an
# old-coordinates game; stray 0xFF and 0x1A bytes, comments and clock marks.
gib = """[대회명 "연습대국"]
[회전 "1"]
[대국일자 "2016-12-06"]
[대국장소 "미상"]
[초대국자 "가"]
[한대국자 "나"]
[초차림 "상마상마"]
[한차림 "마상마상"]
[총수 "5"]
[대국결과 "초 완승"]

1. 71졸72 <3> 2. 41병42 3. 08마87 {말} 4. 한수쉼 5. 79楚卒78
\x1a\xff
[대회명 "연습대국"]
[초대국자 "다"]
[한대국자 "라"]
[초차림 "마상상마"]
[한차림 "마상상마"]
[대국결과 "한 기권승"]

[대회명 "접장기"]
[초대국자 "마"]
[한대국자 "바"]
[대국결과 "무승부"]
[판 "차마상사1사상마차/4장/1포5포/졸1졸1졸1졸1졸///兵1兵1兵1兵1兵/1包5包/4將/車馬象3馬象車 한 접장기"]

1. 12마33 2. 08마87
[대회명 "옛기보"]
[기보형식 "구좌표"]
[초차림 "마상상마"]
[한차림 "마상상마"]
[대국결과 "초 완승"]

1. 84졸74 2. 20마28
"""
raw = gib.replace("\x1a\xff", "@@").encode("cp949").replace(b"@@", b"\x1a\xff")
w("games.gib", raw)

# A Tygem Go record with the same extension.
w("tygem-go.gib", b"\\HS\n\\[GAMEBLACKNAME=a\\]\n\\[GAMEWHITENAME=b\\]\n\\HE\n\\GS\n2 1 0\n119 0 &4\nSTO 0 2 2 15 15\n\\GE\n")

# .eglib: one puzzle with a solution, one without.
w("puzzles.eglib", "车的杀法|3a1k3/4a4/9/9/9/4R4/9/9/9/4K4 w - - 0 1|e4e8,d9e8\n兵的杀法|9/3k5/3aP4/9/9/9/9/9/9/4K4 w\n".encode("utf-8"))

# A plain move list.
w("movelist.txt", b"h2e2 h9g7\nh0g2 i9h9\n")

# Not a record (skipped in folder walks).
w("README", b"Fixtures for tests/formats.rs.\n")

# A zip with a folder inside.
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("inner/b.pgn", "1. c3c4 c6c5 *\n")
    z.writestr("inner/a.pgn", "[Red \"z\"]\n1. b0c2 *\n")
    z.writestr("notes.txt", "not a record\n")
w("archive.zip", buf.getvalue())

# Janggi PGN in pychess style (Fairy-Stockfish squares, ranks 1-10).
w("janggi-pychess.pgn", b'[Event "casual"]\n[White "cho"]\n[Black "han"]\n[Result "0-1"]\n[Variant "Janggi"]\n[FEN "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"]\n[SetUp "1"]\n\n1. a4b4 a7b7 2. e2e2 0-1\n')
