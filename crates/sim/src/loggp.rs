//! LogGP: messages with overheads, latency, a cost per byte and a network
//! interface per PE; start-up and termination detection as messages.
//!
//! The seeds' model ([`Model::Seeds`](crate::platform::Model)) charges a
//! message `T_rout` per hop and, under [Sanders 1999] §1.1, `T_rout` to
//! each of its ends; nothing contends, and termination detection is a
//! constant added after the last piece. That is the model of the analyses,
//! and the reproductions of the seeds keep it. A prediction of a real run
//! needs what the analyses leave out, so [`Model::LogGp`](crate::platform::Model)
//! prices a message after LogGP (Alexandrov et al., 1995) on the
//! [`Network`](crate::platform::Network) of the platform:
//!
//! * **Overheads, charged to the PEs' time.** The sender spends `o_s`
//!   before the message leaves (its clock advances, as for a split), the
//!   receiver `o_r` when it takes the message in (an idle PE at once, a
//!   busy one at its next probe). Neither works meanwhile.
//! * **Latency, charged to the message.** The head of a message travels
//!   `L` per hop between nodes (`L · max(1, d(i, j))`), `L_intra` within a
//!   node.
//! * **A gap per byte, charged to the interfaces.** A message of `b` bytes
//!   occupies the sender's network interface for `⌈b · G⌉` ticks, and then
//!   the receiver's for as long. A PE injects one message at a time: the
//!   next leaves no earlier than the end of the previous one's injection,
//!   whatever the sender's clock says (the sender does not wait for it: its
//!   send is non-blocking). Likewise a PE takes in one message at a time, in
//!   the order their heads arrive: a message is received at
//!   `max(head arrival, end of the previous receipt) + ⌈b · G⌉`. A message
//!   of no transmission time (`G = 0`, as between threads that pass a
//!   piece by reference) does not occupy an interface. The hub of a run
//!   sits at PE 0 and uses its interface.
//! * **Sizes.** A message without a piece (a request, a refusal, a load, a
//!   signal of termination detection) has [`LogGp::header_bytes`]; one
//!   carrying a piece of `w` units adds `s(w)` words of
//!   [`LogGp::word_bytes`] each, `s(w)` being the platform's
//!   [`MessageSize`](crate::platform::MessageSize) (one word by default:
//!   a piece of a tree search is a few open nodes, whose encoding does not
//!   grow with the work below them).
//! * **Nodes.** Hybrid runs (ranks of several threads) have two kinds of
//!   messages: consecutive blocks of [`LogGp::pes_per_node`] PEs share a
//!   node, and a message between two of them costs the
//!   [`intra`](LogGp::intra) link's overheads, latency and gap, any other
//!   the [`inter`](LogGp::inter) link's.
//!
//! **Start-up.** The root is PE 0's at t = 0. Without selective
//! initialization the other PEs ask for work at once, and those requests
//! are messages like any other. With it (and under the static strategies)
//! the root's description reaches every PE down a binomial tree — PE `i`
//! sends to `i + 2^j` at step `j`, each send paying `o_s` in turn —
//! ([`broadcast`]), and a PE starts descending the splitting tree to its
//! shares when the broadcast reaches it.
//!
//! **Termination.** The MPI runtime detects termination with the
//! four-counter protocol (`treelb::termination`) on a binary tree (PE `i`'s children are
//! `2i + 1` and `2i + 2`). After the last piece is exhausted at `t` every
//! PE is idle, and in the worst case a wave is under way whose totals
//! cannot yet confirm the end: it completes (every PE reports once its
//! children have, a sweep up the tree from `t`), the root starts a second
//! wave (its signal down the tree, the reports up), whose totals confirm the
//! first's, and sends the verdict down. The four sweeps are messages of
//! [`LogGp::header_bytes`] under this model — each PE takes in its
//! children's reports one after the other, and sends to its children one
//! after the other — and `T_par` is when the verdict reaches the last PE
//! ([`termination`]). On a crossbar with `G = 0` that is `4 ⌊log₂ P⌋ ·
//! (o_s + L + o_r)` plus, at PEs on the way, a second child's `o_r` (up)
//! or a first child's `o_s` (down) where they lie on the longest path; the
//! seeds' model keeps its constant `3 ⌈log₂ P⌉ · T_rout`
//! ([`Platform::termination_delay`]), so that its runs do not move.
//!
//! The threads runtime detects termination with one counter of live work
//! in shared memory instead ([`Detector::Counter`]): the PE that exhausts
//! the last piece knows at once and wakes the others, one message after
//! the other.
//!
//! The seeds' message costs are the special case `o_s = o_r = L = T_rout`,
//! `G = 0` ([`LogGp::seeds`]): only start-up and termination differ.
//!
//! ```
//! use treelb_sim::loggp::{self, Link, LogGp, Nics};
//! use treelb_sim::platform::{Costs, Model, Network, Platform};
//!
//! // o_s = 2, o_r = 3, L = 10, G = 1 tick a byte; 16-byte messages.
//! let link = Link { o_send: 2, o_recv: 3, latency: 10, gap_milli: 1000 };
//! let costs = Costs { model: Model::LogGp(LogGp::uniform(link)), ..Costs::default() };
//! let m = Platform::new(4, Network::Crossbar, costs);
//! let mut nics = Nics::new(4);
//! // PE 0 sends two messages to PE 1 from t = 0: the second waits for the
//! // first's injection (16 ticks), and for its receipt.
//! let first = nics.send(&m, 0, 1, 2, 16);
//! let second = nics.send(&m, 0, 1, 4, 16);
//! assert_eq!((first, second), ((12, 16), (28, 16)));
//! assert_eq!(nics.receive(1, first.0, first.1), 28);
//! assert_eq!(nics.receive(1, second.0, second.1), 44);
//! // Termination after t = 100 on four PEs without the gap: four sweeps
//! // over a path of two tree edges, 2 + 10 + 3 each.
//! let costs = Costs { model: Model::LogGp(LogGp::uniform(Link { gap_milli: 0, ..link })), ..costs };
//! let m = Platform::new(4, Network::Crossbar, costs);
//! assert_eq!(loggp::termination(&m, &mut Nics::new(4), 100, 0), 100 + 4 * 2 * 15);
//! ```

