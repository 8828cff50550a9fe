//! Termination detection on distributed memory: the four-counter method
//! (Mattern, as adapted by Sanders in [Sanders 1999] §2), summed by an asynchronous
//! reduction over a tree of the PEs.
//!
//! No PE of a distributed machine can read a global counter of live work, so
//! each PE counts only what it does itself: `s`, the messages carrying a
//! (non-empty) piece of work that it sent, and `r`, those it received.
//! Requests and "no work" answers are not counted; they carry no work.
//!
//! ## The protocol
//! The PEs form a binary tree (PE `i` has children `2i + 1` and `2i + 2` and
//! parent `(i − 1) / 2`). A *wave* sums `s` and `r` up the tree:
//!
//! 1. Wave 1 starts everywhere at once; wave `k + 1` starts at a PE when the
//!    [`Signal::Wave`]`(k + 1)` from its parent arrives (it forwards the
//!    signal to its children at once).
//! 2. A PE reports for the current wave once it is *idle* — it holds no work —
//!    and every child has reported: it sends [`Signal::Report`] with its own
//!    `s` and `r` added to its children's sums. A busy PE defers its report
//!    until its work is exhausted, so a wave passes a busy PE only when it runs
//!    dry.
//! 3. When the root has the totals `(S_k, R_k)` of wave `k`, it compares them
//!    with the previous wave's: if `R_{k−1} = S_k` the computation is over and
//!    it sends [`Signal::Terminate`] down the tree; otherwise it starts wave
//!    `k + 1`.
//!
//! Sanders' phrasing is "the two sums are identical over two rounds"; the
//! one equality the proof below needs is `R_{k−1} = S_k` (the other
//! equalities follow from it at termination and are not waited for).
//!
//! ## Why it is correct
//! *Safety.* Let `T` be the moment wave `k − 1` ends (the root has its
//! totals). Every read of wave `k − 1` happened before `T`, every read of wave
//! `k` after it (wave `k` starts at a PE only when the root's `Wave(k)` signal
//! reaches it, which the root sends after `T`). The counters only grow, and a
//! piece is counted as sent before it can be received. Writing `S(T)` and
//! `R(T)` for the true sums at `T`,
//!
//! ```text
//! R_{k−1} ≤ R(T) ≤ S(T) ≤ S_k.
//! ```
//!
//! If `R_{k−1} = S_k`, all four are equal. `S(T) = R(T)`: no piece was in
//! transit at `T`. `R_{k−1} = R(T)`: no PE received a piece between its read in
//! wave `k − 1` and `T`. Each PE was idle at that read, and an idle PE becomes
//! busy only by receiving a piece; so at `T` every PE was idle and no work was
//! in transit: the computation was over, and since new work only comes from
//! splitting existing work it stays over. (Reading a single wave is not
//! enough: a PE may report idle, then receive a piece from a PE that reports
//! later after sending it, and the sums of one wave may balance while that
//! piece is being worked.)
//!
//! *Liveness.* Once every piece is exhausted and every transfer received, the
//! counters stop changing and every PE is idle, so every wave completes; the
//! first wave that starts after that moment has `S = R = N` (all transfers),
//! and so does the next one, which then terminates: detection takes at most
//! two waves after the end, each `O(log P)` message latencies deep.
//!
//! The protocol never relies on the order in which messages arrive (MPI keeps
//! the order between two ranks, but the tests here deliver in any order).
//!
//! [`FourCounter`] is the state machine of one PE. It sends nothing itself:
//! every call that may emit signals takes a `send(to, signal)` callback, and
//! the driver (MPI ranks, a simulator) carries the signals.
//!
//! ```
//! use treelb::termination::{FourCounter, Signal};
//!
//! // Two PEs: PE 0 sends one piece to PE 1, which works it and goes idle.
//! let mut pes = [FourCounter::new(0, 2), FourCounter::new(1, 2)];
//! let mut mail: Vec<(usize, usize, Signal)> = Vec::new(); // (from, to, signal)
//! pes[0].work_sent();
//! pes[1].work_received();
//! // Both idle now; deliver signals until nothing moves.
//! loop {
//!     for me in 0..2 {
//!         pes[me].idle(&mut |to, s| mail.push((me, to, s)));
//!     }
//!     let Some((from, to, s)) = mail.pop() else { break };
//!     pes[to].on_signal(from, s, &mut |t, s2| mail.push((to, t, s2)));
//! }
//! assert!(pes.iter().all(FourCounter::is_terminated));
//! ```

