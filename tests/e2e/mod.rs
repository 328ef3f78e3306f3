//! End-to-end test of the explorer page in headless Chromium (Debian's `chromium`), driven over
//! the DevTools protocol: load the page, move pieces on the board, click a move in the table,
//! check that the board and the table follow; screenshots go to `target/e2e/`.

mod books;
mod cdp;
mod dossier;
mod fonts;
mod layout;
mod png;

use std::path::PathBuf;

use qipu::web::Config;
use serde_json::{json, Value};

use cdp::{find_chromium, Browser};

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e")
}

/// The browser, or `None` (saying the test is skipped) when none is installed.
fn chromium() -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        eprintln!("skipped: chromium not found (apt-get install -y chromium)");
    }
    found
}

fn start_server(config: Config) -> String {
    format!("http://{}/", crate::common::start_server(config))
}

/// Serves `config` and opens its page in a new browser at `#HASH`, in a desktop viewport
/// of `width` × `height`: (the browser, the page's session).
fn open_page(
    chromium: &std::path::Path,
    config: Config,
    hash: &str,
    (width, height): (u32, u32),
) -> (Browser, String) {
    let url = start_server(config);
    let mut b = Browser::launch(chromium);
    let s = b.open(&format!("{url}#{hash}"));
    b.viewport(&s, width, height, false);
    (b, s)
}

