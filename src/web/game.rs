//! `GET /api/games/{id}`: a stored game as JSON, with its PGN text.

use serde::Serialize;

use crate::{
    formats::{Source, Tags},
    rules::{Move, Outcome, Variant},
};

/// The JSON of `GET /api/games/{id}`.
#[derive(Clone, Debug, Serialize)]
pub struct GameJson {
    /// Database id.
    pub id: i64,
    /// `xiangqi` or `janggi`.
    pub variant: &'static str,
    /// Start position.
    pub start_fen: String,
    /// The standard start of the variant (the page compares it with `start_fen`).
    pub standard_fen: &'static str,
    /// The moves, canonical.
    pub moves: Vec<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'static str,
    /// Header tags as PGN names and values, in PGN order.
    pub tags: Vec<(String, String)>,
    /// The file the game was imported from, and its index there.
    pub source: SourceJson,
    /// The game as PGN (moves in ICCS coordinates, `H2-E2`).
    pub pgn: String,
}

/// Where a game came from.
#[derive(Clone, Debug, Serialize)]
pub struct SourceJson {
    /// File path (`archive.zip:inner/path` inside archives).
    pub file: String,
    /// 0-based index of the game in the file.
    pub index: usize,
}

/// The parts of a stored game.
#[derive(Clone, Copy, Debug)]
pub struct GameParts<'a> {
    /// Database id.
    pub id: i64,
    /// The game.
    pub variant: Variant,
    /// Start FEN.
    pub start_fen: &'a str,
    /// Moves.
    pub moves: &'a [Move],
    /// Result.
    pub result: Option<Outcome>,
    /// Header.
    pub tags: &'a Tags,
    /// Origin.
    pub source: &'a Source,
}

/// The header as PGN tag pairs: the seven-tag roster first (sides named Red/Black or
/// Cho/Han), then the other normalised tags.
pub fn tag_pairs(variant: Variant, tags: &Tags, result: Option<Outcome>) -> Vec<(String, String)> {
    let (first, second) = match variant {
        Variant::Xiangqi => ("Red", "Black"),
        Variant::Janggi => ("Cho", "Han"),
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.trim().is_empty()) {
            out.push((k.to_string(), v));
        }
    };
    put("Event", tags.event.clone());
    put("Site", tags.site.clone());
    put("Date", tags.date.clone());
    put("Round", tags.round.clone());
    put(first, tags.first.clone());
    put(second, tags.second.clone());
    put("Result", Some(result.map_or("*", Outcome::pgn).to_string()));
    put(&format!("{first}Team"), tags.first_team.clone());
    put(&format!("{second}Team"), tags.second_team.clone());
    put(
        &format!("{first}Elo"),
        tags.first_rating.map(|r| r.to_string()),
    );
    put(
        &format!("{second}Elo"),
        tags.second_rating.map(|r| r.to_string()),
    );
    put("ECCO", tags.ecco.clone());
    put("Opening", tags.opening.clone());
    put("Variation", tags.variation.clone());
    put(&format!("{first}Formation"), tags.first_formation.clone());
    put(&format!("{second}Formation"), tags.second_formation.clone());
    out
}

/// A move in ICCS form: `H2-E2`, or `pass`.
fn iccs(m: Move) -> String {
    match (m.from(), m.to()) {
        (Some(f), Some(t)) => format!("{f}-{t}").to_ascii_uppercase(),
        _ => m.to_string(),
    }
}

/// Escapes a PGN tag value.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\r', '\n'], " ")
}

impl GameJson {
    /// Builds the answer.
    pub fn new(g: GameParts<'_>) -> GameJson {
        let tags = tag_pairs(g.variant, g.tags, g.result);
        let result = g.result.map_or("*", Outcome::pgn);
        let standard = g.variant.start_fen();
        let mut pgn = String::new();
        let mut header = tags.clone();
        if g.variant == Variant::Janggi {
            header.push(("Variant".to_string(), "Janggi".to_string()));
        }
        if g.start_fen != standard {
            header.push(("SetUp".to_string(), "1".to_string()));
            header.push(("FEN".to_string(), g.start_fen.to_string()));
        }
        header.push(("Format".to_string(), "ICCS".to_string()));
        for (k, v) in &header {
            pgn.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
        }
        pgn.push('\n');
        // Move numbers count from the side to move in the start position.
        let second_starts = g.start_fen.split_whitespace().nth(1) == Some("b");
        let mut text: Vec<String> = Vec::new();
        for (i, m) in g.moves.iter().enumerate() {
            let ply = i + usize::from(second_starts);
            if ply % 2 == 0 {
                text.push(format!("{}.", ply / 2 + 1));
            } else if i == 0 {
                text.push("1...".to_string());
            }
            text.push(iccs(*m));
        }
        text.push(result.to_string());
        // Lines of at most 80 characters.
        let mut line = String::new();
        for word in text {
            if !line.is_empty() && line.len() + 1 + word.len() > 80 {
                pgn.push_str(&line);
                pgn.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        pgn.push_str(&line);
        pgn.push('\n');
        GameJson {
            id: g.id,
            variant: g.variant.name(),
            start_fen: g.start_fen.to_string(),
            standard_fen: standard,
            moves: g.moves.iter().map(Move::to_string).collect(),
            result,
            tags,
            source: SourceJson {
                file: g.source.file.clone(),
                index: g.source.index,
            },
            pgn,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_xiangqi_game_from_the_start_in_pgn() {
        let tags = Tags {
            first: Some("呂欽".into()),
            ..Tags::default()
        };
        let moves: Vec<Move> = vec!["h2e2".parse().unwrap(), "h9g7".parse().unwrap()];
        let g = GameJson::new(GameParts {
            id: 7,
            variant: Variant::Xiangqi,
            start_fen: Variant::Xiangqi.start_fen(),
            moves: &moves,
            result: Some(Outcome::Draw),
            tags: &tags,
            source: &Source::default(),
        });
        assert!(g.pgn.contains("[Red \"呂欽\"]"), "{}", g.pgn);
        assert!(g.pgn.ends_with("1. H2-E2 H9-G7 1/2-1/2\n"), "{}", g.pgn);
    }

    #[test]
    fn janggi_from_a_set_up_position_with_second_to_move() {
        let tags = Tags {
            event: Some("a \"quoted\" cup".into()),
            first: Some("Kim".into()),
            second: Some("Lee".into()),
            first_rating: Some(1800),
            ..Tags::default()
        };
        let fen = "4k4/9/9/9/9/9/9/9/9/4K4 b - - 0 1";
        let moves: Vec<Move> = vec![Move::PASS, "e0d0".parse().unwrap()];
        let g = GameJson::new(GameParts {
            id: 1,
            variant: Variant::Janggi,
            start_fen: fen,
            moves: &moves,
            result: None,
            tags: &tags,
            source: &Source {
                file: "x.gib".into(),
                index: 3,
            },
        });
        assert_eq!(
            g.pgn,
            "[Event \"a \\\"quoted\\\" cup\"]\n[Cho \"Kim\"]\n[Han \"Lee\"]\n[Result \"*\"]\n\
             [ChoElo \"1800\"]\n[Variant \"Janggi\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\
             [Format \"ICCS\"]\n\n1... pass 2. E0-D0 *\n"
                .replace("{fen}", fen)
        );
        assert_eq!(g.moves, vec!["pass", "e0d0"]);
        assert_eq!(g.result, "*");
        assert_eq!(g.source.index, 3);
    }
}
