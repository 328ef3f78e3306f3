//! The web page, embedded in the binary: nothing is loaded from the internet.

/// The page.
pub const INDEX_HTML: &[u8] = include_bytes!("assets/index.html");
/// The page's script (board, move table, API calls).
pub const APP_JS: &[u8] = include_bytes!("assets/app.js");
/// The page's style sheet.
pub const STYLE_CSS: &[u8] = include_bytes!("assets/style.css");
/// The tab icon.
pub const FAVICON_SVG: &[u8] = include_bytes!("assets/favicon.svg");
