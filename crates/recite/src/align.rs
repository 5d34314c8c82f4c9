//! Optimal alignment of reference and transcript units: a longest common
//! subsequence under the mode's notion of "same unit" (exact characters, or
//! sound in voice mode). The number of matched reference units is the
//! accuracy's numerator.
//!
//! Among equally long alignments, the one with the most exact matches wins
//! (so 衣 pairs with 衣, not with its homophone 意), then the one that matches
//! the *latest* possible transcript units (the backtrace matches greedily
//! from the end). When a child restarts a line, the re-read copy is the one
//! that continues into the rest of the poem, so the earlier, abandoned copy
//! is left over as an insertion that restart detection can recognise.

/// One step of an alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Reference unit `.0` matched transcript unit `.1`.
    Match(usize, usize),
    /// Reference unit not recited.
    Omit(usize),
    /// Transcript unit not in the reference.
    Insert(usize),
}

/// Largest DP table (reference units × transcript units) one check may use:
/// 64 MiB of working memory at most (2^24 cells of 4 bytes).
pub const MAX_CELLS: usize = 1 << 24;

/// How well a reference unit and a transcript unit match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    No,
    /// Same sound, other character (voice mode).
    Sound,
    /// Same normalized text.
    Exact,
}

/// Aligns `n` reference units with `m` transcript units; `fit(i, j)` says how
/// reference unit `i` and transcript unit `j` match. The alignment has the
/// most matches; among those, the most exact ones (so 衣 pairs with 衣, not
/// with its homophone 意 next to it). The caller keeps `(n + 1) × (m + 1)`
/// under [`MAX_CELLS`].
pub(crate) fn align(n: usize, m: usize, fit: impl Fn(usize, usize) -> Fit) -> Vec<Op> {
    // A cell holds (matches << 16) + exact matches: matches dominate, exact
    // matches break ties. Both are at most min(n, m), which MAX_CELLS keeps
    // below 2^16.
    let score = |i: usize, j: usize| -> u32 {
        match fit(i, j) {
            Fit::No => 0,
            Fit::Sound => 1 << 16,
            Fit::Exact => (1 << 16) + 1,
        }
    };
    let w = m + 1;
    let mut dp: Vec<u32> = vec![0; (n + 1) * w];
    for i in 1..=n {
        let (prev, cur) = dp.split_at_mut(i * w);
        let prev = &prev[(i - 1) * w..];
        let cur = &mut cur[..w];
        for j in 1..=m {
            let best = prev[j].max(cur[j - 1]);
            let s = score(i - 1, j - 1);
            cur[j] = if s > 0 {
                best.max(prev[j - 1].saturating_add(s))
            } else {
                best
            };
        }
    }
    let mut ops = Vec::with_capacity(n + m);
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let here = dp[i * w + j];
        if i > 0 && j > 0 {
            let s = score(i - 1, j - 1);
            if s > 0 && here == dp[(i - 1) * w + j - 1].saturating_add(s) {
                ops.push(Op::Match(i - 1, j - 1));
                i -= 1;
                j -= 1;
                continue;
            }
        }
        if i > 0 && (j == 0 || dp[(i - 1) * w + j] >= dp[i * w + j - 1]) {
            ops.push(Op::Omit(i - 1));
            i -= 1;
        } else {
            ops.push(Op::Insert(j - 1));
            j -= 1;
        }
    }
    ops.reverse();
    ops
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn lcs(a: &str, b: &str) -> (usize, Vec<Op>) {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let ops = align(a.len(), b.len(), |i, j| {
            if a[i] == b[j] {
                Fit::Exact
            } else {
                Fit::No
            }
        });
        (
            ops.iter().filter(|o| matches!(o, Op::Match(..))).count(),
            ops,
        )
    }

    #[test]
    fn lengths() {
        assert_eq!(lcs("床前明月光", "床前明月光").0, 5);
        assert_eq!(lcs("床前明月光", "").0, 0);
        assert_eq!(lcs("", "床前").0, 0);
        assert_eq!(lcs("举头望明月", "头举望明月").0, 4);
        assert_eq!(lcs("床前明月光疑是地上霜", "疑是地上霜床前明月光").0, 5);
    }

    #[test]
    fn every_unit_appears_once_in_order() {
        let (_, ops) = lcs("床前明月光疑是地上霜", "嗯疑是地上霜床前明x光");
        let refs: Vec<usize> = ops
            .iter()
            .filter_map(|o| match o {
                Op::Match(i, _) | Op::Omit(i) => Some(*i),
                _ => None,
            })
            .collect();
        let trans: Vec<usize> = ops
            .iter()
            .filter_map(|o| match o {
                Op::Match(_, j) | Op::Insert(j) => Some(*j),
                _ => None,
            })
            .collect();
        assert_eq!(refs, (0..10).collect::<Vec<_>>());
        assert_eq!(trans, (0..11).collect::<Vec<_>>());
    }

    #[test]
    fn exact_matches_win_ties() {
        // 衣 sounds like 意 (yì); the exact pairing must win.
        let a: Vec<char> = "衣意".chars().collect();
        let b: Vec<char> = "衣意".chars().collect();
        let fit = |i: usize, j: usize| match (a[i], b[j]) {
            (x, y) if x == y => Fit::Exact,
            ('衣', '意') | ('意', '衣') => Fit::Sound,
            _ => Fit::No,
        };
        assert_eq!(align(2, 2, fit), [Op::Match(0, 0), Op::Match(1, 1)]);
        let ops = align(2, 1, |i, _| if i == 1 { Fit::Exact } else { Fit::Sound });
        assert_eq!(ops, [Op::Omit(0), Op::Match(1, 0)]);
    }

    #[test]
    fn restarts_match_the_later_copy() {
        let (n, ops) = lcs("床前明月光", "床前床前明月光");
        assert_eq!(n, 5);
        assert_eq!(&ops[..2], &[Op::Insert(0), Op::Insert(1)]);
    }
}
