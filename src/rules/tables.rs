//! Move and attack tables for both games, computed at compile time.
//!
//! A table entry lists target squares together with the squares that must be empty for the
//! move (the horse's leg, the elephant's eye). The `*_FROM` tables are the same relations
//! read backwards ("which squares attack this one"), used to detect check; they differ from
//! the forward tables because a horse's leg is next to the horse, not next to its target.

/// Marker for "no square".
pub const NONE: u8 = 0xff;

/// Up to `N` targets, each with up to two squares that must be empty (`NONE` if unused).
#[derive(Clone, Copy)]
pub struct Steps<const N: usize> {
    pub len: u8,
    pub to: [u8; N],
    pub block: [[u8; 2]; N],
}

impl<const N: usize> Steps<N> {
    const EMPTY: Self = Steps {
        len: 0,
        to: [NONE; N],
        block: [[NONE; 2]; N],
    };

    const fn push(mut self, to: u8, b0: u8, b1: u8) -> Self {
        self.to[self.len as usize] = to;
        self.block[self.len as usize] = [b0, b1];
        self.len += 1;
        self
    }
}

const fn sq(file: i32, rank: i32) -> u8 {
    if file < 0 || file > 8 || rank < 0 || rank > 9 {
        NONE
    } else {
        (rank * 9 + file) as u8
    }
}

const fn in_palace(file: i32, rank: i32, color: usize) -> bool {
    file >= 3
        && file <= 5
        && if color == 0 {
            rank >= 0 && rank <= 2
        } else {
            rank >= 7 && rank <= 9
        }
}

/// Whether a palace point lies on a drawn diagonal (corners and centre).
const fn on_palace_diagonal(file: i32, rank: i32) -> bool {
    let r = if rank >= 7 { rank - 7 } else { rank };
    (file == 4 && r == 1) || ((file == 3 || file == 5) && (r == 0 || r == 2))
}

const fn own_half(rank: i32, color: usize) -> bool {
    if color == 0 {
        rank <= 4
    } else {
        rank >= 5
    }
}

/// Orthogonal rays: `RAYS[sq][dir]` lists squares outward, `RAY_LEN[sq][dir]` how many.
/// Directions: 0 up (towards rank 9), 1 down, 2 right (towards file i), 3 left.
pub static RAYS: [[[u8; 9]; 4]; 90] = build_rays().0;
pub static RAY_LEN: [[u8; 4]; 90] = build_rays().1;

const fn build_rays() -> ([[[u8; 9]; 4]; 90], [[u8; 4]; 90]) {
    let mut rays = [[[NONE; 9]; 4]; 90];
    let mut lens = [[0u8; 4]; 90];
    let dirs = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = dirs[d];
            let mut n = 0;
            let (mut x, mut y) = (f + df, r + dr);
            while sq(x, y) != NONE {
                rays[s][d][n] = sq(x, y);
                n += 1;
                x += df;
                y += dr;
            }
            lens[s][d] = n as u8;
            d += 1;
        }
        s += 1;
    }
    (rays, lens)
}

/// Palace-diagonal rays (Janggi chariots and cannons): up to 4 rays of up to 2 squares.
pub static DIAG_RAYS: [[[u8; 2]; 4]; 90] = build_diag_rays().0;
pub static DIAG_RAY_LEN: [[u8; 4]; 90] = build_diag_rays().1;

const fn build_diag_rays() -> ([[[u8; 2]; 4]; 90], [[u8; 4]; 90]) {
    let mut rays = [[[NONE; 2]; 4]; 90];
    let mut lens = [[0u8; 4]; 90];
    let dirs = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let palace = if in_palace(f, r, 0) {
            0
        } else if in_palace(f, r, 1) {
            1
        } else {
            2
        };
        if palace < 2 && on_palace_diagonal(f, r) {
            let mut d = 0;
            while d < 4 {
                let (df, dr) = dirs[d];
                let (mut x, mut y) = (f + df, r + dr);
                let mut n = 0;
                while in_palace(x, y, palace) && n < 2 {
                    rays[s][d][n] = sq(x, y);
                    n += 1;
                    x += df;
                    y += dr;
                }
                lens[s][d] = n as u8;
                d += 1;
            }
        }
        s += 1;
    }
    (rays, lens)
}

