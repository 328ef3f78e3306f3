//! Text decoding at the edge: every text format is decoded here, once, to a `String`.
//!
//! Records never declare their encoding. The decoder looks for a byte-order mark, then for
//! valid UTF-8, then for UTF-16LE without a mark; otherwise it decodes the bytes as GB18030,
//! Big5 and CP949 and keeps the reading that holds the most characters of the game notations
//! (piece names, move verbs, Janggi tag words) and the fewest malformed sequences. A wrong
//! choice turns every move into mojibake, so "the moves read" and "the notation characters
//! are there" are the same test.

use encoding_rs::{Encoding, BIG5, EUC_KR, GB18030, UTF_16BE, UTF_16LE, UTF_8};

/// The encodings qipu reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8, with or without a byte-order mark.
    Utf8,
    /// UTF-16, little endian (CCBridge strings, some Windows exports).
    Utf16Le,
    /// UTF-16, big endian (only with a byte-order mark).
    Utf16Be,
    /// GBK / GB18030 (simplified Chinese).
    Gb18030,
    /// Big5 (traditional Chinese).
    Big5,
    /// CP949 / EUC-KR (Korean `.gib`).
    Cp949,
}

impl TextEncoding {
    fn encoding(self) -> &'static Encoding {
        match self {
            TextEncoding::Utf8 => UTF_8,
            TextEncoding::Utf16Le => UTF_16LE,
            TextEncoding::Utf16Be => UTF_16BE,
            TextEncoding::Gb18030 => GB18030,
            TextEncoding::Big5 => BIG5,
            TextEncoding::Cp949 => EUC_KR,
        }
    }
}

/// A decoded text and the encoding it was read with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without byte-order mark, stray `0x1A` (DOS end-of-file) or NUL characters.
    pub text: String,
    /// The encoding chosen.
    pub encoding: TextEncoding,
    /// How many malformed sequences were replaced by U+FFFD.
    pub malformed: usize,
}

/// Decodes a text record whatever its encoding.
///
/// ```
/// use qipu::formats::decode::{decode_text, TextEncoding};
/// // 炮二平五 in GBK
/// let gbk = [0xc5, 0xda, 0xb6, 0xfe, 0xc6, 0xbd, 0xce, 0xe5];
/// let d = decode_text(&gbk);
/// assert_eq!(d.encoding, TextEncoding::Gb18030);
/// assert_eq!(d.text, "炮二平五");
/// // 炮二平五 in Big5
/// let big5 = [0xac, 0xb6, 0xa4, 0x47, 0xa5, 0xad, 0xa4, 0xad];
/// assert_eq!(decode_text(&big5).text, "炮二平五");
/// assert_eq!(decode_text("車二進一".as_bytes()).encoding, TextEncoding::Utf8);
/// ```
pub fn decode_text(bytes: &[u8]) -> Decoded {
    decode_with(bytes, true)
}

/// [`decode_text`] of bytes the caller gives up: UTF-8 without a mark, NUL or `0x1A` (a
/// big PGN file, say) becomes the text without a copy.
///
/// ```
/// use qipu::formats::decode::{decode_text, decode_text_owned};
/// for bytes in [&b"1. h2e2 *"[..], b"\xef\xbb\xbf1. h2e2\x1a", &[0xc5, 0xda, 0xb6, 0xfe]] {
///     assert_eq!(decode_text_owned(bytes.to_vec()), decode_text(bytes));
/// }
/// ```
pub fn decode_text_owned(bytes: Vec<u8>) -> Decoded {
    let plain = !bytes.starts_with(b"\xef\xbb\xbf") && memchr::memchr2(0x1a, 0, &bytes).is_none();
    match String::from_utf8(bytes) {
        Ok(text) if plain => Decoded {
            text,
            encoding: TextEncoding::Utf8,
            malformed: 0,
        },
        Ok(text) => decode_text(text.as_bytes()),
        Err(e) => decode_text(e.as_bytes()),
    }
}

/// [`decode_text`] without its shortcut: a legacy-encoded text is always decoded three ways
/// and scored (the shortcut must agree with this on every text it accepts).
pub fn decode_text_thorough(bytes: &[u8]) -> Decoded {
    decode_with(bytes, false)
}

