//! [`Setup`]: a board that is not necessarily legal, and FEN reading and writing; the Janggi
//! formations ([`Formation`], [`Formations`]) and the start boards they give; the guess of the
//! game a FEN belongs to ([`Setup::likely_variant`]). Nothing here validates a position (that
//! is `Position::from_setup`'s).

use std::fmt;

use super::types::{Color, Piece, Role, Square, Variant};

/// A position that has not been validated: pieces on squares, the side to move and the
/// counters. Readers produce a `Setup`; [`Position::from_setup`](super::Position::from_setup)
/// (for [`Xiangqi`](super::Xiangqi) or [`Janggi`](super::Janggi)) turns it into a legal position.
///
/// ```
/// use qipu::rules::{Setup, Variant};
/// let setup = Setup::from_fen(Variant::Xiangqi.start_fen()).unwrap();
/// assert_eq!(setup.to_fen(), Variant::Xiangqi.start_fen());
/// // Two-field FENs and `r` for Red are accepted:
/// let short = Setup::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r").unwrap();
/// assert_eq!(short, setup);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Pieces by square index (`rank * 9 + file`).
    pub board: [Option<Piece>; 90],
    /// Side to move.
    pub turn: Color,
    /// Plies since the last capture (FEN field 5).
    pub halfmoves: u32,
    /// Move number, starting at 1, incremented after the second player moves (FEN field 6).
    pub fullmoves: u32,
}

/// Why a FEN could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    Empty,
    /// The board part does not have 10 ranks.
    RankCount(usize),
    /// A rank does not add up to 9 files.
    RankWidth {
        /// Rank as written, counted from the top, 1-based.
        rank: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    BadChar(char),
    /// The side-to-move field is not `w`, `r` or `b`.
    BadTurn(String),
    /// A counter is not a number.
    BadCounter(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "invalid FEN: empty"),
            FenError::RankCount(n) => write!(f, "invalid FEN: {n} ranks instead of 10"),
            FenError::RankWidth { rank } => {
                write!(
                    f,
                    "invalid FEN: rank {rank} (from the top) is not 9 files wide"
                )
            }
            FenError::BadChar(c) => write!(f, "invalid FEN: unexpected character `{c}`"),
            FenError::BadTurn(s) => write!(f, "invalid FEN: side to move `{s}` is not w, r or b"),
            FenError::BadCounter(s) => write!(f, "invalid FEN: counter `{s}` is not a number"),
        }
    }
}

impl std::error::Error for FenError {}

