//! `qipu players` through the binary: with no pattern it lists every player (issue #30,
//! item 11: its help says "none or empty: every player").

use std::process::Command;

#[test]
fn players_without_a_pattern_lists_every_player() {
    let dir = std::env::temp_dir().join(format!("qipu-players-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("g.pgn");
    // Three games, four distinct players (written by hand: the expected count).
    std::fs::write(
        &pgn,
        "[Red \"Hu Ronghua\"]\n[Black \"Lu Qin\"]\n1. h2e2 h9g7 1-0\n\n\
         [Red \"Xu Yinchuan\"]\n[Black \"Zhao Guorong\"]\n1. b2e2 h9g7 0-1\n\n\
         [Red \"Hu Ronghua\"]\n[Black \"Zhao Guorong\"]\n1. c3c4 h9g7 1/2-1/2\n",
    )
    .unwrap();
    let db = dir.join("p.db");
    let bin = env!("CARGO_BIN_EXE_qipu");
    let st = Command::new(bin)
        .args([
            "import",
            pgn.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let out = Command::new(bin)
        .args(["players", "--db", db.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let players = doc["players"].as_array().unwrap();
    assert_eq!(players.len(), 4);
    assert_eq!(players[0]["games"], 2);
    let _ = std::fs::remove_dir_all(&dir);
}
