//! `qipu convert`: any supported record → UTF-8 PGN (or `.gib` for Janggi).

use std::{
    io::{BufWriter, Write},
    path::PathBuf,
    process::ExitCode,
};

use clap::{Args, ValueEnum};

use super::CliError;
use crate::{
    formats::{
        read_path,
        write::{write_gib, write_pgn},
        ErrorKind, Game, GameError,
    },
    notation::{render, Notation},
    rules::{AnyPosition, Move, Variant},
};

/// Output format of `qipu convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum To {
    /// UTF-8 PGN, variations and comments kept.
    Pgn,
    /// `.gib` (Janggi games only; main line and comments).
    Gib,
}

/// Move notation of `qipu convert`'s output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NotationArg {
    /// Chinese vertical-line notation (`炮二平五`); Xiangqi only.
    Chinese,
    /// WXF (`C2.5`); Xiangqi only.
    Wxf,
    /// Coordinates `h2e2` (ranks 0–9; `pass` for a Janggi pass).
    Iccs,
    /// Korean `.gib` coordinates (`08마87`); Janggi only.
    Korean,
}

/// Text encoding of `qipu convert`'s output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// UTF-8.
    #[value(name = "utf-8", alias = "utf8")]
    Utf8,
    /// CP949 (EUC-KR and its extension), the encoding of real `.gib` files.
    #[value(name = "cp949", alias = "euc-kr")]
    Cp949,
}

/// Arguments of `qipu convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Files, folders (read recursively) and zip archives.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = To::Pgn)]
    to: To,
    /// Move notation [default: chinese for Xiangqi, korean for Janggi]. A notation of the
    /// other game falls back to coordinates.
    #[arg(long, value_enum)]
    notation: Option<NotationArg>,
    /// Traditional characters in Chinese notation (`馬８進７`).
    #[arg(long)]
    traditional: bool,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Output encoding [default: cp949 for `--to gib`, like real .gib files; utf-8 for PGN].
    /// Characters CP949 lacks are written as `&#N;` (with a warning).
    #[arg(long, value_enum)]
    encoding: Option<EncodingArg>,
}

impl ConvertArgs {
    fn encoding(&self) -> EncodingArg {
        self.encoding.unwrap_or(match self.to {
            To::Gib => EncodingArg::Cp949,
            To::Pgn => EncodingArg::Utf8,
        })
    }
}

/// A converted game's text in the output encoding, and whether some characters could not be
/// encoded (and were written as `&#N;`).
fn encode(text: &str, encoding: EncodingArg) -> (std::borrow::Cow<'_, [u8]>, bool) {
    match encoding {
        EncodingArg::Utf8 => (std::borrow::Cow::Borrowed(text.as_bytes()), false),
        EncodingArg::Cp949 => {
            let (bytes, _, lossy) = encoding_rs::EUC_KR.encode(text);
            (bytes, lossy)
        }
    }
}

/// The notation for a game: the one asked for, or the game's own.
fn notation_for(args: &ConvertArgs, variant: Variant) -> Notation {
    let arg = args.notation.unwrap_or(match variant {
        Variant::Xiangqi => NotationArg::Chinese,
        Variant::Janggi => NotationArg::Korean,
    });
    match arg {
        NotationArg::Chinese => Notation::Chinese {
            traditional: args.traditional,
        },
        NotationArg::Wxf => Notation::Wxf,
        NotationArg::Iccs => Notation::Coord,
        NotationArg::Korean => Notation::Korean { hanja: false },
    }
}

/// The PGN `[Format]` tag of a notation (xqbase names), if it has one.
fn format_tag(notation: Notation, variant: Variant) -> Option<&'static str> {
    match (notation, variant) {
        (Notation::Chinese { .. }, Variant::Xiangqi) => Some("Chinese"),
        (Notation::Wxf, Variant::Xiangqi) => Some("WXF"),
        (Notation::Coord | Notation::Iccs, _) => Some("ICCS"),
        _ => None,
    }
}

fn convert_one(game: &Game, args: &ConvertArgs) -> Result<String, GameError> {
    let notation = notation_for(args, game.variant);
    let r = move |pos: &AnyPosition, m: Move| render(pos, m, notation);
    match args.to {
        To::Gib if game.variant == Variant::Janggi => write_gib(game, &r),
        To::Gib => Err(GameError::new(
            &game.source,
            ErrorKind::Unsupported("a Xiangqi game cannot be written as .gib".into()),
        )),
        To::Pgn => write_pgn(game, &r, format_tag(notation, game.variant)),
    }
}

/// Runs `qipu convert`: writes every game that replays, reports every one that does not on
/// stderr (file, game, ply, token, reason). Exit 0 if all were converted, 1 if some were not.
///
/// # Errors
/// Only I/O errors on the output are fatal.
pub fn convert(args: &ConvertArgs) -> Result<ExitCode, CliError> {
    let sink: Box<dyn Write> = match &args.out {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(sink);
    let (mut written, mut failed) = (0usize, 0usize);
    for path in &args.paths {
        for r in read_path(path) {
            match r.and_then(|g| convert_one(&g, args)) {
                Ok(text) => {
                    let (bytes, lossy) = encode(&text, args.encoding());
                    if lossy {
                        eprintln!(
                            "game {}: characters CP949 lacks are written as &#N;",
                            written + failed + 1
                        );
                    }
                    out.write_all(&bytes)?;
                    written += 1;
                }
                Err(e) => {
                    eprintln!("{e}");
                    failed += 1;
                }
            }
        }
    }
    out.flush()?;
    eprintln!("converted {written} games, {failed} not converted");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