/// [`open_page`] on a database's explorer, Xiangqi.
fn open_db_page(chromium: &std::path::Path, db: PathBuf, size: (u32, u32)) -> (Browser, String) {
    let config = Config {
        db: Some(db),
        ..Config::default()
    };
    open_page(chromium, config, "variant=xiangqi", size)
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
    let Some(chromium) = chromium() else {
        return;
    };
    let (mut b, s) = open_page(&chromium, Config::default(), "variant=xiangqi", (1200, 900));
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
    let Some(chromium) = chromium() else {
        return;
    };
    let (mut b, s) = open_db_page(&chromium, super::web::test_db("e2e"), (1200, 900));
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

/// The rows of the move table, once they are `want`.
fn wait_rows(b: &mut Browser, s: &str, want: &[&str], what: &str) {
    let js = serde_json::to_string(want).unwrap();
    b.wait_for(
        s,
        &format!(
            "JSON.stringify([...document.querySelectorAll('#moves tbody tr[data-move]')] \
             .map(r => r.dataset.move)) === {js:?}"
        ),
        what,
    );
}

/// Sets a filter field and lets the form hear of it, as typing and leaving the field does.
fn set_filter(b: &mut Browser, s: &str, id: &str, value: &str) {
    b.eval(
        s,
        &format!(
            "(() => {{ const f = document.getElementById({id:?}); f.value = {value:?}; \
              f.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()"
        ),
    );
}

fn hash(b: &mut Browser, s: &str) -> String {
    let h = b.eval(s, "decodeURIComponent(location.hash)");
    h.as_str().unwrap().to_string()
}

/// The colours of the history chart's bars in the page (app.js `CHART`), for Xiangqi.
const RED_BAR: [u8; 3] = [0xc8, 0x10, 0x2e];
const DRAW_BAR: [u8; 3] = [0x9e, 0x9e, 0x9e];
const BLACK_BAR: [u8; 3] = [0x33, 0x33, 0x33];

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn filters_books_history_and_the_url_in_the_browser() {
    let Some(chromium) = chromium() else {
        return;
    };
    let (mut b, s) = open_page(
        &chromium,
        Config {
            db: Some(super::web::test_db("e2e-filters")),
            books: vec![("BOOK.DAT".to_string(), super::web::eleeye_book("E2E.DAT"))],
            ..Config::default()
        },
        "variant=xiangqi",
        (1300, 1400),
    );
    wait_rows(&mut b, &s, &["h2e2", "c3c4"], "the move table");
    assert_eq!(
        b.eval(&s, "document.getElementById('wdl-head').textContent"),
        json!("Red · Draw · Black")
    );
    // The server's new figures in the page: the history of the games dated to a month
    // (2007-01 to 2008-05: 17 months, the empty ones as zeros; the games of 1999 and 2010
    // have a year only), recent games, the games after each move and the score's interval.
    b.wait_for(
        &s,
        "!document.getElementById('history').hidden",
        "the history chart",
    );
    let shown = b.eval(
        &s,
        "[document.getElementById('history-chart').dataset.months,           document.querySelectorAll('#history-chart g.month rect').length,           document.querySelectorAll('#recent li[data-game]').length,           document.querySelector('#moves tr[data-move=\"h2e2\"] .after').textContent,           document.querySelector('#moves tr[data-move=\"h2e2\"] td.score').textContent.includes('±')]",
    );
    // Two bars: the Red win of 2007-01 and the draw of 2008-05.
    assert_eq!(shown, json!(["17", 2, 4, "→ 3", true]));
    let png = b.screenshot_element(&s, "#history-chart");
    let img = png::decode(&png);
    assert!(
        img.count(RED_BAR, 8) > 0 && img.count(DRAW_BAR, 8) > 0,
        "no bars in the chart"
    );

    // The book is shown beside the table: its two moves, to the right of the table.
    b.wait_for(
        &s,
        "document.querySelectorAll('#books tr[data-book-move]').length === 2",
        "the book's moves",
    );
    let book = b.eval(
        &s,
        "[...document.querySelectorAll('#books tr[data-book-move]')].map(r => r.dataset.book_move || r.dataset.bookMove).sort()",
    );
    assert_eq!(book, json!(["c3c4", "g3g4"]));
    let beside = b.eval(
        &s,
        "document.getElementById('books').getBoundingClientRect().left >= \
         document.querySelector('.table-wrap').getBoundingClientRect().right - 1 && \
         document.getElementById('books').getBoundingClientRect().top < \
         document.getElementById('moves').getBoundingClientRect().bottom",
    );
    assert_eq!(beside, json!(true), "the books are not beside the table");

    // A filter change: since 2008-01 leaves the games of 2008-05 and 2010 (both 1. h2e2),
    // and goes into the URL.
    set_filter(&mut b, &s, "f-since", "2008-01");
    wait_rows(&mut b, &s, &["h2e2"], "the table since 2008-01");
    assert!(
        hash(&mut b, &s).contains("since=2008-01"),
        "{}",
        hash(&mut b, &s)
    );
    let games = b.eval(
        &s,
        "document.querySelector('#moves tbody tr[data-move] td.num').textContent",
    );
    assert!(games.as_str().unwrap().starts_with("2 "), "{games}");
    // A player with a side: 呂欽 as Black played one game (2008-05, a draw).
    set_filter(&mut b, &s, "f-player", "呂欽");
    set_filter(&mut b, &s, "f-side", "second");
    b.wait_for(
        &s,
        "document.getElementById('totals').textContent.startsWith('1 games')",
        "the player's one game",
    );
    let h = hash(&mut b, &s);
    assert!(
        h.contains("player=呂欽") && h.contains("side=second"),
        "{h}"
    );
    b.screenshot(&s, &shots().join("explorer-filters.png"));

    // Back: the player filter goes, then the date; forward brings them back.
    b.eval(&s, "history.back(), true");
    b.wait_for(
        &s,
        "!location.hash.includes('side=')",
        "back to without the side",
    );
    b.eval(&s, "history.back(), true");
    b.wait_for(
        &s,
        "!location.hash.includes('player=')",
        "back to without the player",
    );
    b.eval(&s, "history.back(), true");
    wait_rows(&mut b, &s, &["h2e2", "c3c4"], "back to no filter");
    assert_eq!(
        b.eval(&s, "document.getElementById('f-since').value"),
        json!("")
    );
    b.eval(&s, "history.forward(), true");
    wait_rows(&mut b, &s, &["h2e2"], "forward to since 2008-01");
    assert_eq!(
        b.eval(&s, "document.getElementById('f-since').value"),
        json!("2008-01")
    );

    // A link reproduces the view: a new page at this URL shows the same filter and rows.
    let link = b.eval(&s, "location.href");
    let s2 = b.open(link.as_str().unwrap());
    b.viewport(&s2, 1300, 1400, false);
    wait_rows(&mut b, &s2, &["h2e2"], "the linked view");
    assert_eq!(
        b.eval(&s2, "document.getElementById('f-since').value"),
        json!("2008-01")
    );

    // Moves are history entries too: play h2e2, then back returns to the start.
    b.click_selector(&s2, "#moves tbody tr[data-move='h2e2'] td.mv");
    b.wait_for(
        &s2,
        "location.hash.includes('moves=h2e2')",
        "the move in the URL",
    );
    b.eval(&s2, "history.back(), true");
    b.wait_for(
        &s2,
        "!location.hash.includes('moves=')",
        "back to the start",
    );
    wait_rows(&mut b, &s2, &["h2e2"], "the start again");

    // The game dialog follows the chosen notation.
    set_filter(&mut b, &s2, "f-since", "");
    wait_rows(&mut b, &s2, &["h2e2", "c3c4"], "no filter");
    b.click_selector(&s2, "#games li[data-game]");
    b.wait_for(
        &s2,
        "document.getElementById('game-moves').dataset.notation === 'chinese'",
        "the game in Chinese",
    );
    let moves = b.eval(&s2, "document.getElementById('game-moves').textContent");
    assert!(
        moves.as_str().unwrap().starts_with("1. 炮二平五"),
        "{moves}"
    );
    b.eval(
        &s2,
        "(() => { const n = document.getElementById('notation'); n.value = 'wxf'; \
          n.dispatchEvent(new Event('change')); return true; })()",
    );
    let moves = b.eval(&s2, "document.getElementById('game-moves').textContent");
    assert!(moves.as_str().unwrap().starts_with("1. C2.5"), "{moves}");
    b.click_selector(&s2, "#game-dialog button[type=submit]");

    // The history chart: a hand-made history drawn as the page draws the server's (one
    // month of 2 Red wins, an empty month, a month of 1 draw and 1 Black win), then checked
    // in the DOM and in a screenshot of the chart's pixels.
    b.eval(
        &s2,
        "drawHistory([{month: '2007-01', games: 2, first_wins: 2, draws: 0, second_wins: 0}, \
                      {month: '2007-02', games: 0, first_wins: 0, draws: 0, second_wins: 0}, \
                      {month: '2007-03', games: 2, first_wins: 0, draws: 1, second_wins: 1}]), true",
    );
    let bars = b.eval(
        &s2,
        "[...document.querySelectorAll('#history-chart g.month')].map(g => \
           [g.dataset.month, [...g.querySelectorAll('rect')].map(r => r.getAttribute('fill'))])",
    );
    assert_eq!(
        bars,
        json!([
            ["2007-01", ["#c8102e"]],
            ["2007-02", []],
            ["2007-03", ["#9e9e9e", "#333333"]]
        ])
    );
    let png = b.screenshot_element(&s2, "#history-chart");
    std::fs::create_dir_all(shots()).unwrap();
    std::fs::write(shots().join("history-chart.png"), &png).unwrap();
    let img = png::decode(&png);
    let area = img.width * img.height;
    let (red, draw, black) = (
        img.count(RED_BAR, 8),
        img.count(DRAW_BAR, 8),
        img.count(BLACK_BAR, 8),
    );
    // The Red bar is full height, the draw and Black halves share the third month's: the Red
    // area is about twice each of the others, and each is a real share of the chart (a bar is
    // at most 40 px wide).
    assert!(red > area / 40, "red {red} of {area}");
    assert!(
        draw > area / 100 && black > area / 100,
        "draw {draw}, black {black} of {area}"
    );
    let ratio = red as f64 / draw as f64;
    assert!((1.6..2.5).contains(&ratio), "red {red} vs draw {draw}");
    // Nothing red in the empty middle third of the chart.
    let middle = (0..img.height)
        .flat_map(|y| (img.width * 2 / 5..img.width * 3 / 5).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = img.pixels[y * img.width + x];
            p.iter().zip(RED_BAR).all(|(a, b)| a.abs_diff(b) <= 8)
        })
        .count();
    assert_eq!(middle, 0, "red pixels in the empty month");
}

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn janggi_formations_in_the_browser() {
    let Some(chromium) = chromium() else {
        return;
    };
    let url = start_server(Config {
        db: Some(super::web::formation_db()),
        ..Config::default()
    });
    let mut b = Browser::launch(&chromium);
    let s = b.open(&format!("{url}#variant=janggi"));
    b.viewport(&s, 1200, 1000, false);
    wait_rows(&mut b, &s, &["e3d3"], "the default start's one game");
    assert_eq!(
        b.eval(&s, "document.getElementById('wdl-head').textContent"),
        json!("Cho · Draw · Han")
    );
    // The pairs the games started from, most games first, in the list and the selector.
    b.wait_for(
        &s,
        "document.querySelectorAll('#formation-list li').length === 3",
        "the formation list",
    );
    let listed = b.eval(
        &s,
        "[...document.querySelectorAll('#formation-list li')].map(l => l.dataset.setup)",
    );
    assert_eq!(
        listed,
        json!([
            "상마마상/마상상마",
            "마상상마/마상상마",
            "상마상마/마상마상"
        ])
    );
    let options = b.eval(
        &s,
        "[...document.getElementById('setup').options].map(o => o.value)",
    );
    assert_eq!(
        options,
        json!([
            "",
            "상마마상/마상상마",
            "마상상마/마상상마",
            "상마상마/마상마상"
        ])
    );
    // Choose 상마마상/마상상마: its start on the board, its two games in the table, in the URL.
    b.eval(
        &s,
        "(() => { const v = document.getElementById('setup'); v.value = '상마마상/마상상마'; \
          v.dispatchEvent(new Event('change')); return true; })()",
    );
    wait_rows(
        &mut b,
        &s,
        &["a3b3", "e3d3"],
        "the chosen formations' games",
    );
    let fen = b.eval(&s, "document.getElementById('fen').textContent");
    assert_eq!(
        fen,
        json!("rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1")
    );
    assert!(hash(&mut b, &s).contains("setup=상마마상/마상상마"));
    b.screenshot(&s, &shots().join("janggi-formations.png"));
    // A link with the names instead of the letters opens the same start.
    let s2 = b.open(&format!("{url}#variant=janggi&setup=outer/inner"));
    wait_rows(&mut b, &s2, &["a3b3", "e3d3"], "the linked formations");
    assert_eq!(
        b.eval(&s2, "document.getElementById('fen').textContent"),
        fen
    );
    // Back to the default start.
    b.eval(&s, "history.back(), true");
    wait_rows(&mut b, &s, &["e3d3"], "back to the default start");
    assert_eq!(
        b.eval(&s, "document.getElementById('setup').value"),
        json!("")
    );
}

