//! End-to-end test of the explorer page in headless Chromium (Debian's `chromium`), driven over
//! the DevTools protocol: load the page, move pieces on the board, click a move in the table,
//! check that the board and the table follow; screenshots go to `target/e2e/`.

mod cdp;

use std::path::PathBuf;

use qipu::web::Config;
use serde_json::{json, Value};

use cdp::{find_chromium, Browser};

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e")
}

fn start_server(config: Config) -> String {
    format!("http://{}/", crate::common::start_server(config))
}

/// What the page shows: FEN, pieces on the board, rows of the move table, the line.
fn snapshot(b: &mut Browser, s: &str) -> Value {
    b.eval(
        s,
        "({fen: document.getElementById('fen').textContent, \
           pieces: [...document.querySelectorAll('#board .piece')] \
             .map(p => p.dataset.square + p.dataset.piece).sort(), \
           rows: [...document.querySelectorAll('#moves tbody tr[data-move]')] \
             .map(r => r.dataset.move), \
           line: [...document.querySelectorAll('#line li')].map(l => l.textContent)})",
    )
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
const AFTER_H2E2: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn board_moves_in_the_browser() {
    let Some(chromium) = find_chromium() else {
        eprintln!("skipped: chromium not found (apt-get install -y chromium)");
        return;
    };
    let url = start_server(Config::default());
    let mut b = Browser::launch(&chromium);
    let s = b.open(&format!("{url}#variant=xiangqi"));
    b.viewport(&s, 1200, 900, false);
    b.wait_for(&s, "document.body.dataset.ready !== undefined", "the page");
    let before = snapshot(&mut b, &s);
    assert_eq!(before["fen"], START);
    assert_eq!(before["pieces"].as_array().unwrap().len(), 32);

    // Select the cannon on h2: the legal targets appear; e2 is one of them.
    b.click_selector(&s, "#board .piece[data-square='h2']");
    b.wait_for(
        &s,
        "!!document.querySelector('[data-target=\"e2\"]')",
        "targets",
    );
    let targets = b.eval(
        &s,
        "[...document.querySelectorAll('[data-target]')].map(t => t.dataset.target).sort()",
    );
    // The cannon on h2 moves along the h-file to h1 and up to h6, jumps h7 to take h9, or
    // along rank 2 to i2 and leftwards up to c2 (the other cannon stands on b2).
    let expected: Vec<&str> = vec![
        "c2", "d2", "e2", "f2", "g2", "h1", "h3", "h4", "h5", "h6", "h9", "i2",
    ];
    assert_eq!(targets, json!(expected));
    b.click_selector(&s, "[data-target='e2']");
    b.wait_for(
        &s,
        &format!("document.getElementById('fen').textContent === {AFTER_H2E2:?}"),
        "the board after h2e2",
    );
    let after = snapshot(&mut b, &s);
    assert!(after["pieces"].as_array().unwrap().contains(&json!("e2C")));
    assert!(!after["pieces"].as_array().unwrap().contains(&json!("h2C")));
    // The line is written in the chosen notation (Chinese by default).
    assert_eq!(after["line"], json!(["1.炮二平五"]));
    b.screenshot(&s, &shots().join("xiangqi-desktop.png"));

    // A phone-sized screen: the board still fits the width.
    b.viewport(&s, 390, 844, true);
    let fits = b.eval(
        &s,
        "document.getElementById('board').getBoundingClientRect().width <= 390 && \
         document.documentElement.scrollWidth <= 390",
    );
    assert_eq!(fits, json!(true), "the page is wider than a phone");
    b.screenshot(&s, &shots().join("xiangqi-phone.png"));
    b.viewport(&s, 1200, 900, false);

    // An illegal target does nothing: the black rook a9 cannot reach a5 through a6.
    b.click_selector(&s, "#board .piece[data-square='a9']");
    b.click_selector(&s, "#board .piece[data-square='a6']");
    let same = snapshot(&mut b, &s);
    assert_eq!(same["fen"], AFTER_H2E2);

    // Back, flip, then the Janggi board.
    b.click_selector(&s, "#back");
    b.wait_for(
        &s,
        &format!("document.getElementById('fen').textContent === {START:?}"),
        "back",
    );
    b.click_selector(&s, "#flip");
    b.screenshot(&s, &shots().join("xiangqi-flipped.png"));
    b.eval(
        &s,
        "(() => { const v = document.getElementById('variant'); v.value = 'janggi'; \
          v.dispatchEvent(new Event('change')); return true; })()",
    );
    b.wait_for(
        &s,
        "document.getElementById('fen').textContent.startsWith('rnba1abnr/4k4')",
        "the Janggi start",
    );
    b.click_selector(&s, "#flip");
    b.click_selector(&s, "#board .piece[data-square='b0']");
    b.wait_for(
        &s,
        "!!document.querySelector('[data-target=\"c2\"]')",
        "horse targets",
    );
    b.screenshot(&s, &shots().join("janggi.png"));
}

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn move_table_in_the_browser() {
    let Some(chromium) = find_chromium() else {
        eprintln!("skipped: chromium not found (apt-get install -y chromium)");
        return;
    };
    let url = start_server(Config {
        db: Some(super::web::test_db("e2e")),
        ..Config::default()
    });
    let mut b = Browser::launch(&chromium);
    let s = b.open(&format!("{url}#variant=xiangqi"));
    b.viewport(&s, 1200, 900, false);
    b.wait_for(
        &s,
        "document.querySelectorAll('#moves tbody tr[data-move]').length > 0",
        "the move table",
    );
    let before = snapshot(&mut b, &s);
    assert_eq!(before["fen"], START);
    // The test database's start position: h2e2 in 3 games, c3c4 in 1.
    assert_eq!(before["rows"], json!(["h2e2", "c3c4"]));
    let first_cell = b.eval(
        &s,
        "document.querySelector('#moves tbody td.mv').textContent",
    );
    assert_eq!(first_cell, json!("炮二平五"));
    b.screenshot(&s, &shots().join("explorer-start.png"));

    // Click the first move of the table: the board and the table move on.
    b.click_selector(&s, "#moves tbody tr[data-move='h2e2'] td.mv");
    b.wait_for(
        &s,
        &format!("document.getElementById('fen').textContent === {AFTER_H2E2:?}"),
        "the board after clicking h2e2",
    );
    b.wait_for(
        &s,
        "document.querySelector('#moves tbody tr[data-move]')?.dataset.move === 'h9g7'",
        "the table after h2e2",
    );
    let after = snapshot(&mut b, &s);
    assert_eq!(after["rows"], json!(["h9g7", "b9c7"]));
    assert!(after["pieces"].as_array().unwrap().contains(&json!("e2C")));
    assert_eq!(after["line"], json!(["1.炮二平五"]));
    // Switch the notation to WXF: table and line follow.
    b.eval(
        &s,
        "(() => { const n = document.getElementById('notation'); n.value = 'wxf'; \
          n.dispatchEvent(new Event('change')); return true; })()",
    );
    let wxf = b.eval(
        &s,
        "document.querySelector('#moves tbody td.mv').textContent",
    );
    assert_eq!(wxf, json!("H8+7"));
    b.screenshot(&s, &shots().join("explorer-after-h2e2.png"));

    // A top game opens its record.
    b.click_selector(&s, "#games li[data-game]");
    b.wait_for(
        &s,
        "document.getElementById('game-dialog').open && \
         document.getElementById('game-pgn').textContent.includes('[Format \"ICCS\"]')",
        "the game record",
    );
    b.screenshot(&s, &shots().join("explorer-game.png"));
    b.viewport(&s, 390, 844, true);
    b.click_selector(&s, "#game-dialog button[type=submit]");
    b.screenshot(&s, &shots().join("explorer-phone.png"));
}
