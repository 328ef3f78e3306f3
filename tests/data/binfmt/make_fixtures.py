#!/usr/bin/env python3
"""Writes the small binfmt fixtures from the format descriptions (../shared/specs/formats.md
sections 9-11), independently of qipu's readers. Made for qipu; no third-party data.
Run from this folder: python3 make_fixtures.py"""
import struct

STD = [80, 70, 60, 50, 40, 30, 20, 10, 0, 72, 12, 83, 63, 43, 23, 3,
       9, 19, 29, 39, 49, 59, 69, 79, 89, 17, 77, 6, 26, 46, 66, 86]


def sq(name):  # 'h2' -> XQF byte X*10+Y
    return (ord(name[0]) - 97) * 10 + int(name[1])


def pascal(h, off, size, text):
    b = text.encode('gbk')[:size - 1]
    h[off] = len(b)
    h[off + 1:off + 1 + len(b)] = b


def xqf_header(version, pieces, result, who=0):
    h = bytearray(1024)
    h[0:2] = b'XQ'
    h[2] = version
    h[0x10:0x30] = bytes(pieces)
    h[0x32] = who
    h[0x33] = result
    return h


# ---- XQF 1.0 (version 10), plain
h = xqf_header(10, STD, 1)
pascal(h, 0x50, 64, '测试')
pascal(h, 0xD0, 64, '测试赛')
pascal(h, 0x110, 16, '2001.04.16')
pascal(h, 0x130, 16, '红方')
pascal(h, 0x140, 16, '黑方')


def rec10(frm, to, nxt, var, comment=b''):
    tag = (0xF0 if nxt else 0) | (0x0F if var else 0)
    return bytes([sq(frm) + 0x18, sq(to) + 0x20, tag, 0]) + struct.pack('<i', len(comment)) + comment


body = bytes([0x18, 0x20, 0xF0, 0xFF]) + struct.pack('<i', len('中炮对屏风马'.encode('gbk'))) + '中炮对屏风马'.encode('gbk')
body += rec10('h2', 'e2', 1, 0, '炮二平五'.encode('gbk'))
body += rec10('h9', 'g7', 1, 1)
body += rec10('h0', 'g2', 1, 0)
body += rec10('i9', 'h9', 0, 0)
body += rec10('b9', 'c7', 1, 1)
body += rec10('i0', 'i1', 0, 0)
body += rec10('h7', 'e7', 0, 0)
open('v10_variations.xqf', 'wb').write(bytes(h) + body)

# ---- encrypted versions
COPY = b'[(C) Copyright Mr. Dong Shiwei.]'


def f(k, mul):
    return ((k * k * 54 + 221) * mul) & 0xFF


def xqf_encrypted(version, pieces, rotate, moves, result, root_comment=None,
                  keys=(0xFF, 0x00, 0x00, 0x00, 0x00, 0x35, 0x5A, 0x77, 0xC3)):
    mask, ora, orb, orc, ord_, ksum, kxy, kxyf, kxyt = keys
    h = xqf_header(version, [0] * 32, result)
    h[3] = mask
    h[8:12] = bytes([ora, orb, orc, ord_])
    h[12:16] = bytes([ksum, kxy, kxyf, kxyt])
    p = f(kxy, kxy)
    fk = f(kxyf, p)
    tk = f(kxyt, fk)
    rmk = (ksum * 256 + kxy) % 32000 + 767
    enc = [((v + p) & 0xFF) if v != 0xFF else ((0xFF + p) & 0xFF) for v in pieces]
    raw = [0] * 32
    for i in range(32):
        raw[i] = enc[(p + 1 + i) & 31] if rotate else enc[i]
    h[0x10:0x30] = bytes(raw)
    B = [(ksum & mask) | ora, (kxy & mask) | orb, (kxyf & mask) | orc, (kxyt & mask) | ord_]
    F32 = bytes(COPY[i] & B[i % 4] for i in range(32))

    def rec(frm, to, nxt, var, comment=None):
        tag = (0x80 if nxt else 0) | (0x40 if var else 0) | (0x20 if comment else 0)
        out = bytes([(frm + 0x18 + fk) & 0xFF, (to + 0x20 + tk) & 0xFF, tag, 0])
        if comment:
            c = comment.encode('gbk')
            out += struct.pack('<i', len(c) + rmk) + c
        return out
    stream = rec(0, 0, bool(moves), False, root_comment)
    for k, (a, b, comment) in enumerate(moves):
        stream += rec(sq(a), sq(b), k + 1 < len(moves), False, comment)
    stream = bytes((b + F32[i % 32]) & 0xFF for i, b in enumerate(stream))
    return bytes(h) + stream