/// Every field of the explorer's answer as the page draws it: a hand-made answer (the
/// fields of issue #13, values chosen so each cell's text can be worked out by hand) given
/// to the page's own drawing code, then the table, the rows below it and the lists read back.
#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn answer_fields_in_the_browser() {
    let Some(chromium) = chromium() else {
        return;
    };
    let (mut b, s) = open_db_page(&chromium, super::web::test_db("e2e-fields"), (1300, 1200));
    wait_rows(&mut b, &s, &["h2e2", "c3c4"], "the move table");
    let game = |id: u32, first: &str| json!({"id": id, "first": first, "second": "B", "result": "1-0", "date": "2001-02-03", "event": "Cup"});
    let answer = json!({
        "variant": "xiangqi", "fen": START, "key": "0", "games": 10, "decided": 8,
        "first_wins": 4, "draws": 2, "second_wins": 2, "opening": null, "no_games": null,
        "moves": [{
            "move": "h2e2", "notation": {"chinese": "炮二平五", "wxf": "C2.5"},
            "games": 6, "decided": 5, "first_wins": 3, "draws": 1, "second_wins": 1,
            "score": 0.7, "score_low": 0.3, "score_high": 0.9,
            "avg_rating": 2412.4, "avg_opponent_rating": 2388.6,
            "first_date": "1990-05", "first_game": game(7, "Early"), "last_date": "2020-01",
            "games_after": 15, "transposed": true
        }, {
            "move": "c3c4", "notation": {"chinese": "兵七进一", "wxf": "P7+1"},
            "games": 3, "decided": 2, "first_wins": 1, "draws": 1, "second_wins": 0,
            "score": 0.75, "score_low": null, "score_high": null, "avg_rating": null,
            "avg_opponent_rating": null, "first_date": null, "first_game": null,
            "last_date": null, "games_after": 3, "transposed": false
        }],
        "others": {"moves": 2, "games": 1, "decided": 1, "first_wins": 0, "draws": 0, "second_wins": 1, "score": 0.0},
        "ended": {"games": 4, "decided": 4, "first_wins": 1, "draws": 3, "second_wins": 0,
                  "how": {"mate": 1, "agreement": 3, "resignation": 0, "unknown": 0}},
        "history": [{"month": "2019-12", "games": 1, "first_wins": 1, "draws": 0, "second_wins": 0},
                    {"month": "2020-01", "games": 1, "first_wins": 0, "draws": 0, "second_wins": 0}],
        "top_games": [game(1, "Top")],
        "recent_games": [game(2, "Recent"), game(3, "Later")],
        "player": {"games": 5, "wins": 3, "draws": 1, "losses": 1, "score": 0.7,
                   "avg_opponent_rating": 2300.0, "performance": 2449}
    });
    b.eval(
        &s,
        &format!(
            "(() => {{ state.filters = {{player: 'P'}}; state.explore = {answer}; drawExplore(); return true; }})()"
        ),
    );
    let cells = b.eval(
        &s,
        "[...document.querySelectorAll('#moves tbody tr')].map(r => \
           [r.className, ...[...r.cells].map(c => c.textContent)])",
    );
    assert_eq!(
        cells,
        json!([
            // 6 of 10 games; 15 through the position after it, mostly reached otherwise (⇄);
            // score 70.0% ± half of 90 − 30; mover 2412, opponent 2389; first and last date.
            [
                "",
                "炮二平五",
                "6 60%→ 15⇄",
                "60%20%20%",
                "70.0% ±30.0",
                "2412 / 2389",
                "–",
                "1990-05 · 2020-01"
            ],
            [
                "",
                "兵七进一",
                "3 30%→ 3",
                "50%50%",
                "75.0%",
                "– / –",
                "–",
                "–"
            ],
            [
                "others",
                "others (2 moves)",
                "1",
                "100%",
                "0.0%",
                "",
                "",
                ""
            ],
            [
                "ended",
                "ended here",
                "4",
                "25%75%",
                "how they ended: mate 1 · draw agreed 3"
            ]
        ])
    );
    assert_eq!(
        b.eval(
            &s,
            "document.querySelector('#moves [data-transposed]') !== null"
        ),
        json!(true)
    );
    let lists = b.eval(
        &s,
        "[[...document.querySelectorAll('#games li')].map(l => l.dataset.game), \
          [...document.querySelectorAll('#recent li')].map(l => l.dataset.game), \
          document.getElementById('player-line').textContent, \
          document.getElementById('history-chart').dataset.months]",
    );
    assert_eq!(
        lists,
        json!([
            ["1"],
            ["2", "3"],
            "P: +3 =1 −1 of 5 · score 70.0% · performance 2449 (FIDE table 8.1.2)",
            "2"
        ])
    );
    // The first game's date opens that game (id 7 is not in the test database: the page
    // says so instead of opening the dialog).
    b.click_selector(&s, "#moves a.first-game");
    b.wait_for(
        &s,
        "document.getElementById('explore-note').textContent.startsWith('Game 7:')",
        "the first game asked for",
    );
    b.screenshot(&s, &shots().join("explorer-fields.png"));
}

