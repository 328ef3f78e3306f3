//! A book's W/D/L on the page (issue #32 item 5): with the qipu book of
//! `tests/web_books.rs` loaded, after 1. h2e2 the book panel shows h9g7 with its 4 games, a
//! bar of 1 Red win, 0 draws and 2 Black wins (Black to move: its wins are the mover's) and the
//! mover's score 66.7% ± 36.5, counted by hand from the games. Screenshot: `target/e2e/book-wdl.png`.

use qipu::web::Config;
use serde_json::json;

use super::{chromium, open_page, shots};

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn the_page_shows_a_book_moves_wdl() {
    let Some(chromium) = chromium() else {
        return;
    };
    let (mut b, s) = open_page(
        &chromium,
        Config {
            books: vec![("W.qbk".to_string(), crate::web_books::qipu_book("E2E.qbk"))],
            ..Config::default()
        },
        "variant=xiangqi&moves=h2e2",
        (1300, 900),
    );
    b.wait_for(
        &s,
        "!!document.querySelector('#books tr[data-book-move=\"h9g7\"]')",
        "the book's h9g7",
    );
    let row = b.eval(
        &s,
        "(() => { const r = document.querySelector('#books tr[data-book-move=\"h9g7\"]'); \
           return [r.cells[1].textContent, \
             [...r.querySelectorAll('.wdl span')].map(x => Math.round(10 * parseFloat(x.style.width)) / 10), \
             r.querySelector('td.score').textContent, \
             [...r.closest('table').querySelectorAll('th')].map(t => t.textContent)]; })()",
    );
    assert_eq!(
        row,
        json!([
            "4",
            [33.3, 0, 66.7],
            // 2/3 of 3 decided games: Wilson 95% interval 20.8%–93.9%, half its width 36.5.
            "66.7% ±36.5",
            ["Move", "Games", "Red · Draw · Black", "Score"]
        ])
    );
    b.screenshot(&s, &shots().join("book-wdl.png"));
}