/// Horse moves with their leg (both games).
pub static HORSE: [Steps<8>; 90] = build_horse();
/// Horse attacks read backwards: `HORSE_FROM[t]` lists horse squares that reach `t`, with the leg.
pub static HORSE_FROM: [Steps<8>; 90] = invert(&HORSE);

const fn build_horse() -> [Steps<8>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let jumps = [
        (1, 2),
        (-1, 2),
        (1, -2),
        (-1, -2),
        (2, 1),
        (2, -1),
        (-2, 1),
        (-2, -1),
    ];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut i = 0;
        while i < 8 {
            let (df, dr) = jumps[i];
            let to = sq(f + df, r + dr);
            if to != NONE {
                let leg = if df == 1 || df == -1 {
                    sq(f, r + dr / 2)
                } else {
                    sq(f + df / 2, r)
                };
                t[s] = t[s].push(to, leg, NONE);
            }
            i += 1;
        }
        s += 1;
    }
    t
}

/// Reads a step table backwards: for each target, the origins that reach it (with the same
/// blocking squares).
const fn invert<const N: usize>(fwd: &[Steps<N>; 90]) -> [Steps<N>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < fwd[s].len as usize {
            let to = fwd[s].to[i] as usize;
            t[to] = t[to].push(s as u8, fwd[s].block[i][0], fwd[s].block[i][1]);
            i += 1;
        }
        s += 1;
    }
    t
}

/// Janggi elephant: one step straight, then two diagonally outward; both passed squares empty.
pub static JANGGI_ELEPHANT: [Steps<8>; 90] = build_janggi_elephant();
/// Janggi elephant read backwards.
pub static JANGGI_ELEPHANT_FROM: [Steps<8>; 90] = invert(&JANGGI_ELEPHANT);

const fn build_janggi_elephant() -> [Steps<8>; 90] {
    let mut t = [Steps::EMPTY; 90];
    // (straight step, diagonal direction)
    let shapes = [
        ((0, 1), (1, 1)),
        ((0, 1), (-1, 1)),
        ((0, -1), (1, -1)),
        ((0, -1), (-1, -1)),
        ((1, 0), (1, 1)),
        ((1, 0), (1, -1)),
        ((-1, 0), (-1, 1)),
        ((-1, 0), (-1, -1)),
    ];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut i = 0;
        while i < 8 {
            let ((sf, sr), (df, dr)) = shapes[i];
            let b0 = sq(f + sf, r + sr);
            let b1 = sq(f + sf + df, r + sr + dr);
            let to = sq(f + sf + 2 * df, r + sr + 2 * dr);
            if to != NONE {
                t[s] = t[s].push(to, b0, b1);
            }
            i += 1;
        }
        s += 1;
    }
    t
}

/// Xiangqi elephant (two points diagonally, eye in between, never across the river), per colour.
pub static XQ_ELEPHANT: [[Steps<4>; 90]; 2] = [build_xq_elephant(0), build_xq_elephant(1)];

const fn build_xq_elephant(color: usize) -> [Steps<4>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let dirs = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut i = 0;
        while i < 4 {
            let (df, dr) = dirs[i];
            let to = sq(f + 2 * df, r + 2 * dr);
            if to != NONE && own_half(r + 2 * dr, color) {
                t[s] = t[s].push(to, sq(f + df, r + dr), NONE);
            }
            i += 1;
        }
        s += 1;
    }
    t
}

