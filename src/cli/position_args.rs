//! The arguments that name a position: variant, FEN, moves, Janggi rules.

use clap::{Args, ValueEnum};

use crate::{
    notation::{Line, LineError},
    rules::{AnyPosition, JanggiRules, Variant},
};

/// Variant names on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum VariantArg {
    /// Chinese chess.
    Xiangqi,
    /// Korean chess.
    Janggi,
}

impl From<VariantArg> for Variant {
    fn from(v: VariantArg) -> Variant {
        match v {
            VariantArg::Xiangqi => Variant::Xiangqi,
            VariantArg::Janggi => Variant::Janggi,
        }
    }
}

/// Janggi rule sets on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RulesArg {
    /// Bikjang and two passes end the game, decided by material count.
    Tournament,
    /// Bikjang and two passes end the game in a draw.
    Traditional,
    /// No bikjang rule; two passes draw.
    Casual,
    /// Game-server rules: play goes on after bikjang and after two passes.
    Server,
}

impl From<RulesArg> for JanggiRules {
    fn from(r: RulesArg) -> JanggiRules {
        match r {
            RulesArg::Tournament => JanggiRules::TOURNAMENT,
            RulesArg::Traditional => JanggiRules::TRADITIONAL,
            RulesArg::Casual => JanggiRules::CASUAL,
            RulesArg::Server => JanggiRules::SERVER,
        }
    }
}

/// A position given as a start (FEN or the standard one) and moves played from it.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    pub variant: VariantArg,
    /// Start position (default: the standard start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves played from the start, in any supported notation.
    #[arg(long, num_args = 1.., allow_hyphen_values = true)]
    pub moves: Vec<String>,
    /// Janggi rule set.
    #[arg(long, value_enum, default_value = "tournament")]
    pub rules: RulesArg,
}

impl PositionArgs {
    /// Builds the position, playing every move ([`Line::parse`]).
    ///
    /// # Errors
    /// A message naming the bad FEN or the first move that cannot be played.
    pub fn position(&self) -> Result<AnyPosition, String> {
        Line::parse(
            Variant::from(self.variant),
            self.fen.as_deref(),
            &self.moves,
            self.rules.into(),
        )
        .map(|line| line.position)
        .map_err(|e| match e {
            LineError::Fen(e) => e.to_string(),
            other => other.to_string(),
        })
    }
}
