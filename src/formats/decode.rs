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
    let mut best: Option<(i64, Decoded)> = None;
    for te in [
        TextEncoding::Gb18030,
        TextEncoding::Big5,
        TextEncoding::Cp949,
    ] {
        let d = decode_as(&stripped, te);
        let score = notation_score(&d.text) - 20 * d.malformed as i64;
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, d));
        }
    }
    match best {
        Some((_, d)) => d,
        None => decode_as(&stripped, TextEncoding::Gb18030),
    }
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
    if s.contains(['\u{1a}', '\0']) {
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
    text.chars()
        .filter(|c| !c.is_ascii() && NOTATION_CHARS.contains(*c))
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
    fn utf8_bom_dropped() {
        let d = decode_text("\u{feff}1. h2e2".as_bytes());
        assert_eq!(d.text, "1. h2e2");
        assert_eq!(d.encoding, TextEncoding::Utf8);
    }
}