end = [0xFF] * 32
end[0] = sq('e1')   # red rook
end[4] = sq('d0')   # red king
end[20] = sq('e9')  # black king
open('v18_endgame.xqf', 'wb').write(
    xqf_encrypted(18, end, True, [('e9', 'f9', None), ('e1', 'f1', '将军')], 3))
opening = [('h2', 'e2', None), ('h9', 'g7', None), ('h0', 'g2', None)]
open('v11_plain.xqf', 'wb').write(xqf_encrypted(11, STD, False, opening, 0))
open('v11_rotated.xqf', 'wb').write(xqf_encrypted(11, STD, True, opening, 0))

# ---- CBR
CODES = {'R': 0x11, 'N': 0x12, 'B': 0x13, 'A': 0x14, 'K': 0x15, 'C': 0x16, 'P': 0x17}
START_ROWS = ['rnbakabnr', '.........', '.c.....c.', 'p.p.p.p.p', '.........',
              '.........', 'P.P.P.P.P', '.C.....C.', '.........', 'RNBAKABNR']


def board_bytes(rows):
    out = bytearray()
    for row in rows:
        for c in row:
            out.append(0 if c == '.' else CODES[c.upper()] + (0x10 if c.islower() else 0))
    return bytes(out)


def u16(text, size):
    b = text.encode('utf-16-le')[:size - 2]
    return b + bytes(size - len(b))


def cbr(version, strings, result, records, root_comment=None):
    if version == 2:
        size, res_off, side_off, board_off, moves_off = 2214, 2076, 2116, 2120, 2214
    else:
        size, res_off, side_off, board_off, moves_off = 1958, 1820, 1860, 1864, 1958
    h = bytearray(size)
    h[0:16] = b'CCBridge Record\x00'
    h[19] = version
    for off, n, text in strings:
        h[off:off + n] = u16(text, n)
    h[res_off] = result
    h[side_off] = 1
    h[board_off:board_off + 90] = board_bytes(START_ROWS)
    out = bytes(h)
    if root_comment:
        c = root_comment.encode('utf-16-le')
        out += bytes([4, 0, 0, 0]) + struct.pack('<I', len(c)) + c
    else:
        out += bytes(4)
    for flag, a, b, comment in records:
        if comment:
            c = comment.encode('utf-16-le')
            out += bytes([flag | 4, 0, a, b]) + struct.pack('<I', len(c)) + c
        else:
            out += bytes([flag, 0, a, b])
    return out + bytes(4)


def p2(name):  # v2 square: y_top*9 + x
    return (9 - int(name[1])) * 9 + ord(name[0]) - 97


def p1(name):  # v1 square: x<<4 | y_top
    return ((ord(name[0]) - 97) << 4) | (9 - int(name[1]))


v2 = cbr(2, [(180, 128, '测试对局'), (692, 64, '全国赛'), (1076, 64, '许银川'), (1300, 64, '吕钦')], 2, [
    (0, p2('h2'), p2('e2'), None),
    (2, p2('h9'), p2('g7'), None),
    (1, p2('h0'), p2('g2'), '马二进三'),
    (0, p2('b9'), p2('c7'), None),
    (1, p2('b0'), p2('c2'), None),
], '对局说明')
open('v2_variations.cbr', 'wb').write(v2)
v1 = cbr(1, [(52, 128, '一'), (948, 64, '红'), (1172, 64, '黑')], 0, [
    (0, p1('h2'), p1('e2'), None),
    (1, p1('h9'), p1('g7'), None),
])
open('v1.cbr', 'wb').write(v1)