impl Setup {
    /// An empty board, first player to move.
    pub const fn empty() -> Setup {
        Setup {
            board: [None; 90],
            turn: Color::First,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The piece on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Reads a FEN: ranks from the top (rank 9) down, 9 files each; then side to move
    /// (`w`/`r` = first player, `b` = second), optionally `- -` and two counters.
    ///
    /// # Errors
    /// A [`FenError`] naming what is wrong; never panics.
    pub fn from_fen(fen: &str) -> Result<Setup, FenError> {
        let mut fields = fen.split_ascii_whitespace();
        let board_text = fields.next().ok_or(FenError::Empty)?;
        let mut setup = Setup::empty();
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount(ranks.len()));
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = 9 - row as u8;
            let mut file: u32 = 0;
            let mut digits: u32 = 0;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    digits = digits * 10 + d;
                    if digits > 9 {
                        return Err(FenError::RankWidth { rank: row + 1 });
                    }
                    continue;
                }
                file += std::mem::take(&mut digits);
                let piece = Piece::from_char(c).ok_or(FenError::BadChar(c))?;
                let sq = Square::from_coords(file as u8, rank)
                    .filter(|_| file < 9)
                    .ok_or(FenError::RankWidth { rank: row + 1 })?;
                setup.board[sq.index()] = Some(piece);
                file += 1;
            }
            file += digits;
            if file != 9 {
                return Err(FenError::RankWidth { rank: row + 1 });
            }
        }
        if let Some(turn) = fields.next() {
            setup.turn = match turn {
                "w" | "W" | "r" | "R" => Color::First,
                "b" | "B" => Color::Second,
                other => return Err(FenError::BadTurn(other.to_string())),
            };
        }
        let rest: Vec<&str> = fields.collect();
        // Fields 3 and 4 are `- -` in practice; some writers drop them and keep the counters.
        let counters: &[&str] = match rest.len() {
            0 | 1 => &[],
            2 if rest[0] != "-" => &rest[..],
            _ => &rest[2..rest.len().min(4)],
        };
        let parse = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| FenError::BadCounter(s.to_string()))
        };
        if let Some(h) = counters.first() {
            setup.halfmoves = parse(h)?;
        }
        if let Some(f) = counters.get(1) {
            setup.fullmoves = parse(f)?.max(1);
        }
        Ok(setup)
    }

    /// Writes the board part of the FEN (ranks from the top).
    pub fn board_fen(&self) -> String {
        let mut out = String::with_capacity(48);
        for row in 0..10u8 {
            let rank = 9 - row;
            let mut empty = 0;
            for file in 0..9u8 {
                match self.board[(rank * 9 + file) as usize] {
                    Some(p) => {
                        if empty > 0 {
                            out.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        out.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push((b'0' + empty) as char);
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }

    /// Writes the full six-field FEN.
    pub fn to_fen(&self) -> String {
        format!(
            "{} {} - - {} {}",
            self.board_fen(),
            self.turn.fen_char(),
            self.halfmoves,
            self.fullmoves
        )
    }

    /// The setup reflected left-right.
    pub fn mirror(&self) -> Setup {
        let mut out = self.clone();
        for i in 0..90u8 {
            let sq = Square::new(i).map(Square::mirror);
            if let Some(sq) = sq {
                out.board[sq.index()] = self.board[i as usize];
            }
        }
        out
    }

    /// Number of pieces of a colour and role.
    pub fn count(&self, color: Color, role: Role) -> usize {
        self.board
            .iter()
            .filter(|p| **p == Some(Piece::new(color, role)))
            .count()
    }
}

/// A Janggi formation (차림): where a side puts its horses (마) and elephants (상) on the
/// b, c, g and h files of its back rank. The letters read left to right as the board is drawn
/// with Cho at the bottom, for both sides (as `.gib` files write them, `초차림`/`한차림`), and
/// "left"/"right" in the names are Cho's left and right.
///
/// | letters | Korean | romanised | English | back rank (Cho) |
/// |---|---|---|---|---|
/// | 마상상마 | 원앙마 | `wonangma` | `inner` (both elephants inside) | `RNBA1ABNR` |
/// | 상마마상 | 양귀마 | `yanggwima` | `outer` (both elephants outside) | `RBNA1ANBR` |
/// | 상마상마 | 왼귀마 | `left-gwima` | `left-outer` (left elephant outside) | `RBNA1ABNR` |
/// | 마상마상 | 오른귀마 | `right-gwima` | `right-outer` (right elephant outside) | `RNBA1ANBR` |
///
/// ```
/// use qipu::rules::Formation;
/// assert_eq!("상마마상".parse::<Formation>(), Ok(Formation::Yanggwi));
/// assert_eq!("Wonangma".parse::<Formation>(), Ok(Formation::Wonang));
/// assert_eq!("象馬象馬".parse::<Formation>(), Ok(Formation::LeftGwi));
/// assert_eq!(Formation::RightGwi.letters(), "마상마상");
/// assert!("마마상상".parse::<Formation>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Formation {
    /// 마상상마 원앙마: horses outside, elephants inside (the default start).
    Wonang,
    /// 상마마상 양귀마: elephants outside, horses inside.
    Yanggwi,
    /// 상마상마 왼귀마: the left elephant outside, the right one inside.
    LeftGwi,
    /// 마상마상 오른귀마: the left elephant inside, the right one outside.
    RightGwi,
}

impl Formation {
    /// The four formations, in the table's order.
    pub const ALL: [Formation; 4] = [
        Formation::Wonang,
        Formation::Yanggwi,
        Formation::LeftGwi,
        Formation::RightGwi,
    ];

    /// The pieces on the b, c, g and h files, left to right as drawn with Cho at the bottom.
    const fn roles(self) -> [Role; 4] {
        use Role::{Elephant as E, Horse as H};
        match self {
            Formation::Wonang => [H, E, E, H],
            Formation::Yanggwi => [E, H, H, E],
            Formation::LeftGwi => [E, H, E, H],
            Formation::RightGwi => [H, E, H, E],
        }
    }

    /// The formation as `.gib` files write it: `마상상마`, `상마마상`, `상마상마` or `마상마상`.
    pub const fn letters(self) -> &'static str {
        match self {
            Formation::Wonang => "마상상마",
            Formation::Yanggwi => "상마마상",
            Formation::LeftGwi => "상마상마",
            Formation::RightGwi => "마상마상",
        }
    }

    /// The Korean name: 원앙마, 양귀마, 왼귀마 or 오른귀마.
    pub const fn korean(self) -> &'static str {
        match self {
            Formation::Wonang => "원앙마",
            Formation::Yanggwi => "양귀마",
            Formation::LeftGwi => "왼귀마",
            Formation::RightGwi => "오른귀마",
        }
    }

    /// The romanised name: `wonangma`, `yanggwima`, `left-gwima` or `right-gwima`.
    pub const fn romanised(self) -> &'static str {
        match self {
            Formation::Wonang => "wonangma",
            Formation::Yanggwi => "yanggwima",
            Formation::LeftGwi => "left-gwima",
            Formation::RightGwi => "right-gwima",
        }
    }

    /// The English name: `inner`, `outer`, `left-outer` or `right-outer` (where the
    /// elephants stand).
    pub const fn english(self) -> &'static str {
        match self {
            Formation::Wonang => "inner",
            Formation::Yanggwi => "outer",
            Formation::LeftGwi => "left-outer",
            Formation::RightGwi => "right-outer",
        }
    }

    /// The formation of a side on a board, if its b, c, g and h back-rank files hold its two
    /// horses and two elephants as one of the four formations place them.
    pub fn of(setup: &Setup, color: Color) -> Option<Formation> {
        let rank = match color {
            Color::First => 0,
            Color::Second => 9,
        };
        let mut roles = [Role::King; 4];
        for (slot, file) in roles.iter_mut().zip([1u8, 2, 6, 7]) {
            let p = Square::from_coords(file, rank).and_then(|sq| setup.piece_at(sq))?;
            if p.color != color {
                return None;
            }
            *slot = p.role;
        }
        Formation::ALL.into_iter().find(|f| f.roles() == roles)
    }
}

