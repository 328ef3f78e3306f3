//! The player dossier on the page (issue #29 item 3): a player's name in the game lists opens
//! their dossier, whose results as Red and as Black are the ones `tests/dossier.rs` counts
//! from its hand-made games. Screenshot: `target/e2e/dossier.png`.

use super::{chromium, open_db_page, shots};
use crate::dossier::{imported, mine, wdl};

#[test]
#[ignore = "needs chromium (run by .ci/run)"]
fn a_name_in_the_game_list_opens_the_dossier() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let (mut b, s) = open_db_page(&chromium, db, (1200, 900));
    b.wait_for(
        &s,
        "!!document.querySelector('#games .player-link[data-player=\"胡榮華\"]')",
        "player links in the top games",
    );
    b.click_selector(&s, "#games .player-link[data-player=\"胡榮華\"]");
    b.wait_for(
        &s,
        "document.getElementById('player-dialog').open && \
         document.getElementById('player-first').textContent !== ''",
        "the dossier",
    );
    let games = mine(|_| true);
    for (side, id, word) in [(0, "player-first", "Red"), (1, "player-second", "Black")] {
        let (n, w, d, l) = wdl(games.iter().filter(|m| m.side == side));
        let text = b.eval(&s, &format!("document.getElementById('{id}').textContent"));
        let text = text.as_str().unwrap_or_default().to_string();
        let want = format!("as {word}: {n} games · +{w} ={d} −{l}");
        assert!(text.starts_with(&want), "{text} / {want}");
    }
    let title = b.eval(&s, "document.getElementById('player-title').textContent");
    assert_eq!(
        title.as_str(),
        Some(format!("胡榮華 · {} games", games.len()).as_str())
    );
    b.screenshot(&s, &shots().join("dossier.png"));
}
