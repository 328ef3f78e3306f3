//! Janggi (Korean chess): palace diagonals, jumping cannons, the pass, bikjang, counting.

use super::{
    board::Board,
    movegen::{direction, filter_legal, horse_attack, next_on_ray, slide, steps, validate_common},
    position::{EndReason, GameEnd, MoveList, Outcome, Position, PositionError},
    setup::Setup,
    tables::*,
    types::{code, role_of, Color, Move, Role, Square, Variant},
};

/// Which Janggi rule set decides legality and game end. The presets are data, not code paths:
/// every combination of the three switches is valid.
///
/// ```
/// use qipu::rules::JanggiRules;
/// assert!(JanggiRules::TOURNAMENT.bikjang);
/// assert!(!JanggiRules::SERVER.double_pass_ends);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JanggiRules {
    /// Facing generals (빅장) must be answered: while they face each other every move must
    /// break the line except the pass (allowed even in check), and bikjang on two consecutive
    /// plies ends the game.
    pub bikjang: bool,
    /// Two passes in a row end the game.
    pub double_pass_ends: bool,
    /// A game ended by bikjang or passes is decided by material count (chariot 13, cannon 7,
    /// horse 5, elephant 3, guard 3, soldier 2; Han gets 1.5 more) instead of being drawn.
    pub counting: bool,
}

impl JanggiRules {
    /// Tournament rules, Fairy-Stockfish's `janggi`: bikjang and counting. The default.
    pub const TOURNAMENT: JanggiRules = JanggiRules {
        bikjang: true,
        double_pass_ends: true,
        counting: true,
    };
    /// Traditional rules (`janggitraditional`): bikjang and double passes end in a draw.
    pub const TRADITIONAL: JanggiRules = JanggiRules {
        bikjang: true,
        double_pass_ends: true,
        counting: false,
    };
    /// Casual rules (`janggicasual`): no bikjang rule; two passes draw.
    pub const CASUAL: JanggiRules = JanggiRules {
        bikjang: false,
        double_pass_ends: true,
        counting: false,
    };
    /// What game servers (Hangame, Mgame, Kakao) let players do, and so what real `.gib`
    /// records need: play goes on while the generals face each other and after two passes.
    pub const SERVER: JanggiRules = JanggiRules {
        bikjang: false,
        double_pass_ends: false,
        counting: true,
    };
}

impl Default for JanggiRules {
    fn default() -> Self {
        JanggiRules::TOURNAMENT
    }
}

/// A legal Janggi position, with the bits of history its rules need (was the last move a
/// pass, did the generals face each other one ply ago).
///
/// ```
/// use qipu::rules::{Janggi, Move, Position};
/// let mut pos = Janggi::new();
/// assert_eq!(pos.legal_moves().len(), 32); // 31 moves and the pass
/// pos.play(Move::PASS).unwrap();
/// pos.play(Move::PASS).unwrap();
/// assert!(pos.end().is_some()); // two passes end the game under tournament rules
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Janggi {
    board: Board,
    rules: JanggiRules,
    /// The move that led here was a pass.
    last_pass: bool,
    /// The move before that was a pass.
    prev_pass: bool,
    /// Whether the generals faced each other in the previous position (`None` at the root,
    /// where no history is known).
    prev_bikjang: Option<bool>,
}

const CANNONS: [u8; 2] = [code(0, Role::Cannon), code(1, Role::Cannon)];

#[inline]
fn is_cannon(p: u8) -> bool {
    p == CANNONS[0] || p == CANNONS[1]
}

/// Whether `them` attacks `k` along the orthogonal ray `d`: a chariot, or a cannon over
/// exactly one screen that is not a cannon.
#[inline]
fn ray_attack(sq: &[u8; 90], k: usize, d: usize, them: usize) -> bool {
    let (first, i) = next_on_ray(sq, k, d, 0);
    if first == code(them, Role::Rook) {
        return true;
    }
    first != 0 && !is_cannon(first) && next_on_ray(sq, k, d, i).0 == code(them, Role::Cannon)
}