impl fmt::Display for Formation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.letters())
    }
}

impl std::str::FromStr for Formation {
    type Err = String;

    /// Reads the letters (Hangul 마/상 or Hanja 馬/象, spaces ignored) or any name of the
    /// table (case-insensitive; `_` or a space for `-`).
    fn from_str(s: &str) -> Result<Formation, String> {
        let text: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        let word = text.to_lowercase().replace('_', "-");
        let letters: String = text
            .chars()
            .map(|c| match c {
                '馬' => '마',
                '象' => '상',
                other => other,
            })
            .collect();
        Formation::ALL
            .into_iter()
            .find(|f| {
                letters == f.letters()
                    || word == f.korean()
                    || word == f.romanised()
                    || word == f.romanised().replace('-', "")
                    || word == f.english()
                    || word == f.english().replace('-', "")
            })
            .ok_or_else(|| {
                format!(
                    "unknown formation `{}` (expected 마상상마, 상마마상, 상마상마, 마상마상 or a name: \
                     wonangma, yanggwima, left-gwima, right-gwima, inner, outer, left-outer, \
                     right-outer)",
                    s.trim()
                )
            })
    }
}

/// Both sides' formations of a Janggi game, Cho's first: written `CHO/HAN`, e.g.
/// `마상상마/상마마상` or `inner/outer`.
///
/// ```
/// use qipu::rules::{Formation, Formations, Variant};
/// let f: Formations = "마상상마/상마마상".parse().unwrap();
/// assert_eq!((f.cho, f.han), (Formation::Wonang, Formation::Yanggwi));
/// assert_eq!(
///     f.start_fen(),
///     "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
/// );
/// let default: Formations = "wonangma/wonangma".parse().unwrap();
/// assert_eq!(default.start_fen(), Variant::Janggi.start_fen());
/// assert!("마상상마".parse::<Formations>().is_err(), "both sides are needed");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Formations {
    /// Cho's (the first player's) formation.
    pub cho: Formation,
    /// Han's (the second player's) formation.
    pub han: Formation,
}