use serde::{Deserialize, Serialize};

use crate::platform::Platform;
use crate::queue::Time;

/// What a message costs on one kind of link (ticks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Link {
    /// `o_s`: the sender's time per message.
    pub o_send: Time,
    /// `o_r`: the receiver's time per message.
    pub o_recv: Time,
    /// `L`: the head's travel per hop.
    pub latency: Time,
    /// `G` in thousandths of a tick per byte: a message of `b` bytes
    /// occupies each interface it passes for `⌈b · G⌉` ticks.
    pub gap_milli: Time,
}

impl Link {
    /// `⌈bytes · G⌉`.
    ///
    /// ```
    /// use treelb_sim::loggp::Link;
    /// let l = Link { gap_milli: 250, ..Link::default() };
    /// assert_eq!((l.transmission(16), l.transmission(17)), (4, 5));
    /// ```
    #[inline]
    pub fn transmission(&self, bytes: u64) -> Time {
        (bytes * self.gap_milli).div_ceil(1000)
    }

    /// `o_s + L + o_r`: one message's time from the sender's decision to
    /// the receiver's reading it, on one hop without contention and
    /// without its bytes.
    pub fn one_way(&self) -> Time {
        self.o_send + self.latency + self.o_recv
    }
}

/// The LogGP parameters of a platform ([module](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogGp {
    /// Between PEs of different nodes (per hop of the network).
    pub inter: Link,
    /// Between PEs of one node.
    pub intra: Link,
    /// PEs per node: PEs `a` and `b` share a node when `a / n == b / n`
    /// (1: every PE is a node of its own; 0 counts as 1).
    pub pes_per_node: u32,
    /// Bytes of a message without a piece.
    pub header_bytes: u64,
    /// Bytes of one word of a piece (`s(w)` words a piece).
    pub word_bytes: u64,
    /// How termination is detected.
    #[serde(default)]
    pub detector: Detector,
}

/// How a run under LogGP detects termination ([module](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Detector {
    /// The four-counter waves on a binary tree (the MPI runtime,
    /// `treelb::termination`).
    #[default]
    Waves,
    /// One counter of live work in shared memory (the threads runtime):
    /// the PE that exhausts the last piece knows at once, and wakes the
    /// others one after the other, a message each.
    Counter,
}

impl LogGp {
    /// One link for every pair of PEs; 16-byte headers and 8-byte words.
    pub fn uniform(link: Link) -> Self {
        LogGp {
            inter: link,
            intra: link,
            pes_per_node: 1,
            header_bytes: 16,
            word_bytes: 8,
            detector: Detector::Waves,
        }
    }