/// Whether `them` attacks `k` along the palace diagonal ray `d` (chariot or cannon).
#[inline]
fn diagonal_attack(sq: &[u8; 90], k: usize, d: usize, them: usize) -> bool {
    let len = DIAG_RAY_LEN[k][d] as usize;
    if len == 0 {
        return false;
    }
    let ray = &DIAG_RAYS[k][d];
    let rook = code(them, Role::Rook);
    let first = sq[ray[0] as usize];
    if first == rook {
        return true;
    }
    if len < 2 {
        return false;
    }
    let second = sq[ray[1] as usize];
    (first == 0 && second == rook)
        || (first != 0 && !is_cannon(first) && second == code(them, Role::Cannon))
}

/// Whether an elephant of `them` attacks `k`, through the blocking square `via` if given.
#[inline]
fn elephant_attack(sq: &[u8; 90], k: usize, them: usize, via: Option<usize>) -> bool {
    let elephant = code(them, Role::Elephant);
    let e = &JANGGI_ELEPHANT_FROM[k];
    (0..e.len as usize).any(|i| {
        let [b0, b1] = [e.block[i][0] as usize, e.block[i][1] as usize];
        via.is_none_or(|x| x == b0 || x == b1)
            && sq[e.to[i] as usize] == elephant
            && sq[b0] == 0
            && sq[b1] == 0
    })
}

/// Whether `k` is attacked by `them` under Janggi movement. Generals and guards never leave
/// their palace, so they cannot reach the other one and are not tested.
fn attacked(sq: &[u8; 90], k: usize, them: usize) -> bool {
    if (0..4).any(|d| ray_attack(sq, k, d, them) || diagonal_attack(sq, k, d, them))
        || horse_attack(sq, k, them, None)
        || elephant_attack(sq, k, them, None)
    {
        return true;
    }
    let pawn = code(them, Role::Pawn);
    let p = &JANGGI_PAWN_FROM[them][k];
    (0..p.len as usize).any(|i| sq[p.to[i] as usize] == pawn)
}

/// Whether `them` attacks `k` by a line or leap whose path crosses the square `x`.
fn attacked_through(sq: &[u8; 90], k: usize, them: usize, x: usize) -> bool {
    let bit = 1u128 << x;
    direction(k, x).is_some_and(|d| ray_attack(sq, k, d, them))
        || (DIAGONALS[k] & bit != 0
            && (0..4).any(|d| {
                DIAG_RAYS[k][d][..DIAG_RAY_LEN[k][d] as usize].contains(&(x as u8))
                    && diagonal_attack(sq, k, d, them)
            }))
        || (HORSE_LEGS[k] & bit != 0 && horse_attack(sq, k, them, Some(x)))
        || (ELEPHANT_BLOCKS[k] & bit != 0 && elephant_attack(sq, k, them, Some(x)))
}

