//! The web page, embedded in the binary: nothing is loaded from the internet.

/// The page.
pub const INDEX_HTML: &[u8] = include_bytes!("assets/index.html");
/// The page's script (board, move table, API calls).
pub const APP_JS: &[u8] = include_bytes!("assets/app.js");
/// The page's style sheet.
pub const STYLE_CSS: &[u8] = include_bytes!("assets/style.css");
/// The tab icon.
pub const FAVICON_SVG: &[u8] = include_bytes!("assets/favicon.svg");
/// The board's font: a subset of Noto Serif CJK TC Bold holding the pieces, the board's words,
/// the move notations and the opening names (`scripts/make-web-fonts.py`; SIL Open Font
/// License 1.1, `assets/fonts/OFL.txt`), so that the board reads without CJK fonts installed.
pub const BOARD_FONT: &[u8] = include_bytes!("assets/fonts/qipu-board.woff2");
/// The page's text font for the same characters: a subset of Noto Sans CJK TC Regular.
pub const TEXT_FONT: &[u8] = include_bytes!("assets/fonts/qipu-text.woff2");
/// The fonts' licence, served beside them.
pub const FONT_LICENSE: &[u8] = include_bytes!("assets/fonts/OFL.txt");