    /// The seeds' message costs in LogGP's terms: `o_s = o_r = L = T_rout`,
    /// `G = 0`.
    pub fn seeds(t_rout: Time) -> Self {
        LogGp::uniform(Link { o_send: t_rout, o_recv: t_rout, latency: t_rout, gap_milli: 0 })
    }

    /// Whether PEs `a` and `b` share a node.
    #[inline]
    pub fn same_node(&self, a: u32, b: u32) -> bool {
        let n = self.pes_per_node.max(1);
        a / n == b / n
    }

    /// The link between PEs `a` and `b`.
    #[inline]
    pub fn link(&self, a: u32, b: u32) -> &Link {
        if self.same_node(a, b) { &self.intra } else { &self.inter }
    }

    /// The bytes of a message carrying `words` words of a piece (0: no
    /// piece).
    #[inline]
    pub fn bytes(&self, words: u64) -> u64 {
        self.header_bytes + words * self.word_bytes
    }
}

impl std::fmt::Display for LogGp {
    /// One line: the inter-node link, the intra-node one where PEs share
    /// nodes, and the sizes.
    ///
    /// ```
    /// use treelb_sim::loggp::LogGp;
    /// assert_eq!(
    ///     LogGp::seeds(100).to_string(),
    ///     "LogGP o_s 100 · o_r 100 · L 100/hop · G 0 per byte (ticks) · 16-byte header, 8-byte words"
    /// );
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let link = |l: &Link| {
            format!("o_s {} · o_r {} · L {}", l.o_send, l.o_recv, l.latency)
                + &format!(" · G {} per byte", l.gap_milli as f64 / 1000.0)
        };
        write!(f, "LogGP {}", link(&self.inter).replacen(" · G", "/hop · G", 1))?;
        if self.pes_per_node > 1 {
            write!(f, "; {} PEs a node, within: {}", self.pes_per_node, link(&self.intra))?;
        }
        write!(f, " (ticks) · {}-byte header, {}-byte words", self.header_bytes, self.word_bytes)
    }
}

/// LogGP parameters given one by one (the command line's): what is not
/// given comes from the seeds' message costs ([`LogGp::seeds`] of
/// `T_rout`), the intra-node link from the inter-node one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LogGpParams {
    /// `o_s`, ticks.
    pub o_send: Option<Time>,
    /// `o_r`, ticks.
    pub o_recv: Option<Time>,
    /// `L` per hop, ticks.
    pub latency: Option<Time>,
    /// `G`, ticks per byte (a multiple of 0.001).
    pub gap: Option<f64>,
    /// PEs per node.
    pub pes_per_node: Option<u32>,
    /// `L` within a node, ticks.
    pub intra_latency: Option<Time>,
    /// `o_s` and `o_r` within a node, ticks.
    pub intra_overhead: Option<Time>,
    /// Bytes of a message without a piece.
    pub header_bytes: Option<u64>,
    /// Bytes of a word of a piece.
    pub word_bytes: Option<u64>,
}

impl LogGpParams {
    /// Whether nothing is given.
    pub fn is_empty(&self) -> bool {
        *self == LogGpParams::default()
    }

    /// The parameters, the missing ones from `t_rout`; an error names a
    /// gap that is negative or not a number.
    ///
    /// ```
    /// use treelb_sim::loggp::LogGpParams;
    /// let g = LogGpParams { gap: Some(0.25), pes_per_node: Some(4), intra_latency: Some(5), ..Default::default() }
    ///     .build(100)
    ///     .unwrap();
    /// assert_eq!((g.inter.o_send, g.inter.latency, g.inter.gap_milli), (100, 100, 250));
    /// assert_eq!((g.intra.o_send, g.intra.latency, g.pes_per_node), (100, 5, 4));
    /// assert!(LogGpParams { gap: Some(-1.0), ..Default::default() }.build(100).is_err());
    /// ```
    pub fn build(&self, t_rout: Time) -> Result<LogGp, String> {
        let mut g = LogGp::seeds(t_rout);
        let inter = &mut g.inter;
        inter.o_send = self.o_send.unwrap_or(inter.o_send);
        inter.o_recv = self.o_recv.unwrap_or(inter.o_recv);
        inter.latency = self.latency.unwrap_or(inter.latency);
        if let Some(gap) = self.gap {
            if !(gap.is_finite() && gap >= 0.0) {
                return Err(format!("the gap per byte must be a number of ticks ≥ 0, got {gap}"));
            }
            inter.gap_milli = (gap * 1000.0).round() as Time;
        }
        g.intra = g.inter;
        g.intra.latency = self.intra_latency.unwrap_or(g.intra.latency);
        if let Some(o) = self.intra_overhead {
            (g.intra.o_send, g.intra.o_recv) = (o, o);
        }
        g.pes_per_node = self.pes_per_node.unwrap_or(1).max(1);
        g.header_bytes = self.header_bytes.unwrap_or(g.header_bytes);
        g.word_bytes = self.word_bytes.unwrap_or(g.word_bytes);
        Ok(g)
    }
}

