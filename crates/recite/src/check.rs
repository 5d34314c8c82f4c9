//! The checker: aligns a transcript with its reference and turns the
//! alignment into an accuracy and typed, placed errors — the way a careful
//! teacher would mark it.
//!
//! Steps, in order:
//! 1. Units of both texts ([`crate::normalize`]); numbers in the transcript
//!    take the reading the reference uses.
//! 2. An optimal alignment ([`crate::align`]): matched reference units are the
//!    accuracy's numerator. Omissions inside a run of identical units are
//!    placed last (鹅，鹅 for 鹅，鹅，鹅 misses the third 鹅).
//! 3. Order: a block left out in one place and recited in another is one
//!    `order` error (swapped neighbours, swapped or moved lines), not an
//!    omission plus an insertion.
//! 4. Voice mode only: hesitation fillers (嗯, um) and restarts (re-reading a
//!    few units, even with a slip the child then corrected) are not errors.
//! 5. Between two matched units, what the reference has and the transcript
//!    has instead are paired as substitutions (by sound similarity); the rest
//!    are omissions (split per line) and insertions.

use std::ops::Range;

use crate::align::{self, Fit, Op, MAX_CELLS};
use crate::normalize::{Key, Unit};
use crate::reference::{join_units, Reference, Transcript};
use crate::sound;
use crate::verdict::{accuracy, ErrorKind, ErrorType, LineScore, RecitationError, Verdict};
use crate::{CheckError, Lang, Mode};

/// A transcript unit whose speech-recognition confidence is below this makes
/// the errors it is part of `uncertain`. Misheard characters score about
/// 0.4–0.66 in whisper, confidently heard ones 0.97–0.99.
pub const UNCERTAIN_BELOW: f32 = 0.8;

/// Whether reference unit `r` counts as recited by transcript unit `t`: the
/// same normalized text, or in voice mode the same sound (a shared reading
/// with tone for Chinese, a homophone for English words).
pub(crate) fn same(mode: Mode, r: &Unit, t: &Unit) -> bool {
    if r.text == t.text {
        return true;
    }
    match (mode, &r.key, &t.key) {
        (Mode::Voice, Key::Hanzi(a), Key::Hanzi(b)) => a.same_sound(b),
        (Mode::Voice, Key::Word(a), Key::Word(b)) => a == b,
        _ => false,
    }
}

/// State of each unit as the errors are worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    Matched,
    Used,
}

/// The stretch between two matched units.
#[derive(Debug, Clone)]
struct Gap {
    refs: Range<usize>,
    trans: Range<usize>,
}

struct Work<'a> {
    mode: Mode,
    lang: Lang,
    reference: &'a Reference,
    r: &'a [Unit],
    t: &'a [Unit],
    transcript: &'a Transcript,
    ref_match: Vec<Option<usize>>,
    /// The transcript unit each reference unit was misheard or misspoken as.
    ref_substituted: Vec<Option<usize>>,
    rs: Vec<State>,
    ts: Vec<State>,
    errors: Vec<RecitationError>,
    fillers: usize,
    restarted: usize,
}