fn decode_with(bytes: &[u8], quick: bool) -> Decoded {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let te = if enc == UTF_8 {
            TextEncoding::Utf8
        } else if enc == UTF_16LE {
            TextEncoding::Utf16Le
        } else {
            TextEncoding::Utf16Be
        };
        let rest = bytes.get(bom_len..).unwrap_or_default();
        return decode_as(rest, te);
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Decoded {
            text: clean(s),
            encoding: TextEncoding::Utf8,
            malformed: 0,
        };
    }
    if looks_utf16le(bytes) {
        return decode_as(bytes, TextEncoding::Utf16Le);
    }
    // Stray 0xFF and 0x1A bytes (seen in `.gib` files) are never part of a character in
    // these double-byte encodings; dropping them keeps the neighbouring characters intact.
    let stripped: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|&b| b != 0xff && b != 0x1a)
        .collect();
    if quick {
        if let Some(choice) = clear_winner(&stripped) {
            let d = decode_as(&stripped, choice);
            if d.malformed == 0 {
                return d;
            }
        }
    }
    // Score a sample (whole lines) first; fall back to the whole text on a tie.
    let sample = match stripped.get(..SAMPLE) {
        Some(head) => head
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(head, |i| &head[..i]),
        None => &stripped[..],
    };
    let mut best = rank(sample);
    if best.len() > 1 && best[0].0 == best[1].0 && sample.len() < stripped.len() {
        best = rank(&stripped);
    }
    let choice = best.first().map_or(TextEncoding::Gb18030, |b| b.1);
    decode_as(&stripped, choice)
}

/// The shortcut: counts, for each legacy encoding, the two-byte characters that are notation
/// characters in it, straight from the bytes. When one encoding finds at least
/// [`CLEAR_MIN`] and four times as many as any other, it is chosen without decoding.
fn clear_winner(bytes: &[u8]) -> Option<TextEncoding> {
    let tables = pair_tables();
    let mut scores = [0u32; 3];
    for (score, (_, table)) in scores.iter_mut().zip(tables) {
        let mut i = 0;
        while i + 1 < bytes.len() {
            let lead = bytes[i];
            if lead < 0x80 {
                i += 1;
                continue;
            }
            let pair = usize::from(lead) << 8 | usize::from(bytes[i + 1]);
            if table[pair / 64] >> (pair % 64) & 1 == 1 {
                *score += 1;
            }
            // GB18030's four-byte sequences have a digit second; elsewhere two bytes.
            i += if bytes[i + 1].is_ascii_digit() { 4 } else { 2 };
        }
    }
    let best = (0..3).max_by_key(|&i| scores[i])?;
    let others = scores.iter().enumerate().filter(|&(i, _)| i != best);
    let runner_up = others.map(|(_, &s)| s).max().unwrap_or(0);
    (scores[best] >= CLEAR_MIN && scores[best] >= 4 * runner_up).then(|| tables[best].0)
}

/// Fewest notation characters for the shortcut of [`clear_winner`].
const CLEAR_MIN: u32 = 8;

/// For GB18030, Big5 and CP949: a bitmap over two-byte sequences (lead × 256 + trail) of the
/// notation characters' encodings.
fn pair_tables() -> &'static [(TextEncoding, Vec<u64>); 3] {
    use std::sync::OnceLock;
    static TABLES: OnceLock<[(TextEncoding, Vec<u64>); 3]> = OnceLock::new();
    TABLES.get_or_init(|| {
        [
            TextEncoding::Gb18030,
            TextEncoding::Big5,
            TextEncoding::Cp949,
        ]
        .map(|te| {
            let mut bits = vec![0u64; 1024];
            for c in NOTATION_CHARS.chars().filter(|c| !c.is_whitespace()) {
                let mut utf8 = [0; 4];
                let (bytes, _, unmappable) = te.encoding().encode(c.encode_utf8(&mut utf8));
                if let (false, [lead, trail]) = (unmappable, bytes.as_ref()) {
                    let pair = usize::from(*lead) << 8 | usize::from(*trail);
                    bits[pair / 64] |= 1 << (pair % 64);
                }
            }
            (te, bits)
        })
    })
}

/// How much of a record is decoded three ways to choose its encoding.
const SAMPLE: usize = 32 * 1024;

/// The legacy encodings ranked by score, best first (stable: GB18030, Big5, CP949 on ties).
fn rank(bytes: &[u8]) -> Vec<(i64, TextEncoding)> {
    let mut scored: Vec<(i64, TextEncoding)> = [
        TextEncoding::Gb18030,
        TextEncoding::Big5,
        TextEncoding::Cp949,
    ]
    .into_iter()
    .map(|te| {
        let (cow, _) = te.encoding().decode_without_bom_handling(bytes);
        let malformed = cow.chars().filter(|&c| c == '\u{fffd}').count() as i64;
        (notation_score(&cow) - 20 * malformed, te)
    })
    .collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    scored
}