/// Whether two generals on these squares face each other on an open file.
fn facing(sq: &[u8; 90], a: usize, b: usize) -> bool {
    if a % 9 != b % 9 {
        return false;
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (lo + 9..hi).step_by(9).all(|s| sq[s] == 0)
}

/// The pseudo-legal moves of the side to move's pieces among `pieces` (a square set).
fn pseudo_moves(b: &Board, pieces: u128, list: &mut MoveList) {
    let us = b.turn().index();
    let sq = b.squares();
    let own = b.occupied(b.turn());
    let mut bits = own & pieces;
    while bits != 0 {
        let from = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let fsq = Square::new(from as u8).unwrap_or_else(|| unreachable!());
        let push = |list: &mut MoveList, to: u8| {
            if let Some(t) = Square::new(to) {
                list.push(Move::new(fsq, t));
            }
        };
        let free = |to: u8| own & (1u128 << to) == 0;
        match role_of(sq[from]) {
            Role::King | Role::Advisor => steps(&JANGGI_PALACE[us][from], sq, own, fsq, list),
            Role::Elephant => steps(&JANGGI_ELEPHANT[from], sq, own, fsq, list),
            Role::Horse => steps(&HORSE[from], sq, own, fsq, list),
            Role::Rook => {
                for d in 0..4 {
                    slide(
                        &RAYS[from][d][..RAY_LEN[from][d] as usize],
                        sq,
                        own,
                        fsq,
                        list,
                    );
                    slide(
                        &DIAG_RAYS[from][d][..DIAG_RAY_LEN[from][d] as usize],
                        sq,
                        own,
                        fsq,
                        list,
                    );
                }
            }
            Role::Cannon => {
                for d in 0..4 {
                    let ray = &RAYS[from][d];
                    let len = RAY_LEN[from][d] as usize;
                    let mut i = 0;
                    while i < len && sq[ray[i] as usize] == 0 {
                        i += 1;
                    }
                    if i >= len || is_cannon(sq[ray[i] as usize]) {
                        continue;
                    }
                    i += 1;
                    while i < len && sq[ray[i] as usize] == 0 {
                        push(list, ray[i]);
                        i += 1;
                    }
                    if i < len && free(ray[i]) && !is_cannon(sq[ray[i] as usize]) {
                        push(list, ray[i]);
                    }
                }
                for d in 0..4 {
                    if DIAG_RAY_LEN[from][d] == 2 {
                        let [screen, to] = DIAG_RAYS[from][d];
                        let s = sq[screen as usize];
                        let t = sq[to as usize];
                        if s != 0 && !is_cannon(s) && free(to) && !is_cannon(t) {
                            push(list, to);
                        }
                    }
                }
            }
            Role::Pawn => steps(&JANGGI_PAWN[us][from], sq, own, fsq, list),
        }
    }
}

impl Janggi {
    /// Adds the legal moves (passes aside) of the pieces among `pieces` (a square set);
    /// returns whether the generals face each other under the bikjang rule.
    #[inline]
    fn legal_moves_of(&self, pieces: u128, in_check: bool, list: &mut MoveList) -> bool {
        pseudo_moves(&self.board, pieces, list);
        let their = self.board.turn().other();
        let them = their.index();
        let bikjang = self.rules.bikjang && self.is_bikjang();
        let their_king = self.board.king_index(their);
        filter_legal(
            &self.board,
            list,
            in_check,
            &JANGGI_KING_SENSITIVE,
            bikjang,
            |sq, k| !(attacked(sq, k, them) || bikjang && facing(sq, k, their_king)),
            |sq, k, x| attacked_through(sq, k, them, x),
        );
        bikjang
    }

    /// Validates a setup under the given rules.
    ///
    /// # Errors
    /// As [`Position::from_setup`].
    pub fn from_setup_with_rules(
        setup: &Setup,
        rules: JanggiRules,
    ) -> Result<Janggi, PositionError> {
        validate_common(setup)?;
        let pos = Janggi {
            board: Board::from_setup(setup, Variant::Janggi),
            rules,
            last_pass: false,
            prev_pass: false,
            prev_bikjang: None,
        };
        // A side may pass while in check under bikjang, so the side not to move can be in
        // check when the generals face each other; otherwise that position is unreachable.
        let them = pos.board.turn().other();
        let sq = pos.board.squares();
        if !pos.is_bikjang() && attacked(sq, pos.board.king_index(them), them.other().index()) {
            return Err(PositionError::OppositeCheck);
        }
        Ok(pos)
    }

    /// The rule set in force.
    pub fn rules(&self) -> JanggiRules {
        self.rules
    }

    /// Switches the rule set (e.g. to [`JanggiRules::SERVER`] to replay real records).
    pub fn set_rules(&mut self, rules: JanggiRules) {
        self.rules = rules;
    }

    /// Whether the generals face each other now (bikjang, 빅장).
    pub fn is_bikjang(&self) -> bool {
        self.board.generals_face()
    }

    /// Whether the last move was a pass.
    pub fn last_move_was_pass(&self) -> bool {
        self.last_pass
    }

    /// The material count of a side: chariot 13, cannon 7, horse 5, elephant 3, guard 3,
    /// soldier 2, in half points (so that Han's 1.5 bonus is whole): Han gets +3 here.
    ///
    /// ```
    /// use qipu::rules::{Color, Janggi, Position};
    /// let pos = Janggi::new();
    /// assert_eq!(pos.material_half_points(Color::First), 144);
    /// assert_eq!(pos.material_half_points(Color::Second), 147);
    /// ```
    pub fn material_half_points(&self, color: Color) -> u32 {
        let values = [0, 3, 3, 5, 13, 7, 2];
        let mut total = 0;
        for (_, p) in self.board.pieces() {
            if p.color == color {
                total += 2 * values[p.role as usize];
            }
        }
        if color == Color::Second {
            total += 3;
        }
        total
    }

    fn counting_outcome(&self) -> Outcome {
        if !self.rules.counting {
            return Outcome::Draw;
        }
        let winner =
            if self.material_half_points(Color::First) > self.material_half_points(Color::Second) {
                Color::First
            } else {
                Color::Second
            };
        Outcome::Decisive { winner }
    }

    /// An ending by the rules of this position alone (no legal-move test): bikjang on two
    /// consecutive plies or two passes in a row, when the rules say they end the game.
    pub fn immediate_end(&self) -> Option<GameEnd> {
        let reason = if self.rules.bikjang && self.prev_bikjang == Some(true) && self.is_bikjang() {
            EndReason::Bikjang
        } else if self.rules.double_pass_ends && self.last_pass && self.prev_pass {
            EndReason::DoublePass
        } else {
            return None;
        };
        Some(GameEnd {
            reason,
            outcome: self.counting_outcome(),
        })
    }

    fn in_check(&self) -> bool {
        let us = self.board.turn();
        attacked(
            self.board.squares(),
            self.board.king_index(us),
            us.other().index(),
        )
    }
}

impl Position for Janggi {
    const VARIANT: Variant = Variant::Janggi;

    fn from_setup(setup: &Setup) -> Result<Self, PositionError> {
        Janggi::from_setup_with_rules(setup, JanggiRules::default())
    }

    #[inline]
    fn board(&self) -> &Board {
        &self.board
    }

    fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.immediate_end().is_some() {
            return list;
        }
        let in_check = self.in_check();
        let bikjang = self.legal_moves_of(u128::MAX, in_check, &mut list);
        if !in_check || bikjang {
            list.push(Move::PASS);
        }
        list
    }

    /// Only the moved piece's moves are generated and tested (a pass: all of them).
    fn is_legal(&self, m: Move) -> bool {
        let Some(from) = m.from() else {
            return self.legal_moves().contains(m);
        };
        let mut list = MoveList::new();
        if self.immediate_end().is_some() {
            return false;
        }
        self.legal_moves_of(1 << from.index(), self.in_check(), &mut list);
        list.contains(m)
    }

    fn is_check(&self) -> bool {
        self.in_check()
    }

    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        self.prev_bikjang = Some(self.is_bikjang());
        self.prev_pass = self.last_pass;
        self.last_pass = m.is_pass();
        self.board.play_unchecked(m);
    }

    fn end(&self) -> Option<GameEnd> {
        if let Some(end) = self.immediate_end() {
            return Some(end);
        }
        if !self.legal_moves().is_empty() {
            return None;
        }
        let reason = if self.in_check() {
            EndReason::Checkmate
        } else {
            EndReason::Stalemate
        };
        Some(GameEnd {
            reason,
            outcome: Outcome::Decisive {
                winner: self.board.turn().other(),
            },
        })
    }
}