/// Checks a transcript against a reference. Pure: no I/O, no clock.
///
/// Errors only for input that cannot be checked: confidences that do not
/// fit the transcript, or a transcript so long against its reference that
/// the alignment would not fit in memory ([`MAX_CELLS`]).
pub fn check(
    reference: &Reference,
    transcript: &Transcript,
    mode: Mode,
) -> Result<Verdict, CheckError> {
    if let Some(c) = &transcript.confidences {
        let chars = transcript.text.chars().count();
        if c.len() != chars {
            return Err(CheckError::Confidences {
                chars,
                confidences: c.len(),
            });
        }
    }
    let t = transcript.units(reference, mode);
    let r = reference.units();
    let (n, m) = (r.len(), t.len());
    let max_units = MAX_CELLS / (n + 1) - 1;
    if m > max_units {
        return Err(CheckError::TranscriptTooLong {
            units: m,
            max: max_units,
        });
    }
    let ops = align::align(n, m, |i, j| {
        if r[i].text == t[j].text {
            Fit::Exact
        } else if same(mode, &r[i], &t[j]) {
            Fit::Sound
        } else {
            Fit::No
        }
    });
    let mut ref_match = vec![None; n];
    for op in &ops {
        if let Op::Match(i, j) = *op {
            ref_match[i] = Some(j);
        }
    }
    let mut w = Work {
        mode,
        lang: reference.lang(),
        reference,
        r,
        t: &t,
        transcript,
        ref_match,
        ref_substituted: vec![None; n],
        rs: vec![State::Free; n],
        ts: vec![State::Free; m],
        errors: Vec::new(),
        fillers: 0,
        restarted: 0,
    };
    w.place_omissions_last();
    for (i, j) in w.ref_match.iter().enumerate() {
        if let Some(j) = *j {
            w.rs[i] = State::Matched;
            w.ts[j] = State::Matched;
        }
    }
    let gaps = w.gaps();
    w.find_order(&gaps);
    if mode == Mode::Voice {
        w.forgive_fillers_and_restarts(&gaps);
    }
    w.pair_substitutions(&gaps);
    w.report_omissions();
    w.report_insertions(&gaps);
    w.mark_uncertain();
    let correct = w.ref_match.iter().filter(|m| m.is_some()).count();
    let lines = reference
        .lines()
        .iter()
        .enumerate()
        .map(|(k, l)| LineScore {
            line: k + 1,
            text: l.text.clone(),
            units: l.end - l.start,
            correct: w.ref_match[l.start..l.end]
                .iter()
                .filter(|m| m.is_some())
                .count(),
        })
        .collect();
    let mut errors = w.errors;
    errors.sort_by_key(|e| (e.line, e.offset, e.error_type as u8));
    Ok(Verdict {
        lang: reference.lang(),
        mode,
        units: n,
        correct,
        accuracy: accuracy(correct, n),
        errors,
        lines,
        fillers: w.fillers,
        restarted: w.restarted,
    })
}