/// Issue #15 item 4 on the page: each move's stored engine score in the table (the depth and
/// engine in the cell's title, `–` for a move the engine has not scored), and the engine's
/// own choice that no game played, with its score, below the totals.
#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn engine_evals_in_the_browser() {
    use qipu::{
        formats::facts::Score,
        rules::{AnyPosition, Variant},
        store::{evals::EvalRow, Store},
    };
    let Some(chromium) = chromium() else {
        return;
    };
    // The test database's games play h2e2 and c3c4 at the start; the engine scored h2e2,
    // not c3c4, and its own choice there, b2e2, was never played.
    let db = super::web::test_db("e2e-evals");
    {
        let mut store = Store::open(&db).unwrap();
        let engine = store.eval_engine("hand", "").unwrap();
        let row = |mv: &str, cp: i32, depth: u32| EvalRow {
            mv: mv.parse().unwrap(),
            score: Score::Cp(cp),
            depth,
        };
        let start = AnyPosition::new(Variant::Xiangqi).key();
        store
            .write_position_evals(
                engine,
                start,
                Some((Some("b2e2".parse().unwrap()), 12)),
                &[row("h2e2", 31, 12), row("b2e2", 40, 12)],
            )
            .unwrap();
    }
    let (mut b, s) = open_db_page(&chromium, db, (1300, 1000));
    wait_rows(&mut b, &s, &["h2e2", "c3c4"], "the move table");
    b.wait_for(
        &s,
        "document.querySelector('[data-engine-best]') !== null",
        "the engine's choice",
    );
    // Per move: the text and title of its eval cell (the one whose title speaks of scores).
    let evals = b.eval(
        &s,
        "Object.fromEntries([...document.querySelectorAll('#moves tbody tr[data-move]')] \
           .map(r => { const c = [...r.cells].find(c => /^depth |^no engine score/.test(c.title)); \
                       return [r.dataset.move, c ? [c.textContent, c.title] : null]; }))",
    );
    assert_eq!(
        evals,
        json!({
            "h2e2": ["+31", "depth 12, hand"],
            "c3c4": ["–", "no engine score stored"],
        })
    );
    let best = b.eval(
        &s,
        "(() => { const e = document.querySelector('[data-engine-best]'); \
                  return [e.dataset.engineBest, e.textContent]; })()",
    );
    assert_eq!(best[0], "b2e2");
    let text = best[1].as_str().unwrap();
    assert!(
        text.starts_with("Engine's choice: ")
            && text.ends_with(" +40 (depth 12, hand) — never played here"),
        "{text}"
    );
}
