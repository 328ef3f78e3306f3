//! `qipu probe`: the moves a book stores for a position.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
};

use clap::Args;
use serde_json::json;

use super::{
    position_args::{PositionArgs, RulesArg, VariantArg},
    CliError, Context,
};
use crate::{
    book::{Book, BookFacts, Probed},
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
    let book = Book::open(&args.book).map_err(in_book)?;
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
    let mut out = std::io::stdout().lock();
    if args.json {
        let facts = book.facts().map_err(in_book)?;
        writeln!(out, "{}", to_json(args, facts, &pos, &probed))?;
    } else {
        if std::io::stdout().is_terminal() && !probed.moves.is_empty() {
            // Labels for a reader; a pipe gets the bare rows, one move a line.
            let counted = probed.moves.iter().any(|m| m.counts.is_some());
            writeln!(
                out,
                "move weight{}",
                if counted {
                    " [games N] +wins =draws -losses"
                } else {
                    ""
                }
            )?;
        }
        for m in &probed.moves {
            write!(out, "{} {}", m.mv, m.weight)?;
            if let Some(c) = m.counts {
                if let Some(g) = c.games {
                    write!(out, " games {g}")?;
                }
                write!(out, " +{} ={} -{}", c.wins, c.draws, c.losses)?;
            }
            writeln!(out)?;
        }
    }
    if probed.moves.is_empty() {
        if !args.json {
            eprintln!("qipu: no book move for {}", pos.fen());
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn to_json(
    args: &ProbeArgs,
    facts: BookFacts,
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
        "records": facts.records,
        "positions": facts.positions,
        "mirror_merged": facts.mirror_merged,
        "variant": pos.variant().name(),
        "fen": pos.fen(),
        "mirrored": probed.mirrored,
        "moves": moves,
    })
}
