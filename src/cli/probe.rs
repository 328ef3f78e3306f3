//! `qipu probe`: the moves a book stores for a position.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Args;
use serde_json::json;

use super::{
    position_args::{PositionArgs, RulesArg, VariantArg},
    CliError, Context,
};
use crate::{
    book::{Book, BookError, BookFacts, Probed},
    rules::{AnyPosition, Variant},
};

/// Arguments of `qipu probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The book: ElephantEye BOOK.DAT, BHGUI .obk or a qipu book (recognised from the content).
    #[arg(long)]
    book: PathBuf,
    /// The game (default: the book's; Xiangqi for BOOK.DAT and .obk).
    #[arg(long, value_enum)]
    variant: Option<VariantArg>,
    /// Start position (default: the standard start).
    #[arg(long)]
    fen: Option<String>,
    /// Moves played from the start, in any supported notation.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Print one JSON document.
    #[arg(long)]
    json: bool,
}

/// Runs `qipu probe`. Exit code 1 when the book has no move for the position.
pub fn probe(args: &ProbeArgs) -> Result<ExitCode, CliError> {
    let in_book = |e| Context::new(args.book.display().to_string(), e);
    let book = Book::open(&args.book).map_err(|e| book_error(&args.book, e))?;
    let variant = match (args.variant, &book) {
        (Some(VariantArg::Janggi), _) => VariantArg::Janggi,
        (Some(VariantArg::Xiangqi), _) => VariantArg::Xiangqi,
        (None, Book::Qipu(q)) if q.header().variant == Variant::Janggi => VariantArg::Janggi,
        (None, _) => VariantArg::Xiangqi,
    };
    let pos = PositionArgs {
        variant,
        fen: args.fen.clone(),
        moves: args.moves.clone(),
        rules: RulesArg::Server,
    }
    .position()?;
    let probed = book.probe(&pos).map_err(in_book)?;
    let facts = book.facts().map_err(|e| book_error(&args.book, e))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", to_json(args, &facts, &pos, &probed))?;
    } else {
        write_text(&mut out, &book, &facts, &pos, &probed)?;
    }
    if probed.moves.is_empty() {
        if !args.json {
            eprintln!("qipu: no book move for {}", pos.fen());
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A book's error with its path: `X is not a BOOK.DAT book: why` for a file read as a book
/// of a format it is not, `X: error` otherwise.
pub(super) fn book_error(path: &Path, e: BookError) -> CliError {
    match e {
        BookError::NotFormat { format, why } => {
            format!("{} is not a {} book: {why}", path.display(), format.label()).into()
        }
        e => Context::new(path.display().to_string(), e).into(),
    }
}

/// The book's facts, the position, a header naming the columns, then one move a line:
/// `move weight`, and when the book counts games `games +wins =draws -losses` (from the side
/// to move's view).
fn write_text(
    out: &mut impl Write,
    book: &Book,
    facts: &BookFacts,
    pos: &AnyPosition,
    probed: &Probed,
) -> std::io::Result<()> {
    let mirrors = match facts.mirror_merged {
        Some(true) => "mirror images merged",
        Some(false) => "mirror images kept apart",
        None => "whether mirror images were merged is not recorded",
    };
    writeln!(
        out,
        "# {} book ({}), {}: {} positions, {} records; {mirrors}",
        book.format().label(),
        book.format().name(),
        book.variant().name(),
        facts.positions,
        facts.records
    )?;
    writeln!(
        out,
        "# position {}{}",
        pos.fen(),
        if probed.mirrored {
            " (moves found under its mirror image)"
        } else {
            ""
        }
    )?;
    if probed.moves.is_empty() {
        return Ok(());
    }
    let counted = probed.moves.iter().any(|m| m.counts.is_some());
    write!(out, "{:<6} {:>7}", "move", "weight")?;
    if counted {
        write!(
            out,
            " {:>7} {:>7} {:>7} {:>7}",
            "games", "+wins", "=draws", "-losses"
        )?;
    }
    writeln!(out)?;
    for m in &probed.moves {
        write!(out, "{:<6} {:>7}", m.mv.to_string(), m.weight)?;
        if let Some(c) = m.counts {
            let games = c.games.map_or("—".to_string(), |g| g.to_string());
            write!(
                out,
                " {games:>7} {:>7} {:>7} {:>7}",
                format!("+{}", c.wins),
                format!("={}", c.draws),
                format!("-{}", c.losses)
            )?;
        } else if counted {
            write!(out, " {:>7} {:>7} {:>7} {:>7}", "—", "", "", "")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn to_json(
    args: &ProbeArgs,
    facts: &BookFacts,
    pos: &AnyPosition,
    probed: &Probed,
) -> serde_json::Value {
    let moves: Vec<serde_json::Value> = probed
        .moves
        .iter()
        .map(|m| {
            let mut v = json!({"move": m.mv.to_string(), "weight": m.weight});
            if let (Some(c), Some(obj)) = (m.counts, v.as_object_mut()) {
                obj.insert("games".into(), json!(c.games));
                obj.insert("wins".into(), json!(c.wins));
                obj.insert("draws".into(), json!(c.draws));
                obj.insert("losses".into(), json!(c.losses));
            }
            v
        })
        .collect();
    json!({
        "book": args.book.display().to_string(),
        "format": facts.format,
        "book_variant": facts.variant,
        "records": facts.records,
        "positions": facts.positions,
        "mirror_merged": facts.mirror_merged,
        "variant": pos.variant().name(),
        "fen": pos.fen(),
        "mirrored": probed.mirrored,
        "moves": moves,
    })
}
