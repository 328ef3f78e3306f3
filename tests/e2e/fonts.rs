//! The page's own CJK fonts (issue #30 item 12): in a Chromium that sees no CJK font at all
//! (a fontconfig of its own, with at most the Latin fonts of the machine), every piece glyph
//! of both games still draws, each one its own shape, and the board uses that font.

use std::path::{Path, PathBuf};

use qipu::web::Config;
use serde_json::json;

use super::{cdp::Browser, chromium, start_server};

/// A fontconfig file naming only the machine's Latin font folders that exist (none is fine:
/// then the browser has no system font at all).
fn latin_only_fontconfig(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("cache")).unwrap();
    let dirs: String = [
        "/usr/share/fonts/truetype/dejavu",
        "/usr/share/fonts/truetype/liberation",
    ]
    .iter()
    .filter(|d| Path::new(d).is_dir())
    .map(|d| format!("<dir>{d}</dir>"))
    .collect();
    let file = dir.join("fonts.conf");
    std::fs::write(
        &file,
        format!(
            "<?xml version=\"1.0\"?><!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\
             <fontconfig>{dirs}<cachedir>{}</cachedir></fontconfig>",
            dir.join("cache").display()
        ),
    )
    .unwrap();
    file
}

/// A script that draws each glyph of `glyphs` in `font` on a canvas and returns, per glyph,
/// the count of inked pixels and a fingerprint of the pixels.
fn ink_script(font: &str, glyphs: &str) -> String {
    format!(
        "(async () => {{ await document.fonts.load({font:?}, {glyphs:?}); \
         const c = document.createElement('canvas'); c.width = 64; c.height = 64; \
         const x = c.getContext('2d', {{ willReadFrequently: true }}); \
         return [...{glyphs:?}].map(g => {{ \
           x.clearRect(0, 0, 64, 64); x.font = {font:?}; x.fillStyle = '#000'; \
           x.fillText(g, 4, 52); const d = x.getImageData(0, 0, 64, 64).data; \
           let ink = 0, h = 0; \
           for (let i = 3; i < d.length; i += 4) {{ if (d[i] > 128) {{ ink++; h = (h * 31 + i) >>> 0; }} }} \
           return [ink, h]; }}); }})()"
    )
}

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn pieces_read_without_cjk_fonts_installed() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e/no-cjk");
    let conf = latin_only_fontconfig(&dir);
    let url = start_server(Config::default());
    let mut b = Browser::launch_with_env(&chromium, &[("FONTCONFIG_FILE", &conf)]);
    let s = b.open(&format!("{url}#variant=xiangqi"));
    b.wait_for(&s, "document.body.dataset.ready !== undefined", "the page");
    // The 14 Xiangqi glyphs and the Janggi ones the page adds (楚 漢 包).
    let glyphs = "帥仕相傌俥炮兵將士象馬車砲卒楚漢包";
    // The setup holds: the browser's own serif font has none of these glyphs (each is the
    // same missing-glyph box, or nothing).
    let system = b.eval(&s, &ink_script("bold 48px serif", glyphs));
    let system: Vec<(u64, u64)> = serde_json::from_value(system).unwrap();
    let boxes: std::collections::HashSet<_> = system.iter().collect();
    assert!(
        boxes.len() <= 2,
        "the browser still finds CJK fonts, the test proves nothing: {system:?}"
    );
    // The page's board font draws every glyph, each one its own shape.
    let shipped = b.eval(&s, &ink_script("bold 48px QipuBoard", glyphs));
    let shipped: Vec<(u64, u64)> = serde_json::from_value(shipped).unwrap();
    let distinct: std::collections::HashSet<_> = shipped.iter().map(|p| p.1).collect();
    assert_eq!(distinct.len(), glyphs.chars().count(), "{shipped:?}");
    assert!(
        shipped.iter().all(|p| p.0 > 150),
        "a glyph with almost no ink: {shipped:?}"
    );
    // The text font covers the Chinese notation of the move table.
    let text = b.eval(&s, &ink_script("48px QipuText", "炮二平五马八进七"));
    let text: Vec<(u64, u64)> = serde_json::from_value(text).unwrap();
    let distinct: std::collections::HashSet<_> = text.iter().map(|p| p.1).collect();
    assert_eq!(distinct.len(), 8, "{text:?}");
    // And the board draws its pieces in it.
    let family = b.eval(
        &s,
        "getComputedStyle(document.querySelector('#board .piece text')).fontFamily",
    );
    assert_eq!(family, json!("QipuBoard, serif"));
    b.screenshot(&s, &dir.join("board-without-cjk-fonts.png"));
}