impl Work<'_> {
    fn same(&self, i: usize, j: usize) -> bool {
        same(self.mode, &self.r[i], &self.t[j])
    }

    fn same_t(&self, a: usize, b: usize) -> bool {
        same(self.mode, &self.t[a], &self.t[b])
    }

    /// Within a run of identical reference units, an omission is placed after
    /// the recited ones: shifts each omitted block right while the unit after
    /// it can take over the match.
    fn place_omissions_last(&mut self) {
        let n = self.r.len();
        let mut i = 0;
        while i < n {
            if self.ref_match[i].is_some() {
                i += 1;
                continue;
            }
            let a = i;
            let mut b = i;
            while b < n && self.ref_match[b].is_none() {
                b += 1;
            }
            // Omitted [a, b); shift while ref[a] can take ref[b]'s match and no
            // transcript unit sits between the previous match and it.
            let (mut a, mut b) = (a, b);
            while b < n {
                let Some(jb) = self.ref_match[b] else { break };
                let prev_j = self.ref_match[..a].iter().rev().find_map(|m| *m);
                let adjacent = prev_j.map_or(jb == 0, |p| jb == p + 1);
                if !adjacent || !self.same(a, jb) {
                    break;
                }
                self.ref_match[a] = Some(jb);
                self.ref_match[b] = None;
                a += 1;
                b += 1;
            }
            i = b.max(i + 1);
        }
    }

    fn gaps(&self) -> Vec<Gap> {
        let mut gaps = Vec::new();
        let (mut ri, mut tj) = (0usize, 0usize);
        for (i, m) in self.ref_match.iter().enumerate() {
            if let Some(j) = *m {
                if ri < i || tj < j {
                    gaps.push(Gap {
                        refs: ri..i,
                        trans: tj..j,
                    });
                }
                ri = i + 1;
                tj = j + 1;
            }
        }
        if ri < self.r.len() || tj < self.t.len() {
            gaps.push(Gap {
                refs: ri..self.r.len(),
                trans: tj..self.t.len(),
            });
        }
        gaps
    }

    /// Finds blocks recited in the wrong place: left out in one gap, present
    /// in another. Each becomes one `order` error.
    fn find_order(&mut self, gaps: &[Gap]) {
        let omitted: usize = gaps.iter().map(|g| g.refs.len()).sum();
        let inserted: usize = gaps.iter().map(|g| g.trans.len()).sum();
        if omitted == 0 || inserted == 0 || omitted.saturating_mul(inserted) > 1_000_000 {
            return;
        }
        for _ in 0..64 {
            let mut best: Option<(usize, usize, usize, usize)> = None; // (len, ref start, trans start, anchor)
            for (go, gap_o) in gaps.iter().enumerate() {
                if gap_o.refs.is_empty() {
                    continue;
                }
                for (gi, gap_i) in gaps.iter().enumerate() {
                    if gi == go || gap_i.trans.is_empty() {
                        continue;
                    }
                    if let Some((len, rs, ts)) = self.common_block(&gap_o.refs, &gap_i.trans) {
                        let anchor = gap_i.refs.start;
                        let distance = if anchor <= rs {
                            rs - anchor
                        } else {
                            anchor.saturating_sub(rs + len)
                        };
                        let plausible = len >= 2 || distance <= 2;
                        if plausible && best.is_none_or(|b| len > b.0) {
                            best = Some((len, rs, ts, anchor));
                        }
                    }
                }
            }
            let Some((len, rs, ts, anchor)) = best else {
                break;
            };
            self.report_order(len, rs, ts, anchor, gaps);
        }
    }

    /// Longest run of free reference units in `refs` that the free transcript
    /// units in `trans` recite, as (length, reference start, transcript start).
    fn common_block(
        &self,
        refs: &Range<usize>,
        trans: &Range<usize>,
    ) -> Option<(usize, usize, usize)> {
        let (a, b) = (refs.len(), trans.len());
        let mut prev = vec![0usize; b + 1];
        let mut cur = vec![0usize; b + 1];
        let mut best = (0, 0, 0);
        for x in 0..a {
            let i = refs.start + x;
            for y in 0..b {
                let j = trans.start + y;
                cur[y + 1] =
                    if self.rs[i] == State::Free && self.ts[j] == State::Free && self.same(i, j) {
                        prev[y] + 1
                    } else {
                        0
                    };
                if cur[y + 1] > best.0 {
                    best = (cur[y + 1], i + 1 - cur[y + 1], j + 1 - cur[y + 1]);
                }
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        (best.0 > 0).then_some(best)
    }

    fn report_order(&mut self, len: usize, rs: usize, ts: usize, anchor: usize, gaps: &[Gap]) {
        for k in 0..len {
            self.rs[rs + k] = State::Used;
            self.ts[ts + k] = State::Used;
        }
        // A moved line may carry a slip: pair up to a third of its length in
        // mismatched neighbours on each side as substitutions inside the block.
        let (gap_r, gap_t) = match (
            gaps.iter().find(|g| g.refs.contains(&rs)),
            gaps.iter().find(|g| g.trans.contains(&ts)),
        ) {
            (Some(a), Some(b)) => (a.refs.clone(), b.trans.clone()),
            _ => (rs..rs + len, ts..ts + len),
        };
        let (mut lo_r, mut lo_t, mut hi_r, mut hi_t) = (rs, ts, rs + len, ts + len);
        for _ in 0..len / 3 {
            if hi_r < gap_r.end
                && hi_t < gap_t.end
                && self.rs[hi_r] == State::Free
                && self.ts[hi_t] == State::Free
            {
                self.substitution(hi_r, hi_t);
                hi_r += 1;
                hi_t += 1;
            }
            if lo_r > gap_r.start
                && lo_t > gap_t.start
                && self.rs[lo_r - 1] == State::Free
                && self.ts[lo_t - 1] == State::Free
            {
                lo_r -= 1;
                lo_t -= 1;
                self.substitution(lo_r, lo_t);
            }
        }
        // Show the stretch the block moved across: the reference from where it
        // belongs to where it was said, and the transcript over the same stretch.
        let (lo, hi) = (rs.min(anchor), (rs + len).max(anchor));
        let mut t_lo = ts;
        let mut t_hi = ts + len;
        for j in self.ref_match[lo..hi].iter().flatten() {
            t_lo = t_lo.min(*j);
            t_hi = t_hi.max(j + 1);
        }
        let wide = hi - lo > 2 * len + 10;
        let (expected, actual) = if wide {
            (
                self.reference.text_of(rs..rs + len),
                join_units(&self.t[ts..ts + len], self.lang),
            )
        } else {
            let shown: Vec<Unit> = self.t[t_lo..t_hi]
                .iter()
                .filter(|u| !u.filler)
                .cloned()
                .collect();
            (
                self.reference.text_of(lo..hi),
                join_units(&shown, self.lang),
            )
        };
        let whole_line = self
            .reference
            .lines()
            .iter()
            .any(|l| l.start == rs && l.end == rs + len);
        let kind = if len <= 2 && hi - lo <= 2 * len + 1 {
            ErrorKind::Swap
        } else if whole_line {
            ErrorKind::Line
        } else {
            ErrorKind::Move
        };
        let (line, offset) = self.reference.place(lo);
        let mut e = RecitationError::new(
            ErrorType::Order,
            kind,
            self.mode,
            self.lang,
            (line + 1, offset),
            expected,
            actual,
        );
        e.span = if wide { rs..rs + len } else { lo..hi };
        e.heard = self.t[ts].src.start..self.t[ts + len - 1].src.end;
        self.errors.push(e);
    }

    /// Voice mode: fillers and restarted stretches are not errors.
    fn forgive_fillers_and_restarts(&mut self, gaps: &[Gap]) {
        for j in 0..self.t.len() {
            if self.ts[j] == State::Free && self.t[j].filler {
                self.ts[j] = State::Used;
                self.fillers += 1;
            }
        }
        let longest_line = self
            .reference
            .lines()
            .iter()
            .map(|l| l.end - l.start)
            .max()
            .unwrap_or(0);
        let max_restart = (2 * longest_line).max(4);
        for gap in gaps {
            let run: Vec<usize> = gap
                .trans
                .clone()
                .filter(|&j| self.ts[j] == State::Free)
                .collect();
            // Where the reference has as many units left here as were heard
            // (瀑布 heard as 不不), a doubled unit stands for a misheard one,
            // not a re-read: it is left to be paired as a substitution, which
            // the audio can then accept. A re-read adds units: the reference
            // has none left where it was heard.
            let refs_left = gap
                .refs
                .clone()
                .filter(|&i| self.rs[i] == State::Free)
                .count();
            if run.is_empty() || refs_left >= run.len() {
                continue;
            }
            // A re-read: the run's tail is said again right after it.
            let mut end = run.len();
            for start in 0..run.len() {
                let tail = &run[start..];
                if tail.len() > max_restart {
                    continue;
                }
                let next = self.following(tail[tail.len() - 1] + 1, tail.len());
                if next.len() == tail.len() && self.restart_like(tail, &next) {
                    for &j in tail {
                        self.ts[j] = State::Used;
                    }
                    self.restarted += tail.len();
                    end = start;
                    break;
                }
            }
            // A stutter: the run's head repeats what was just said, heard
            // alike as a re-read is (福滴福地 for 拂堤拂堤: the copy matched
            // is the first, and its repeat was heard in another tone).
            for stop in (1..=end).rev() {
                let head = &run[..stop];
                if head.len() > max_restart {
                    continue;
                }
                let before = self.preceding(head[0], head.len());
                if before.len() == head.len() && self.restart_like(&before, head) {
                    for &j in head {
                        self.ts[j] = State::Used;
                    }
                    self.restarted += head.len();
                    break;
                }
            }
        }
    }

    /// Up to `k` non-filler transcript units from `from` on.
    fn following(&self, from: usize, k: usize) -> Vec<usize> {
        (from..self.t.len())
            .filter(|&j| !self.t[j].filler)
            .take(k)
            .collect()
    }

    /// Up to `k` non-filler transcript units before `before`, in order.
    fn preceding(&self, before: usize, k: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..before)
            .rev()
            .filter(|&j| !self.t[j].filler)
            .take(k)
            .collect();
        v.reverse();
        v
    }

    /// A first try that the child then said again: the same units, or (for
    /// two or more) the same start with at most a quarter corrected.
    fn restart_like(&self, first: &[usize], again: &[usize]) -> bool {
        let misses = first
            .iter()
            .zip(again)
            .filter(|(&a, &b)| !self.same_t(a, b))
            .count();
        match first.len() {
            0 => false,
            1 => misses == 0,
            k => self.same_t(first[0], again[0]) && misses <= (k / 4).max(1),
        }
    }

    /// Pairs what the reference has and the transcript has instead, gap by
    /// gap, as substitutions, choosing pairs by sound similarity.
    fn pair_substitutions(&mut self, gaps: &[Gap]) {
        for gap in gaps {
            let rr: Vec<usize> = gap
                .refs
                .clone()
                .filter(|&i| self.rs[i] == State::Free)
                .collect();
            let tt: Vec<usize> = gap
                .trans
                .clone()
                .filter(|&j| self.ts[j] == State::Free)
                .collect();
            if rr.is_empty() || tt.is_empty() {
                continue;
            }
            for (i, j) in self.best_pairs(&rr, &tt) {
                self.substitution(i, j);
            }
        }
    }

    /// An alignment of two short lists minimising cost: pairing similar units
    /// is cheap, any pair is cheaper than leaving both unpaired.
    fn best_pairs(&self, rr: &[usize], tt: &[usize]) -> Vec<(usize, usize)> {
        let (a, b) = (rr.len(), tt.len());
        if a.saturating_mul(b) > 40_000 {
            return rr.iter().copied().zip(tt.iter().copied()).collect();
        }
        let cost = |i: usize, j: usize| {
            if self.similar(i, j) {
                0.4
            } else if self.mode == Mode::Voice && self.rhyming(i, j) {
                0.65
            } else {
                0.9
            }
        };
        let w = b + 1;
        let mut dp = vec![0f32; (a + 1) * w];
        for x in 0..=a {
            for y in 0..=b {
                dp[x * w + y] = match (x, y) {
                    (0, _) => y as f32,
                    (_, 0) => x as f32,
                    _ => (dp[(x - 1) * w + y - 1] + cost(rr[x - 1], tt[y - 1]))
                        .min(dp[(x - 1) * w + y] + 1.0)
                        .min(dp[x * w + y - 1] + 1.0),
                };
            }
        }
        let mut pairs = Vec::new();
        let (mut x, mut y) = (a, b);
        while x > 0 && y > 0 {
            let here = dp[x * w + y];
            // On ties leave the *last* units unpaired: a child who says
            // something for the start of a stretch and then stops is the
            // likelier story ("great ball" for "great fall. All").
            if (here - (dp[(x - 1) * w + y] + 1.0)).abs() < 1e-4 {
                x -= 1;
            } else if (here - (dp[x * w + y - 1] + 1.0)).abs() < 1e-4 {
                y -= 1;
            } else {
                pairs.push((rr[x - 1], tt[y - 1]));
                x -= 1;
                y -= 1;
            }
        }
        pairs.reverse();
        pairs
    }

    /// Near misses: the same syllable (Chinese), or a word that sounds the same
    /// or is spelt nearly the same.
    fn similar(&self, i: usize, j: usize) -> bool {
        match (&self.r[i].key, &self.t[j].key) {
            (Key::Hanzi(a), Key::Hanzi(b)) => a.same_syllable(b),
            (Key::Word(a), Key::Word(b)) => {
                a == b || close_spelling(&self.r[i].text, &self.t[j].text)
            }
            _ => false,
        }
    }

    /// Chinese characters whose syllables share a final (虚 xū, 曲 qū):
    /// not near enough to be a tone error, but the likelier pair when a
    /// stretch was heard shorter than it is (鹅，鹅，鹅，曲 heard as 虚).
    /// Voice mode only: a typed character that merely rhymes is no likelier
    /// to stand for one than another.
    fn rhyming(&self, i: usize, j: usize) -> bool {
        let rhyme = |u: &Unit| match u.key {
            Key::Hanzi(_) => u.text.chars().next().and_then(sound::rhyme),
            _ => None,
        };
        rhyme(&self.r[i]).is_some_and(|a| rhyme(&self.t[j]) == Some(a))
    }

    fn substitution(&mut self, i: usize, j: usize) {
        self.rs[i] = State::Used;
        self.ts[j] = State::Used;
        let near = self.similar(i, j);
        let kind = match (self.mode, self.lang, &self.r[i].key) {
            (Mode::Voice, _, Key::Hanzi(_)) if near => ErrorKind::Tone,
            (Mode::Voice, _, _) => ErrorKind::Sound,
            (Mode::Text, _, Key::Hanzi(_)) if near => ErrorKind::Homophone,
            (Mode::Text, _, Key::Word(_)) if near => ErrorKind::Spelling,
            (Mode::Text, _, _) => ErrorKind::Other,
        };
        let (line, offset) = self.reference.place(i);
        let mut e = RecitationError::new(
            ErrorType::Substitution,
            kind,
            self.mode,
            self.lang,
            (line + 1, offset),
            self.r[i].text.clone(),
            self.t[j].text.clone(),
        );
        e.uncertain = self.unsure(std::iter::once(j));
        e.heard = self.t[j].src.clone();
        if let Some(s) = self.ref_substituted.get_mut(i) {
            *s = Some(j);
        }
        self.errors.push(e);
    }

    /// Omissions: runs of unrecited reference units, one error per line.
    fn report_omissions(&mut self) {
        let n = self.r.len();
        let mut i = 0;
        while i < n {
            if self.rs[i] != State::Free {
                i += 1;
                continue;
            }
            let (line, offset) = self.reference.place(i);
            let line_range = self
                .reference
                .lines()
                .get(line)
                .map_or(i..i + 1, |l| l.start..l.end);
            let mut end = i;
            while end < line_range.end && self.rs[end] == State::Free {
                self.rs[end] = State::Used;
                end += 1;
            }
            let kind = if line_range == (i..end) {
                ErrorKind::Line
            } else {
                ErrorKind::Part
            };
            let mut e = RecitationError::new(
                ErrorType::Omission,
                kind,
                self.mode,
                self.lang,
                (line + 1, offset),
                self.reference.text_of(i..end),
                String::new(),
            );
            let at = self.heard_before(i);
            e.heard = at..at;
            e.uncertain = self.transcript.unsure_gaps.contains(&at);
            self.errors.push(e);
            i = end;
        }
    }

    /// Insertions: runs of transcript units left over, placed before the next
    /// matched reference unit.
    fn report_insertions(&mut self, gaps: &[Gap]) {
        for gap in gaps {
            let mut j = gap.trans.start;
            while j < gap.trans.end {
                if self.ts[j] != State::Free {
                    j += 1;
                    continue;
                }
                let start = j;
                while j < gap.trans.end && self.ts[j] == State::Free {
                    self.ts[j] = State::Used;
                    j += 1;
                }
                let (line, offset) = self.reference.place(gap.refs.end);
                let mut e = RecitationError::new(
                    ErrorType::Insertion,
                    ErrorKind::Extra,
                    self.mode,
                    self.lang,
                    (line + 1, offset),
                    String::new(),
                    join_units(&self.t[start..j], self.lang),
                );
                e.uncertain = self.unsure(start..j);
                e.heard = self.t[start].src.start..self.t[j - 1].src.end;
                self.errors.push(e);
            }
        }
    }

    /// The transcript position (char index) just after what was recited
    /// — right or wrong — for the reference units before `i`: where
    /// reference unit `i` belongs.
    fn heard_before(&self, i: usize) -> usize {
        let heard_as = |k: usize| self.ref_match[k].or(self.ref_substituted[k]);
        match (0..i).rev().find_map(heard_as) {
            Some(j) => self.t[j].src.end,
            None => (i..self.r.len())
                .find_map(heard_as)
                .map_or(0, |j| self.t[j].src.start),
        }
    }

    fn unsure(&self, units: impl IntoIterator<Item = usize>) -> bool {
        units
            .into_iter()
            .filter_map(|j| {
                self.t
                    .get(j)
                    .and_then(|u| self.transcript.confidence(&u.src))
            })
            .any(|c| c < UNCERTAIN_BELOW)
    }

    /// Only speech can be misheard: typed text is never uncertain.
    fn mark_uncertain(&mut self) {
        if self.mode == Mode::Text {
            for e in &mut self.errors {
                e.uncertain = false;
            }
        }
    }
}

/// Two words a child could mix up in writing: a small edit distance for
/// their length.
fn close_spelling(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 || a.len().abs_diff(b.len()) > 2 {
        return false;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (x, ca) in a.iter().enumerate() {
        let mut cur = vec![x + 1; b.len() + 1];
        for (y, cb) in b.iter().enumerate() {
            cur[y + 1] = (prev[y] + usize::from(ca != cb))
                .min(prev[y + 1] + 1)
                .min(cur[y] + 1);
        }
        prev = cur;
    }
    let d = prev[b.len()];
    d <= (longest / 3).max(1)
}