impl Formations {
    /// The 16 pairs, Cho's formation first, in the table's order.
    pub fn all() -> impl Iterator<Item = Formations> {
        Formation::ALL.into_iter().flat_map(|cho| {
            Formation::ALL
                .into_iter()
                .map(move |han| Formations { cho, han })
        })
    }

    /// The Janggi start board of these formations, Cho to move.
    pub fn start_setup(self) -> Setup {
        let mut setup = Setup::from_fen(Variant::Janggi.start_fen()).unwrap_or(Setup::empty());
        for (color, f, rank) in [(Color::First, self.cho, 0u8), (Color::Second, self.han, 9)] {
            for (file, role) in [1u8, 2, 6, 7].into_iter().zip(f.roles()) {
                if let Some(sq) = Square::from_coords(file, rank) {
                    setup.board[sq.index()] = Some(Piece::new(color, role));
                }
            }
        }
        setup
    }

    /// The start FEN of these formations.
    pub fn start_fen(self) -> String {
        self.start_setup().to_fen()
    }

    /// The formations of a board whose back ranks are a formation start's (other pieces
    /// are not looked at).
    pub fn of(setup: &Setup) -> Option<Formations> {
        Some(Formations {
            cho: Formation::of(setup, Color::First)?,
            han: Formation::of(setup, Color::Second)?,
        })
    }
}

impl fmt::Display for Formations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.cho, self.han)
    }
}

impl std::str::FromStr for Formations {
    type Err = String;

    fn from_str(s: &str) -> Result<Formations, String> {
        let (cho, han) = s.split_once(['/', ',']).ok_or_else(|| {
            format!(
                "formations `{}` name one side only: give Cho's and Han's, as `마상상마/상마마상`",
                s.trim()
            )
        })?;
        Ok(Formations {
            cho: cho.parse()?,
            han: han.parse()?,
        })
    }
}

impl Setup {
    /// The game a FEN's board most likely belongs to, for a FEN given without its game:
    /// Janggi when the board cannot be a Xiangqi position (an elephant or an advisor off the
    /// points Xiangqi allows it, a soldier on its own side off Xiangqi's soldier files) or
    /// when both generals stand on their palace centres (`e1`, `e8`: where Janggi's start
    /// and Xiangqi's never does); Xiangqi otherwise.
    ///
    /// ```
    /// use qipu::rules::{Setup, Variant};
    /// let guess = |fen: &str| Setup::from_fen(fen).unwrap().likely_variant();
    /// assert_eq!(guess(Variant::Xiangqi.start_fen()), Variant::Xiangqi);
    /// assert_eq!(guess(Variant::Janggi.start_fen()), Variant::Janggi);
    /// // 상마마상 for Cho: an elephant on b0, where no Xiangqi elephant can stand.
    /// assert_eq!(guess("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w"), Variant::Janggi);
    /// ```
    pub fn likely_variant(&self) -> Variant {
        let centre = |color: Color, sq: (u8, u8)| {
            Square::from_coords(sq.0, sq.1).and_then(|s| self.piece_at(s))
                == Some(Piece::new(color, Role::King))
        };
        if centre(Color::First, (4, 1)) && centre(Color::Second, (4, 8)) {
            return Variant::Janggi;
        }
        for (i, p) in self.board.iter().enumerate() {
            let (Some(p), Some(sq)) = (p, Square::new(i as u8)) else {
                continue;
            };
            // Ranks counted from the piece's own side.
            let rank = match p.color {
                Color::First => sq.rank(),
                Color::Second => 9 - sq.rank(),
            };
            let file = sq.file();
            let xiangqi_point = match p.role {
                Role::Elephant => matches!((file, rank), (2 | 6, 0) | (0 | 4 | 8, 2) | (2 | 6, 4)),
                Role::Advisor => matches!((file, rank), (3 | 5, 0) | (4, 1) | (3 | 5, 2)),
                Role::Pawn => rank >= 5 || (rank >= 3 && file % 2 == 0),
                _ => true,
            };
            if !xiangqi_point {
                return Variant::Janggi;
            }
        }
        Variant::Xiangqi
    }
}

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Setup({})", self.to_fen())
    }
}