/// Xiangqi advisor: one point diagonally inside its own palace.
pub static XQ_ADVISOR: [[Steps<4>; 90]; 2] = [
    build_palace_steps(0, false, true),
    build_palace_steps(1, false, true),
];
/// Xiangqi general: one point orthogonally inside its own palace.
pub static XQ_KING: [[Steps<4>; 90]; 2] = [
    build_palace_steps(0, true, false),
    build_palace_steps(1, true, false),
];
/// Janggi general and guards: one point along the palace lines, diagonals included.
pub static JANGGI_PALACE: [[Steps<8>; 90]; 2] = [build_janggi_palace(0), build_janggi_palace(1)];

const fn build_palace_steps(color: usize, orthogonal: bool, diagonal: bool) -> [Steps<4>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let dirs = [
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r, color) {
            let mut i = 0;
            while i < 8 {
                let (df, dr) = dirs[i];
                let wanted = if i < 4 { orthogonal } else { diagonal };
                if wanted && in_palace(f + df, r + dr, color) {
                    t[s] = t[s].push(sq(f + df, r + dr), NONE, NONE);
                }
                i += 1;
            }
        }
        s += 1;
    }
    t
}

const fn build_janggi_palace(color: usize) -> [Steps<8>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let dirs = [
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r, color) {
            let mut i = 0;
            while i < 8 {
                let (df, dr) = dirs[i];
                let diagonal_ok =
                    i < 4 || (on_palace_diagonal(f, r) && on_palace_diagonal(f + df, r + dr));
                if diagonal_ok && in_palace(f + df, r + dr, color) {
                    t[s] = t[s].push(sq(f + df, r + dr), NONE, NONE);
                }
                i += 1;
            }
        }
        s += 1;
    }
    t
}

/// Xiangqi soldier: forward, and sideways once across the river.
pub static XQ_PAWN: [[Steps<4>; 90]; 2] = [build_xq_pawn(0), build_xq_pawn(1)];
/// Xiangqi soldier read backwards: soldiers of that colour that attack a square.
pub static XQ_PAWN_FROM: [[Steps<4>; 90]; 2] = [invert(&XQ_PAWN[0]), invert(&XQ_PAWN[1])];

const fn build_xq_pawn(color: usize) -> [Steps<4>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let fwd = if color == 0 { 1 } else { -1 };
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let to = sq(f, r + fwd);
        if to != NONE {
            t[s] = t[s].push(to, NONE, NONE);
        }
        if !own_half(r, color) {
            if sq(f + 1, r) != NONE {
                t[s] = t[s].push(sq(f + 1, r), NONE, NONE);
            }
            if sq(f - 1, r) != NONE {
                t[s] = t[s].push(sq(f - 1, r), NONE, NONE);
            }
        }
        s += 1;
    }
    t
}

/// Janggi soldier: forward or sideways anywhere, and diagonally forward along the lines of
/// the enemy palace.
pub static JANGGI_PAWN: [[Steps<8>; 90]; 2] = [build_janggi_pawn(0), build_janggi_pawn(1)];
/// Janggi soldier read backwards.
pub static JANGGI_PAWN_FROM: [[Steps<8>; 90]; 2] =
    [invert(&JANGGI_PAWN[0]), invert(&JANGGI_PAWN[1])];

const fn build_janggi_pawn(color: usize) -> [Steps<8>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let fwd = if color == 0 { 1 } else { -1 };
    let enemy = 1 - color;
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let cand = [(0, fwd), (1, 0), (-1, 0)];
        let mut i = 0;
        while i < 3 {
            let to = sq(f + cand[i].0, r + cand[i].1);
            if to != NONE {
                t[s] = t[s].push(to, NONE, NONE);
            }
            i += 1;
        }
        if in_palace(f, r, enemy) && on_palace_diagonal(f, r) {
            let mut df = -1;
            while df <= 1 {
                if in_palace(f + df, r + fwd, enemy) && on_palace_diagonal(f + df, r + fwd) {
                    // A diagonal step only exists between the centre and a corner.
                    if f == 4 || f + df == 4 {
                        t[s] = t[s].push(sq(f + df, r + fwd), NONE, NONE);
                    }
                }
                df += 2;
            }
        }
        s += 1;
    }
    t
}

