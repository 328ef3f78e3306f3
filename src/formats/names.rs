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
    // The script step costs thousands of instructions a name, and a collection names the
    // same players again and again (a game's names are folded by the player index, its
    // richness and every statistic that ranks real names): each thread keeps the last
    // names it folded.
    FOLDED.with(|kept| {
        let Ok(mut kept) = kept.try_borrow_mut() else {
            return simplified(&plain);
        };
        if let Some(f) = kept.get(&plain) {
            return f.clone();
        }
        let f = simplified(&plain);
        if kept.len() >= FOLDED_KEPT {
            kept.clear();
        }
        kept.insert(plain, f.clone());
        f
    })
}

/// How many folded names a thread keeps at most (then it starts again).
const FOLDED_KEPT: usize = 1 << 14;

thread_local! {
    /// Names this thread folded (the half-width, spaceless, lower-case form) → their fold.
    static FOLDED: std::cell::RefCell<std::collections::HashMap<String, String>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// `plain` with traditional Chinese characters turned simplified.
fn simplified(plain: &str) -> String {
    match simplifier() {
        Some(cc) => cc.convert(plain),
        None => plain.to_string(),
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

    /// The names a thread keeps give the same folds as the converter, a name written two
    /// ways is kept under each, and the folds stay right once the kept names start again.
    #[test]
    fn kept_folds_are_the_converters() {
        let fresh = |n: &str| std::thread::scope(|s| s.spawn(|| fold(n)).join().ok());
        for _ in 0..2 {
            assert_eq!(fold("徐天紅"), "徐天红");
            assert_eq!(fold("徐天 紅"), "徐天红");
            assert_eq!(fold("ＨＵ　榮華"), "hu荣华");
        }
        assert_eq!(fresh("徐天紅").as_deref(), Some("徐天红"));
        for i in 0..super::FOLDED_KEPT + 10 {
            let n = format!("胡榮華{i}");
            assert_eq!(fold(&n), format!("胡荣华{i}"));
        }
        assert_eq!(fold("胡榮華0"), "胡荣华0");
        assert_eq!(fold("呂欽"), "吕钦");
    }
}