impl std::str::FromStr for Setup {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Setup::from_fen(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage_with_reasons() {
        assert_eq!(Setup::from_fen(""), Err(FenError::Empty));
        assert_eq!(Setup::from_fen("9/9 w"), Err(FenError::RankCount(2)));
        assert!(matches!(
            Setup::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w"),
            Err(FenError::RankWidth { rank: 10 })
        ));
        assert!(matches!(
            Setup::from_fen("rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            Err(FenError::RankWidth { rank: 1 })
        ));
        assert_eq!(
            Setup::from_fen("rnbakabnx/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            Err(FenError::BadChar('x'))
        );
        assert!(matches!(
            Setup::from_fen("9/9/9/9/9/9/9/9/9/9 x"),
            Err(FenError::BadTurn(_))
        ));
        assert!(matches!(
            Setup::from_fen("9/9/9/9/9/9/9/9/9/9 w - - x 1"),
            Err(FenError::BadCounter(_))
        ));
        assert!(Setup::from_fen("99/9/9/9/9/9/9/9/9/9 w").is_err());
    }

    #[test]
    fn formations_place_the_four_pieces_and_read_back() {
        for f in Formations::all() {
            let s = f.start_setup();
            assert_eq!(Formations::of(&s), Some(f), "{f}");
            assert_eq!(f.to_string().parse::<Formations>(), Ok(f));
            for side in [Color::First, Color::Second] {
                assert_eq!(s.count(side, Role::Horse), 2);
                assert_eq!(s.count(side, Role::Elephant), 2);
            }
            // Every formation start but the default has an elephant Xiangqi cannot hold;
            // all of them have the generals on the palace centres.
            assert_eq!(s.likely_variant(), Variant::Janggi, "{f}");
        }
        assert_eq!(Formations::all().count(), 16);
        // Han's letters read as drawn with Cho at the bottom: 상마상마 puts Han's elephants on
        // b9 and g9 (as `.gib` files do).
        let f: Formations = "마상상마/상마상마".parse().unwrap();
        assert_eq!(
            f.start_fen(),
            "rbna1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
        );
        for (text, want) in [
            ("inner/outer", "마상상마/상마마상"),
            ("원앙마 / 양귀마", "마상상마/상마마상"),
            ("Left-Gwima,right_gwima", "상마상마/마상마상"),
            ("rightouter/leftgwima", "마상마상/상마상마"),
            ("馬象象馬/象馬馬象", "마상상마/상마마상"),
        ] {
            assert_eq!(
                text.parse::<Formations>().map(|f| f.to_string()),
                Ok(want.into()),
                "{text}"
            );
        }
        for bad in [
            "",
            "/",
            "마상상마/",
            "마상/상마",
            "inner/middle",
            "마마상상/마상상마",
        ] {
            assert!(bad.parse::<Formations>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_likely_variant_of_real_positions() {
        let guess = |fen: &str| Setup::from_fen(fen).unwrap().likely_variant();
        // Xiangqi after 炮二平五 马８进７ 马二进三 车９平８, and an endgame with the kings on e1/e9.
        assert_eq!(
            guess("rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w"),
            Variant::Xiangqi
        );
        assert_eq!(guess("4k4/9/9/9/9/9/9/9/4K4/9 w"), Variant::Xiangqi);
        // Janggi: an advisor on d1 (a palace point Xiangqi's advisors never reach), a soldier
        // moved sideways on its own side (b3).
        assert_eq!(guess("4k4/9/9/9/9/9/9/9/3A5/4K4 w"), Variant::Janggi);
        assert_eq!(guess("3k5/9/9/9/9/9/1P7/9/9/4K4 w"), Variant::Janggi);
    }

    #[test]
    fn reads_aliases_and_counters() {
        let s = Setup::from_fen("rhea1aehr/4k4/9/9/9/9/9/9/4K4/RHEA1AEHR b - - 7 12").unwrap();
        assert_eq!(s.turn, Color::Second);
        assert_eq!((s.halfmoves, s.fullmoves), (7, 12));
        assert!(s.to_fen().starts_with("rnba1abnr/4k4/"));
        let t = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w 3 9").unwrap();
        assert_eq!((t.halfmoves, t.fullmoves), (3, 9));
    }
}
