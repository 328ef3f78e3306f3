//! Player names folded for matching: the same player written with full-width letters, inner
//! spaces or another letter case gets the same folded form. Used by the player index and the
//! `--player` filter; the stored names stay as written.
//!
//! ```
//! use qipu::formats::names::fold;
//!
//! assert_eq!(fold("湖北 洪智"), fold("湖北洪智"));
//! assert_eq!(fold("ＨＵ　Ｒｏｎｇｈｕａ"), "huronghua");
//! ```

/// The folded form of a name: full-width ASCII letters and digits turned half-width, every
/// kind of white space removed, ASCII letters lower-cased.
pub fn fold(name: &str) -> String {
    name.chars()
        .filter_map(|c| {
            let c = half_width(c);
            (!c.is_whitespace()).then(|| c.to_ascii_lowercase())
        })
        .collect()
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
}