/// When each PE's network interface is next free to inject (send) and to
/// take in (receive) a message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nics {
    out: Vec<Time>,
    inn: Vec<Time>,
}

impl Nics {
    /// `p` interfaces, free from t = 0.
    pub fn new(p: usize) -> Self {
        Nics { out: vec![0; p], inn: vec![0; p] }
    }

    /// PE `from`, having paid its sending overhead at `ready`, hands a
    /// message of `bytes` for PE `to` to its interface. Returns when its
    /// head reaches `to`'s interface and the message's transmission time
    /// there ([`receive`](Self::receive) takes it in).
    #[inline]
    pub fn send(&mut self, m: &Platform, from: u32, to: u32, ready: Time, bytes: u64) -> (Time, Time) {
        let tx = m.transmission(from, to, bytes);
        let mut start = ready;
        if tx > 0 {
            let out = &mut self.out[from as usize];
            start = start.max(*out);
            *out = start + tx;
        }
        (start + m.latency(from, to), tx)
    }

    /// PE `to`'s interface takes in a message whose head arrived at `head`
    /// and whose bytes take `tx`: returns when it has it all.
    #[inline]
    pub fn receive(&mut self, to: u32, head: Time, tx: Time) -> Time {
        if tx == 0 {
            return head;
        }
        let inn = &mut self.inn[to as usize];
        let end = head.max(*inn) + tx;
        *inn = end;
        end
    }
}

/// One message of the sweeps below: from PE `from`, whose CPU is at `*cpu`,
/// to PE `to`; returns when `to`'s interface has it.
fn deliver(m: &Platform, g: &LogGp, nics: &mut Nics, from: u32, to: u32, cpu: &mut Time) -> Time {
    *cpu += m.send_overhead(from, to);
    let (head, tx) = nics.send(m, from, to, *cpu, g.header_bytes);
    nics.receive(to, head, tx)
}

/// The model's parameters, or the seeds' message costs for a platform
/// under the seeds' model.
fn params(m: &Platform) -> LogGp {
    match m.costs.model {
        crate::platform::Model::LogGp(g) => g,
        crate::platform::Model::Seeds => LogGp::seeds(m.costs.t_rout),
    }
}

/// A sweep up the binary tree: every PE reports once its children have
/// (it takes their reports in the order they arrive, `o_r` each), and
/// sends its report to its parent. `cpu[i]` is when PE `i` is free; returns
/// when the root has every report.
fn sweep_up(m: &Platform, g: &LogGp, nics: &mut Nics, cpu: &mut [Time]) -> Time {
    let p = cpu.len();
    let mut heads: Vec<(Time, Time, u32)> = Vec::with_capacity(2);
    let mut got: Vec<Vec<(Time, Time, u32)>> = vec![Vec::new(); p];
    for i in (0..p).rev() {
        heads.clear();
        heads.append(&mut got[i]);
        heads.sort_unstable();
        for &(head, tx, child) in &heads {
            let end = nics.receive(i as u32, head, tx);
            cpu[i] = cpu[i].max(end) + m.receive_overhead(child, i as u32);
        }
        if i > 0 {
            let parent = (i - 1) / 2;
            cpu[i] += m.send_overhead(i as u32, parent as u32);
            let (head, tx) = nics.send(m, i as u32, parent as u32, cpu[i], g.header_bytes);
            got[parent].push((head, tx, i as u32));
        }
    }
    cpu[0]
}