/// A message of the termination protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Signal {
    /// Child to parent: the sums of a subtree for one wave.
    Report {
        /// The wave these sums belong to.
        wave: u64,
        /// Pieces sent by the PEs of the subtree.
        sent: u64,
        /// Pieces received by the PEs of the subtree.
        received: u64,
    },
    /// Parent to child: wave `k` starts.
    Wave(u64),
    /// Parent to child: the computation is over.
    Terminate,
}

/// The four-counter detector of one PE (see the module documentation).
#[derive(Clone, Debug)]
pub struct FourCounter {
    me: usize,
    p: usize,
    /// Pieces this PE sent.
    sent: u64,
    /// Pieces this PE received.
    received: u64,
    /// The wave this PE takes part in.
    wave: u64,
    /// Children that have not reported for `wave`.
    waiting: usize,
    /// The children's sums for `wave`.
    sum_sent: u64,
    sum_received: u64,
    /// Whether this PE has reported (or, at the root, evaluated) `wave`.
    reported: bool,
    /// Root: `R` of the previous completed wave.
    previous_received: Option<u64>,
    terminated: bool,
}

impl FourCounter {
    /// The detector of PE `me` of `p`; wave 1 starts at once.
    pub fn new(me: usize, p: usize) -> Self {
        assert!(me < p, "PE {me} out of range for {p} PEs");
        let mut fc = FourCounter {
            me,
            p,
            sent: 0,
            received: 0,
            wave: 1,
            waiting: 0,
            sum_sent: 0,
            sum_received: 0,
            reported: false,
            previous_received: None,
            terminated: false,
        };
        fc.waiting = fc.children().count();
        fc
    }

    /// The parent of this PE in the reduction tree (`None` at the root, PE 0).
    pub fn parent(&self) -> Option<usize> {
        (self.me > 0).then(|| (self.me - 1) / 2)
    }

    /// The children of this PE in the reduction tree.
    pub fn children(&self) -> impl Iterator<Item = usize> + use<> {
        let p = self.p;
        (2 * self.me + 1..=2 * self.me + 2).filter(move |&c| c < p)
    }

    /// Counts a piece of work this PE is about to send. Call it before the
    /// piece can reach its receiver.
    #[inline]
    pub fn work_sent(&mut self) {
        self.sent += 1;
    }

    /// Counts a piece of work this PE received. Call it when the piece
    /// arrives, before the PE reports again.
    #[inline]
    pub fn work_received(&mut self) {
        self.received += 1;
    }

