//! The page at a desktop width and at a narrow one (issue #30 item 13): on the bundled sample
//! with a book loaded, at 1400 and at 800 CSS pixels, nothing scrolls sideways (the page, the
//! move table, its date cells), the side select shows the side the URL names, and the history
//! chart labels its axes and keeps its bars to the months of its range. Screenshots go to
//! `target/e2e/layout-*.png`.

use std::{path::PathBuf, process::Command};

use qipu::web::Config;
use serde_json::json;

use super::{cdp::Browser, chromium, shots, start_server};

/// The bundled sample imported by the binary, once per test run.
fn sample_db() -> PathBuf {
    let db = shots().join(format!("layout-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&db);
    std::fs::create_dir_all(shots()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .arg("import")
        .arg(crate::common::fixture("../../data"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// What overflows sideways: the page, the move table's box, and any of its cells.
const OVERFLOW: &str = "(() => { \
    const doc = document.documentElement; \
    const wrap = document.querySelector('.table-wrap'); \
    const cut = [...document.querySelectorAll('#moves td')] \
      .filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.textContent); \
    return { page: doc.scrollWidth - window.innerWidth, \
             table: wrap.scrollWidth - wrap.clientWidth, cut }; })()";

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn the_page_fits_1400_and_800_pixels() {
    let Some(chromium) = chromium() else {
        return;
    };
    let db = sample_db();
    let url = start_server(Config {
        db: Some(db.clone()),
        books: vec![(
            "BOOK.DAT".to_string(),
            crate::web::eleeye_book("LAYOUT.DAT"),
        )],
        ..Config::default()
    });
    let mut b = Browser::launch(&chromium);
    let s = b.open(&format!("{url}#variant=xiangqi"));
    for (width, height) in [(1400, 1000), (800, 1200)] {
        b.viewport(&s, width, height, false);
        b.wait_for(
            &s,
            "document.querySelectorAll('#moves tbody tr[data-move]').length > 0",
            "the move table",
        );
        b.wait_for(
            &s,
            "!document.getElementById('history').hidden",
            "the history",
        );
        let over = b.eval(&s, OVERFLOW);
        assert_eq!(
            over,
            json!({"page": 0, "table": 0, "cut": []}),
            "at {width} px"
        );
        b.screenshot(&s, &shots().join(format!("layout-{width}.png")));
    }
    // The history chart (the sample's dated games span 1997 to 2010): a label on each axis,
    // and bars no wider than 40 px.
    let chart = b.eval(
        &s,
        "(() => { const svg = document.getElementById('history-chart'); \
           const bars = [...svg.querySelectorAll('g.month rect')].map(r => r.getBBox().width); \
           return { y: !!svg.querySelector('text.y-axis'), x: svg.querySelectorAll('text.x-axis').length, \
                    widest: Math.max(...bars), width: svg.getBBox().width }; })()",
    );
    assert_eq!(chart["y"], json!(true), "{chart}");
    assert!(chart["x"].as_u64().unwrap() >= 1, "{chart}");
    assert!(
        chart["widest"].as_f64().unwrap() <= 40.0,
        "a bar wider than 40 px: {chart}"
    );
    // The side as the API spells it too (`red`): the select shows Red, and the player's
    // (許銀川, percent-encoded) table fits too.
    let s = b.open(&format!(
        "{url}#variant=xiangqi&player=%E8%A8%B1%E9%8A%80%E5%B7%9D&side=red"
    ));
    b.viewport(&s, 800, 1200, false);
    b.wait_for(
        &s,
        "document.querySelectorAll('#moves tbody tr[data-move]').length > 0",
        "the player's move table",
    );
    assert_eq!(
        b.eval(&s, "document.getElementById('f-side').value"),
        json!("first")
    );
    assert_eq!(
        b.eval(&s, OVERFLOW),
        json!({"page": 0, "table": 0, "cut": []})
    );
    let _ = std::fs::remove_file(&db);
}