# ---- CBL: header, index area, records on 4096-byte blocks from 101952 (<= 128 games)
lib = bytearray(101952)
lib[0:16] = b'CCBridgeLibrary\x00'
lib[60:64] = struct.pack('<i', 128)
lib[64:64 + 512] = u16('测试库', 512)
g1 = cbr(2, [(1076, 64, '甲')], 1, [(0, p2('h2'), p2('e2'), None), (0, p2('h9'), p2('g7'), None),
                                    (1, p2('h0'), p2('g2'), None)])
g2 = cbr(2, [(1076, 64, '乙')], 0, [(1, p2('c3'), p2('c4'), None)])
for g in (g1, g2):
    lib += g + bytes(4096 - len(g))
open('two_games.cbl', 'wb').write(bytes(lib))

# ---- CBF
cbf = '''\ufeff<?xml version="1.0" encoding="UTF-8"?>
<ChineseChessRecord Version="1.0">
 <Head>
  <Name>小样</Name>
  <Contest />
  <Red>红</Red>
  <Black>黑</Black>
  <ECCO>B05</ECCO>
  <RecordResult>3</RecordResult>
  <FEN>rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1</FEN>
 </Head>
 <MoveList>
  <Move value="00-00">开局 &amp; 说明</Move>
  <Move value="77-47" />
  <Move value="70-62"><![CDATA[马8进7]]></Move>
  <Move value="79-67" />
 </MoveList>
</ChineseChessRecord>
'''
open('small.cbf', 'w', encoding='utf-8').write(cbf)

# ---- DhtmlXQ inside an HTML page: two games
BINIT = '0919293949596979891777062646668600102030405060708012720323436383'
endg = ['99'] * 32
endg[0] = '48'   # red rook e1 (x4, row 8 from the top)
endg[4] = '39'   # red king d0
endg[20] = '40'  # black king e9
page = '''<html><head><meta charset="utf-8"></head><body>
<div class="game">
[DhtmlXQ]
[DhtmlXQ_title]仙人指路对卒底炮[/DhtmlXQ_title]
[DhtmlXQ_date]1995.10.16[/DhtmlXQ_date]
[DhtmlXQ_blacktime][/DhtmlXQ_time]
[DhtmlXQ_result]黑胜[/DhtmlXQ_result]
[DhtmlXQ_open]E27 仙人指路转左中炮对卒底炮飞左象[/DhtmlXQ_open]
[DhtmlXQ_binit]%s[/DhtmlXQ_binit]
[DhtmlXQ_movelist]2625636419277062[/DhtmlXQ_movelist]
[DhtmlXQ_move_1_3_2]7967[/DhtmlXQ_move_1_3_2]
[DhtmlXQ_move_0_2_1]23247747[/DhtmlXQ_move_0_2_1]
[DhtmlXQ_comment0]仙人指路||对卒底炮[/DhtmlXQ_comment0]
[DhtmlXQ_comment1]兵七进一[/DhtmlXQ_comment1]
[DhtmlXQ_comment1_2]对兵[/DhtmlXQ_comment1_2]
[DhtmlXQ_comment2_3]\\u9a6c二进三[/DhtmlXQ_comment2_3]
[/DhtmlXQ]
</div><div class="game">
[DhtmlXQ]
[DhtmlXQ_title]残局[/DhtmlXQ_title]
[DhtmlXQ_binit]%s[/DhtmlXQ_binit]
[DhtmlXQ_movelist]40504858[/DhtmlXQ_movelist]
[DhtmlXQ_result]和棋[/DhtmlXQ_result]
[/DhtmlXQ]
</div></body></html>
''' % (BINIT, ''.join(endg))
open('page.html', 'w', encoding='utf-8').write(page)

rows = ['....k....'] + ['.........'] * 7 + ['....R....', '...K.....']
dhj = '''[DHJHtmlXQ]
[DHJHtmlXQ_10]残局[/DHJHtmlXQ_10]
[DHJHtmlXQ_11]广东赛[/DHJHtmlXQ_11]
[DHJHtmlXQ_31]%s[/DHJHtmlXQ_31]
[DHJHtmlXQ_32]1[/DHJHtmlXQ_32]
[DHJHtmlXQ_34]49594151[/DHJHtmlXQ_34]
[/DHJHtmlXQ]
''' % ''.join(rows)
open('dhj.txt', 'w', encoding='utf-8').write(dhj)