/// Decodes with a given encoding (no detection). A leading byte-order mark is dropped.
pub fn decode_as(bytes: &[u8], encoding: TextEncoding) -> Decoded {
    let (cow, _) = encoding.encoding().decode_without_bom_handling(bytes);
    let malformed = cow.chars().filter(|&c| c == '\u{fffd}').count();
    let text = clean(cow.strip_prefix('\u{feff}').unwrap_or(&cow));
    Decoded {
        text,
        encoding,
        malformed,
    }
}

fn clean(s: &str) -> String {
    let s = s.strip_prefix('\u{feff}').unwrap_or(s);
    if memchr::memchr2(0x1a, 0, s.as_bytes()).is_some() {
        s.chars().filter(|&c| c != '\u{1a}' && c != '\0').collect()
    } else {
        s.to_string()
    }
}

/// UTF-16LE text without a mark: ASCII characters leave a zero in every odd byte.
fn looks_utf16le(bytes: &[u8]) -> bool {
    if bytes.len() < 4 || bytes.len() % 2 != 0 {
        return false;
    }
    let pairs = bytes.len() / 2;
    let odd_zero = bytes.chunks_exact(2).filter(|p| p[1] == 0).count();
    let even_zero = bytes.chunks_exact(2).filter(|p| p[0] == 0).count();
    odd_zero * 3 >= pairs && even_zero * 10 < pairs
}

/// Characters that game records are made of: Xiangqi piece names and move verbs (simplified
/// and traditional), Chinese numerals, full-width digits, Janggi piece names and `.gib` tag
/// words. Mojibake of the wrong encoding rarely hits them.
const NOTATION_CHARS: &str = "車车馬马炮砲包相象仕士帥帅將将兵卒進进退平前後后中一二三四五六七八九\
    紅红黑勝胜負负和棋局賽赛對对\
    １２３４５６７８９\
    차포마상사졸병장궁초한대국결과회전일자장소차림총수제한시간완승무승부수쉼";

fn notation_score(text: &str) -> i64 {
    use std::sync::OnceLock;
    static SET: OnceLock<Vec<char>> = OnceLock::new();
    let set = SET.get_or_init(|| {
        let mut v: Vec<char> = NOTATION_CHARS
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    });
    text.chars()
        .filter(|c| !c.is_ascii() && set.binary_search(c).is_ok())
        .count() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16le_with_and_without_bom() {
        let mut bytes = vec![0xff, 0xfe];
        for u in "[Event \"x\"] 炮二平五".encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        let d = decode_text(&bytes);
        assert_eq!(d.encoding, TextEncoding::Utf16Le);
        assert_eq!(d.text, "[Event \"x\"] 炮二平五");
        let d = decode_text(&bytes[2..]);
        assert_eq!(d.encoding, TextEncoding::Utf16Le);
        assert_eq!(d.text, "[Event \"x\"] 炮二平五");
    }

    #[test]
    fn cp949_gib_with_stray_bytes() {
        // "[초차림 \"마상상마\"]" in CP949, by hand from the KS X 1001 table, with 0xFF and 0x1A.
        let (bytes, _, _) = EUC_KR.encode("[대국결과 \"초 완승\"]\n1. 08마87");
        let mut v = bytes.to_vec();
        v.insert(3, 0xff);
        v.push(0x1a);
        let d = decode_text(&v);
        assert_eq!(d.encoding, TextEncoding::Cp949);
        assert_eq!(d.text, "[대국결과 \"초 완승\"]\n1. 08마87");
    }

    #[test]
    fn shortcut_picks_a_clear_winner_and_declines_otherwise() {
        let moves =
            "[Event \"x\"]\n1. 炮二平五 馬８進７ 2. 馬二進三 車９平８ 3. 車一平二 卒７進１ 紅勝\n";
        for (enc, te) in [(GB18030, TextEncoding::Gb18030), (BIG5, TextEncoding::Big5)] {
            let (bytes, _, _) = enc.encode(moves);
            assert_eq!(clear_winner(&bytes), Some(te));
            assert_eq!(decode_text(&bytes), decode_text_thorough(&bytes));
            // Too few characters to be sure: left to the thorough choice.
            assert_eq!(clear_winner(&bytes[..20]), None);
        }
        let (gib, _, _) = EUC_KR
            .encode("[대국결과 \"초 완승\"]\n1. 08마87 2. 18마37 3. 79졸78 4. 41졸42 차포마상");
        assert_eq!(clear_winner(&gib), Some(TextEncoding::Cp949));
    }

    #[test]
    fn utf8_bom_dropped() {
        let d = decode_text("\u{feff}1. h2e2".as_bytes());
        assert_eq!(d.text, "1. h2e2");
        assert_eq!(d.encoding, TextEncoding::Utf8);
    }
}