/// A sweep down the binary tree from the root: each PE sends to its
/// children in turn (`o_s` each) once the message reached it (`o_r`).
fn sweep_down(m: &Platform, g: &LogGp, nics: &mut Nics, cpu: &mut [Time]) {
    let p = cpu.len();
    for i in 0..p {
        for c in [2 * i + 1, 2 * i + 2] {
            if c < p {
                let end = deliver(m, g, nics, i as u32, c as u32, &mut cpu[i]);
                cpu[c] = cpu[c].max(end) + m.receive_overhead(i as u32, c as u32);
            }
        }
    }
}

/// When termination detection ends if PE `last` exhausts the last piece
/// at `t` and every PE is idle from then on ([module](self)): under
/// [`Detector::Waves`] the wave under way completes, a second wave goes
/// down and up, and the verdict goes down; under [`Detector::Counter`]
/// `last` wakes the others in turn. Returns when the last PE has the
/// verdict (`t` on one PE). Every signal is a message of the platform's
/// model (under the seeds' model: its message costs, [`LogGp::seeds`]),
/// through `nics`.
pub fn termination(m: &Platform, nics: &mut Nics, t: Time, last: u32) -> Time {
    let p = m.p as usize;
    if p <= 1 {
        return t;
    }
    let g = params(m);
    if g.detector == Detector::Counter {
        let mut cpu = t;
        let mut end = t;
        for to in (0..m.p).filter(|&to| to != last) {
            let got = deliver(m, &g, nics, last, to, &mut cpu);
            end = end.max(got + m.receive_overhead(last, to));
        }
        return end;
    }
    let mut cpu = vec![t; p];
    sweep_up(m, &g, nics, &mut cpu);
    sweep_down(m, &g, nics, &mut cpu);
    // The root knows the verdict when the second wave is in; the others
    // when its message reaches them (and they have read it).
    let verdict = sweep_up(m, &g, nics, &mut cpu);
    sweep_down(m, &g, nics, &mut cpu);
    cpu[1..].iter().copied().fold(verdict, Time::max)
}