    /// Pieces sent and received by this PE so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.sent, self.received)
    }

    /// The wave this PE takes part in (waves completed at the root, plus 1).
    pub fn wave(&self) -> u64 {
        self.wave
    }

    /// Whether termination has been detected (the root) or announced (the
    /// others). Once true, it stays true.
    pub fn is_terminated(&self) -> bool {
        self.terminated
    }

    /// Handles a signal from PE `from`; forwards waves and the termination
    /// down the tree through `send`.
    pub fn on_signal(&mut self, from: usize, signal: Signal, send: &mut impl FnMut(usize, Signal)) {
        match signal {
            Signal::Report { wave, sent, received } => {
                debug_assert_eq!(
                    self.children().find(|&c| c == from),
                    Some(from),
                    "a report from a non-child"
                );
                debug_assert_eq!(wave, self.wave, "PE {} got a report of wave {wave} from {from}", self.me);
                debug_assert!(self.waiting > 0 && !self.reported);
                self.sum_sent += sent;
                self.sum_received += received;
                self.waiting -= 1;
            }
            Signal::Wave(wave) => {
                debug_assert_eq!(Some(from), self.parent());
                debug_assert!(self.reported && wave == self.wave + 1, "wave {wave} after {}", self.wave);
                self.start_wave(wave);
                for c in self.children() {
                    send(c, Signal::Wave(wave));
                }
            }
            Signal::Terminate => {
                debug_assert_eq!(Some(from), self.parent());
                self.terminate(send);
            }
        }
    }

    /// Called whenever the PE is idle (holds no work): reports the current
    /// wave if every child has reported; at the root, evaluates the wave and
    /// starts the next or announces termination. Cheap when there is nothing
    /// to do; drivers call it in every turn of their idle loop. (At most one
    /// wave is completed per call: a root without children — one PE — would
    /// otherwise evaluate waves forever while its own piece is in transit.)
    pub fn idle(&mut self, send: &mut impl FnMut(usize, Signal)) {
        if !self.terminated && !self.reported && self.waiting == 0 {
            let sent = self.sum_sent + self.sent;
            let received = self.sum_received + self.received;
            self.reported = true;
            match self.parent() {
                Some(parent) => send(parent, Signal::Report { wave: self.wave, sent, received }),
                None => {
                    if self.previous_received == Some(sent) {
                        self.terminate(send);
                    } else {
                        self.previous_received = Some(received);
                        let next = self.wave + 1;
                        self.start_wave(next);
                        for c in self.children() {
                            send(c, Signal::Wave(next));
                        }
                    }
                }
            }
        }
    }

    fn start_wave(&mut self, wave: u64) {
        self.wave = wave;
        self.waiting = self.children().count();
        self.sum_sent = 0;
        self.sum_received = 0;
        self.reported = false;
    }

    fn terminate(&mut self, send: &mut impl FnMut(usize, Signal)) {
        self.terminated = true;
        for c in self.children() {
            send(c, Signal::Terminate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A message in the simulated network.
    #[derive(Debug)]
    enum Msg {
        Work(u32),
        Control(Signal),
    }

    /// P PEs holding abstract work (units left), a network that delivers
    /// messages in any order, and a detector per PE.
    struct System {
        work: Vec<u32>,
        fc: Vec<FourCounter>,
        net: Vec<(usize, usize, Msg)>,
    }

    impl System {
        fn new(initial: Vec<u32>) -> Self {
            let p = initial.len();
            System { work: initial, fc: (0..p).map(|i| FourCounter::new(i, p)).collect(), net: Vec::new() }
        }

        fn work_left(&self) -> u64 {
            let held: u64 = self.work.iter().map(|&w| u64::from(w)).sum();
            let in_transit: u64 =
                self.net.iter().map(|(_, _, m)| if let Msg::Work(w) = m { u64::from(*w) } else { 0 }).sum();
            held + in_transit
        }

        /// One step chosen by `choice`; checks safety after it.
        fn step(&mut self, choice: u32, arg: u32) {
            let p = self.work.len();
            let pe = (arg as usize) % p;
            match choice % 4 {
                // A busy PE works one unit.
                0 => self.work[pe] = self.work[pe].saturating_sub(1),
                // A busy PE with at least two units splits and sends a part.
                1 => {
                    if self.work[pe] >= 2 {
                        let to = (arg as usize / p + 1 + pe) % p;
                        let part = self.work[pe] / 2;
                        self.work[pe] -= part;
                        self.fc[pe].work_sent();
                        self.net.push((pe, to, Msg::Work(part)));
                    }
                }
                // Deliver some message.
                2 => {
                    if !self.net.is_empty() {
                        let i = (arg as usize) % self.net.len();
                        let (from, to, msg) = self.net.swap_remove(i);
                        self.deliver(from, to, msg);
                    }
                }
                // An idle PE runs its detector.
                _ => self.idle(pe),
            }
            self.check_safety();
        }

        fn deliver(&mut self, from: usize, to: usize, msg: Msg) {
            match msg {
                Msg::Work(w) => {
                    self.fc[to].work_received();
                    self.work[to] += w;
                }
                Msg::Control(s) => {
                    let net = &mut self.net;
                    self.fc[to].on_signal(from, s, &mut |t, s| net.push((to, t, Msg::Control(s))));
                }
            }
        }

        fn idle(&mut self, pe: usize) {
            if self.work[pe] == 0 {
                let net = &mut self.net;
                self.fc[pe].idle(&mut |t, s| net.push((pe, t, Msg::Control(s))));
            }
        }

        fn check_safety(&self) {
            if self.fc.iter().any(FourCounter::is_terminated) {
                assert_eq!(self.work_left(), 0, "termination announced while work exists");
            }
        }

        /// Finishes all work, then runs the detectors until every PE knows.
        fn finish(&mut self) -> usize {
            let mut steps = 0;
            loop {
                for pe in 0..self.work.len() {
                    self.work[pe] = 0;
                    self.idle(pe);
                }
                // First in, first out: delivery must be fair (every message
                // arrives eventually), or waves could circle forever past a
                // piece that never lands.
                if !self.net.is_empty() {
                    let (from, to, msg) = self.net.remove(0);
                    self.deliver(from, to, msg);
                } else if self.fc.iter().all(FourCounter::is_terminated) {
                    return steps;
                }
                steps += 1;
                assert!(steps < 100_000, "no termination");
            }
        }
    }

    #[test]
    fn a_single_pe_terminates_when_idle() {
        let mut fc = FourCounter::new(0, 1);
        let mut sent = Vec::new();
        fc.idle(&mut |to, s| sent.push((to, s))); // wave 1
        assert!(!fc.is_terminated());
        fc.idle(&mut |to, s| sent.push((to, s))); // wave 2 agrees with wave 1
        assert!(fc.is_terminated());
        assert!(sent.is_empty());
    }

    #[test]
    fn tree_shape() {
        let fc = FourCounter::new(2, 7);
        assert_eq!(fc.parent(), Some(0));
        assert_eq!(fc.children().collect::<Vec<_>>(), [5, 6]);
        assert_eq!(FourCounter::new(3, 8).children().collect::<Vec<_>>(), [7]);
        assert_eq!(FourCounter::new(0, 1).children().count(), 0);
    }

    /// The trap of a single wave: PE 1 reports idle for wave 1, then PE 2
    /// sends a piece and reports too. While the piece is in transit the
    /// sums of wave 1 are S = 1, R = 0; the detector must wait for the piece
    /// and the waves after it.
    #[test]
    fn a_piece_in_transit_across_a_wave_is_not_missed() {
        let mut sys = System::new(vec![0, 0, 5]);
        sys.idle(1); // PE 1 reports wave 1 with s = r = 0
        sys.step(1, 2); // PE 2 splits and sends to PE 0
        sys.work[2] = 0;
        sys.idle(2);
        // Deliver everything but the piece, for many waves; the detectors
        // must not terminate.
        for _ in 0..1000 {
            let Some(i) = sys.net.iter().position(|(_, _, m)| matches!(m, Msg::Control(_))) else {
                break;
            };
            let (f, t, m) = sys.net.swap_remove(i);
            sys.deliver(f, t, m);
            for pe in 0..3 {
                sys.idle(pe);
            }
            sys.check_safety();
        }
        assert!(!sys.fc[0].is_terminated());
        sys.finish();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Any interleaving of work, splits, deliveries (in any order) and
        /// detector runs: termination is never announced while work exists,
        /// and is always announced once the work is done.
        #[test]
        fn safe_and_live_under_any_message_order(
            initial in prop::collection::vec(0u32..20, 1..9),
            steps in prop::collection::vec((0u32..4, any::<u32>()), 0..400),
        ) {
            let mut sys = System::new(initial);
            for (choice, arg) in steps {
                sys.step(choice, arg);
            }
            sys.finish();
            prop_assert!(sys.fc.iter().all(FourCounter::is_terminated));
            prop_assert!(sys.net.is_empty());
        }

        /// Every PE learns of the termination exactly once, and the root
        /// needs at most two waves after the work ends.
        #[test]
        fn at_most_two_waves_after_the_end(p in 1usize..20) {
            let mut sys = System::new(vec![0; p]);
            sys.finish();
            prop_assert!(sys.fc[0].wave() <= 2);
        }
    }
}