/// Squares whose change (a piece leaving or arriving) can change whether a general on the
/// square is attacked: its rank and file, the horse legs (and, in Janggi, the elephant blocks
/// and palace diagonals) around it. Moves touching none of them cannot expose the general.
pub static XQ_KING_SENSITIVE: [u128; 90] = build_sensitive(false);
/// Janggi version of [`XQ_KING_SENSITIVE`].
pub static JANGGI_KING_SENSITIVE: [u128; 90] = build_sensitive(true);
/// The legs of the horses that could attack a square.
pub static HORSE_LEGS: [u128; 90] = build_block_mask(&HORSE_FROM);
/// The squares that block Janggi elephants attacking a square.
pub static ELEPHANT_BLOCKS: [u128; 90] = build_block_mask(&JANGGI_ELEPHANT_FROM);
/// The squares on a point's palace-diagonal rays.
pub static DIAGONALS: [u128; 90] = build_diagonal_mask();

const fn build_block_mask(from: &[Steps<8>; 90]) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < from[s].len as usize {
            let mut j = 0;
            while j < 2 {
                if from[s].block[i][j] != NONE {
                    t[s] |= 1u128 << from[s].block[i][j];
                }
                j += 1;
            }
            i += 1;
        }
        s += 1;
    }
    t
}

const fn build_diagonal_mask() -> [u128; 90] {
    let (rays, lens) = build_diag_rays();
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut d = 0;
        while d < 4 {
            let mut i = 0;
            while i < lens[s][d] as usize {
                t[s] |= 1u128 << rays[s][d][i];
                i += 1;
            }
            d += 1;
        }
        s += 1;
    }
    t
}

const fn build_sensitive(janggi: bool) -> [u128; 90] {
    let horse = build_block_mask(&invert(&build_horse()));
    let elephant = build_block_mask(&invert(&build_janggi_elephant()));
    let diagonals = build_diagonal_mask();
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut m = horse[s];
        let mut x = 0;
        while x < 90 {
            if x % 9 == s % 9 || x / 9 == s / 9 {
                m |= 1u128 << x;
            }
            x += 1;
        }
        if janggi {
            m |= elephant[s] | diagonals[s];
        }
        t[s] = m;
        s += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horse_from_corner_and_centre() {
        assert_eq!(HORSE[0].len, 2); // a0: b2, c1
        assert_eq!(HORSE[4 * 9 + 4].len, 8);
        // b0 -> c2 has its leg on b1.
        let b0 = 1usize;
        let i = (0..HORSE[b0].len as usize)
            .find(|&i| HORSE[b0].to[i] == 2 * 9 + 2)
            .unwrap();
        assert_eq!(HORSE[b0].block[i][0], 9 + 1);
    }

    #[test]
    fn palace_tables() {
        let e1 = 9 + 4;
        assert_eq!(JANGGI_PALACE[0][e1].len, 8);
        let d1 = 9 + 3; // edge midpoint: no diagonals
        assert_eq!(JANGGI_PALACE[0][d1].len, 3);
        assert_eq!(XQ_ADVISOR[0][e1].len, 4);
        assert_eq!(XQ_KING[0][4].len, 3);
        assert_eq!(DIAG_RAY_LEN[3], [2, 0, 0, 0]); // d0 -> e1, f2
    }

    #[test]
    fn janggi_soldier_in_palace() {
        // Cho soldier on d7 may go d8, c7, e7 and diagonally to e8.
        let d7 = 7 * 9 + 3;
        assert_eq!(JANGGI_PAWN[0][d7].len, 4);
        // ... but on e7 it has no diagonal (e7 is not on a diagonal).
        assert_eq!(JANGGI_PAWN[0][7 * 9 + 4].len, 3);
        // On e8 it may reach d9 and f9 as well as e9, d8, f8.
        assert_eq!(JANGGI_PAWN[0][8 * 9 + 4].len, 5);
    }
}