/// When each PE is done with a broadcast from PE 0, which starts it at
/// `t`: a binomial tree in which PE `i` sends to `i + 2^j` at step `j`, one
/// message after the other, of [`LogGp::header_bytes`] (the root's
/// description). A PE is done when it has read the message (`o_r`) and
/// sent its own (`o_s` each); PE 0 when it has sent its own.
pub fn broadcast(m: &Platform, nics: &mut Nics, t: Time) -> Vec<Time> {
    let p = m.p as usize;
    let g = params(m);
    let mut cpu = vec![t; p];
    let mut step = 1;
    while step < p {
        for i in 0..step.min(p - step) {
            let to = i + step;
            let end = deliver(m, &g, nics, i as u32, to as u32, &mut cpu[i]);
            cpu[to] = end + m.receive_overhead(i as u32, to as u32);
        }
        step *= 2;
    }
    cpu
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{Costs, Model, Network};

    fn machine(p: u32, link: Link) -> Platform {
        Platform::new(
            p,
            Network::Crossbar,
            Costs { model: Model::LogGp(LogGp::uniform(link)), ..Costs::default() },
        )
    }

    const LINK: Link = Link { o_send: 2, o_recv: 3, latency: 10, gap_milli: 0 };

    #[test]
    fn one_message_costs_overheads_latency_and_bytes() {
        // 16 bytes at 1.5 ticks a byte: 24 ticks at each interface.
        let m = machine(2, Link { gap_milli: 1500, ..LINK });
        assert_eq!((m.send_overhead(0, 1), m.receive_overhead(0, 1), m.latency(0, 1)), (2, 3, 10));
        let mut nics = Nics::new(2);
        let (head, tx) = nics.send(&m, 0, 1, 5 + 2, 16);
        assert_eq!((head, tx), (17, 24));
        // Cut-through: the tail arrives L after it left, 7 + 24 + 10.
        assert_eq!(nics.receive(1, head, tx), 41);
    }

    #[test]
    fn two_messages_from_one_pe_are_serialized() {
        let m = machine(3, Link { gap_milli: 1000, ..LINK });
        let mut nics = Nics::new(3);
        // Both sent at t = 0 (the second's o_s after the first's): the
        // second leaves when the first's 16 bytes are out, at 18.
        let a = nics.send(&m, 0, 1, 2, 16);
        let b = nics.send(&m, 0, 2, 4, 16);
        assert_eq!((a, b), ((12, 16), (28, 16)));
        // To different PEs, each receipt is on its own interface.
        assert_eq!((nics.receive(1, a.0, a.1), nics.receive(2, b.0, b.1)), (28, 44));
        // Two messages from different PEs to one: taken in one at a time.
        let mut nics = Nics::new(3);
        let a = nics.send(&m, 1, 0, 2, 16);
        let b = nics.send(&m, 2, 0, 2, 16);
        assert_eq!((nics.receive(0, a.0, a.1), nics.receive(0, b.0, b.1)), (28, 44));
        // Without a gap nothing waits.
        let m = machine(3, LINK);
        let mut nics = Nics::new(3);
        assert_eq!((nics.send(&m, 0, 1, 2, 16), nics.send(&m, 0, 2, 4, 16)), ((12, 0), (14, 0)));
    }

    #[test]
    fn a_termination_wave_on_four_pes() {
        // The binary tree 0 → {1, 2}, 1 → {3}: depth 2. Each edge costs
        // o_s + L + o_r = 15, and four sweeps cross two edges each.
        let m = machine(4, LINK);
        assert_eq!(termination(&m, &mut Nics::new(4), 100, 0), 100 + 4 * 2 * 15);
        // One PE: nothing to detect.
        assert_eq!(termination(&machine(1, LINK), &mut Nics::new(1), 100, 0), 100);
        // Two PEs: one edge.
        assert_eq!(termination(&machine(2, LINK), &mut Nics::new(2), 0, 0), 4 * 15);
        // Three PEs: the root takes two reports in (o_r twice) before it
        // sends, and sends to PE 1 before PE 2 (o_s twice).
        //   up: reports arrive at 12 (both); root at 12 + 3 + 3 = 18;
        //   down: to 1 at 20 → 30 → 33, to 2 at 22 → 32 → 35;
        //   up: 1 sends at 35 → 45, 2 at 37 → 47; root 48, then 51;
        //   down: to 1 at 53 → 63 → 66, to 2 at 55 → 65 → 68.
        assert_eq!(termination(&machine(3, LINK), &mut Nics::new(3), 0, 0), 68);
    }

    #[test]
    fn termination_waits_for_busy_interfaces() {
        let m = machine(2, Link { gap_milli: 1000, ..LINK });
        let mut idle = Nics::new(2);
        let free = termination(&m, &mut idle, 0, 0);
        // Each of the four messages: 2 + 16 + 10 + 3.
        assert_eq!(free, 4 * 31);
        let mut busy = Nics::new(2);
        busy.send(&m, 1, 0, 0, 1000); // PE 1 injects 1000 bytes until 1000
        assert_eq!(termination(&m, &mut busy, 0, 0), free + 1000 - 2);
    }

    #[test]
    fn a_counter_wakes_the_others_in_turn() {
        let g = LogGp { detector: Detector::Counter, ..LogGp::uniform(LINK) };
        let m = Platform::new(4, Network::Crossbar, Costs { model: Model::LogGp(g), ..Costs::default() });
        // PE 2 ran last: it sends to 0, 1, 3 at 2, 4, 6; the last is read
        // at 6 + 10 + 3.
        assert_eq!(termination(&m, &mut Nics::new(4), 0, 2), 19);
    }

    #[test]
    fn a_broadcast_is_binomial() {
        let m = machine(4, LINK);
        // Step 1: 0 → 1 at 2, arrives 12, read 15. Step 2: 0 → 2 at 4 →
        // 14 → 17; 1 → 3 at 17 → 27 → 30.
        assert_eq!(broadcast(&m, &mut Nics::new(4), 0), vec![4, 17, 17, 30]);
        assert_eq!(broadcast(&machine(1, LINK), &mut Nics::new(1), 7), vec![7]);
    }

    #[test]
    fn nodes_choose_the_link() {
        let inter = Link { o_send: 5, o_recv: 5, latency: 100, gap_milli: 0 };
        let g = LogGp { intra: LINK, pes_per_node: 2, ..LogGp::uniform(inter) };
        let m = Platform::new(8, Network::Ring, Costs { model: Model::LogGp(g), ..Costs::default() });
        assert_eq!((m.latency(0, 1), m.send_overhead(0, 1)), (10, 2));
        // Between nodes: L per hop of the ring.
        assert_eq!((m.latency(1, 2), m.latency(0, 4), m.receive_overhead(0, 4)), (100, 400, 5));
    }
}
