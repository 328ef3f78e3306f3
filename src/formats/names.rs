//! Player names folded for matching: the same player written in traditional or simplified
//! Chinese, with full-width letters, inner spaces or another letter case gets the same folded
//! form. Used by the player index and the `--player` filter; the stored names stay as written.
//! The script conversion is OpenCC's traditional-to-simplified table (the `ferrous-opencc`
//! crate, pure Rust, its dictionaries built in); this module owns only the folding rule.
//!
//! ```
//! use qipu::formats::names::fold;
//!
//! assert_eq!(fold("湖北 洪智"), fold("湖北洪智"));
//! assert_eq!(fold("呂欽"), fold("吕钦"));
//! assert_eq!(fold("ＨＵ　Ｒｏｎｇｈｕａ"), "huronghua");
//! ```

use std::sync::OnceLock;

use ferrous_opencc::{config::BuiltinConfig, OpenCC};

/// The folded form of a name: full-width ASCII letters and digits turned half-width, every
/// kind of white space removed, ASCII letters lower-cased, traditional Chinese characters
/// turned simplified (`呂欽` → `吕钦`).
pub fn fold(name: &str) -> String {
    let plain: String = name
        .chars()
        .filter_map(|c| {
            let c = half_width(c);
            (!c.is_whitespace()).then(|| c.to_ascii_lowercase())
        })
        .collect();
    if plain.is_ascii() {
        return plain;
    }
    match simplifier() {
        Some(cc) => cc.convert(&plain),
        None => plain,
    }
}

/// The traditional-to-simplified converter, built once. Its tables are compiled into the
/// binary, so building it cannot meet bad input; should it fail anyway, names are folded
/// without the script step rather than not at all.
fn simplifier() -> Option<&'static OpenCC> {
    static CC: OnceLock<Option<OpenCC>> = OnceLock::new();
    CC.get_or_init(|| OpenCC::from_config(BuiltinConfig::T2s).ok())
        .as_ref()
}

/// Full-width forms U+FF01–U+FF5E map to ASCII U+0021–U+007E; the ideographic space to a space.
fn half_width(c: char) -> char {
    match c {
        '\u{3000}' => ' ',
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn folds_width_space_and_case() {
        assert_eq!(fold("  Player１２３ "), "player123");
        assert_eq!(fold("李 雪松"), "李雪松");
        assert_ne!(fold("李雪"), fold("李雪松"));
        assert_eq!(fold(""), "");
    }

    /// Traditional and simplified spellings of real players (as written in the ccpd master
    /// games, ../shared/data/xiangqi/ccpd, and in mainland sources) fold together; different
    /// players stay apart.
    #[test]
    fn folds_traditional_and_simplified_chinese() {
        for (traditional, simplified) in [
            ("呂欽", "吕钦"),
            ("許銀川", "许银川"),
            ("胡榮華", "胡荣华"),
            ("趙國榮", "赵国荣"),
            ("柳大華", "柳大华"),
            ("徐天紅", "徐天红"),
            ("趙鑫鑫", "赵鑫鑫"),
            ("陶漢明", "陶汉明"),
            ("蔣川", "蒋川"),
            ("卜鳳波", "卜凤波"),
            ("謝靖", "谢靖"),
            ("劉殿中", "刘殿中"),
            ("張強", "张强"),
            ("廣東 呂欽", "广东吕钦"),
        ] {
            assert_eq!(fold(traditional), simplified, "{traditional}");
            assert_eq!(fold(simplified), simplified, "{simplified}");
        }
        assert_eq!(fold("洪智"), "洪智");
        assert_ne!(fold("許銀川"), fold("呂欽"));
        assert_ne!(fold("趙國榮"), fold("趙鑫鑫"));
    }
}
