//! The machine: P PEs on a network, and what communication, splitting and
//! polling cost.
//!
//! The model is Sanders' ([Sanders 1999] §1.1), a conservative LogP: "sending and
//! receiving messages always costs T_rout := L + o + g". A message sent at
//! time t from PE i arrives at PE j at `t + T_rout · max(1, d(i, j))`,
//! where `d` is the number of hops on the [`Network`] (1 on a crossbar);
//! under the seeds' [`Overhead::SendReceive`] (the default) the sender
//! spends `T_rout` before the message leaves and the receiver `T_rout` when
//! it takes it in, time in which neither works; the optimistic
//! [`Overhead::Latency`] charges the PEs nothing (the message only
//! travels). A busy PE probes its message queue every Δt of work, and each
//! probe costs `T_poll`; serving a request costs `T_split` on top.
//! Termination detection is a tree reduction: after the last piece is
//! exhausted, the four-counter protocol needs up to two waves up a
//! binomial reduction tree (the wave under way may have passed the last PE
//! already; the next one must confirm what it counted) and the verdict back
//! down, `3 ⌈log₂ P⌉ · T_rout` on a crossbar (more on networks whose tree
//! edges span several hops); the optimistic model charges one wave up and
//! the verdict down.
//!
//! That is the seeds' model ([`Model::Seeds`], the default), which every
//! reproduction of the seeds runs. [`Model::LogGp`] prices the same
//! messages by LogGP instead — overheads `o_s` and `o_r` at the ends,
//! latency `L` per hop, a gap `G` per byte, one message at a time through
//! each PE's network interface, nodes of several PEs — and simulates the
//! broadcast of selective initialization and the waves of termination
//! detection as messages ([`crate::loggp`]); predictions of real runs use
//! it. [`Platform::send_overhead`], [`Platform::receive_overhead`],
//! [`Platform::latency`] and [`Platform::transmission`] give a message's
//! costs under either.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::loggp::LogGp;
use crate::queue::Time;

/// The interconnection network, which sets the distance `d(i, j)` in hops
/// ([Sanders 1994] Figure 3 lists the isoefficiency of random polling for each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// Every pair one hop apart: `d(n) = 1`.
    #[default]
    Crossbar,
    /// A binary fat tree with the PEs at the leaves: `2 · (level of the
    /// lowest common ancestor)` hops, so `d(n) = 2 log₂ n`.
    FatTree,
    /// A 3D torus of side ≈ ∛P: Manhattan distance with wrap-around.
    Torus3d,
    /// A 2D torus of side ≈ √P: Manhattan distance with wrap-around.
    Torus2d,
    /// A ring: `d(n) = n / 2`.
    Ring,
}

impl Network {
    /// Every network, in the order of [Sanders 1994] Figure 3.
    pub const ALL: [Network; 5] =
        [Network::Crossbar, Network::FatTree, Network::Torus3d, Network::Torus2d, Network::Ring];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Network::Crossbar => "crossbar",
            Network::FatTree => "fat-tree",
            Network::Torus3d => "torus-3d",
            Network::Torus2d => "torus-2d",
            Network::Ring => "ring",
        }
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Network {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Network::ALL.into_iter().find(|n| n.name() == s).ok_or_else(|| {
            let names: Vec<_> = Network::ALL.iter().map(|n| n.name()).collect();
            format!("unknown network `{s}` (expected one of: {})", names.join(", "))
        })
    }
}

/// What a message costs the PEs at its two ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Overhead {
    /// [Sanders 1999] §1.1: sending and receiving each cost `T_rout` of the PE's
    /// time, and termination detection needs up to two waves.
    #[default]
    SendReceive,
    /// Optimistic: a message costs its ends nothing (it only travels for
    /// `T_rout` per hop), and termination one wave.
    Latency,
}

impl Overhead {
    /// Both, the seeds' first.
    pub const ALL: [Overhead; 2] = [Overhead::SendReceive, Overhead::Latency];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Overhead::SendReceive => "send-receive",
            Overhead::Latency => "latency",
        }
    }
}

impl fmt::Display for Overhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Overhead {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Overhead::ALL
            .into_iter()
            .find(|n| n.name() == s)
            .ok_or_else(|| format!("unknown message overhead `{s}` (expected one of: send-receive, latency)"))
    }
}

/// How many words the message carrying a piece of `w` units of work takes:
/// [Sanders 1994] §5.4's s(w), whose transmission adds `s(w) · t_word` to the
/// message's travel time (Figure 3's columns s(w) = 1, log^b w, w^b).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageSize {
    /// One word, whatever the piece.
    #[default]
    Constant,
    /// ⌈log₂ w⌉ words (a path from a root: b = 1).
    Log,
    /// ⌈w^b⌉ words, b in thousandths.
    Power {
        /// b · 1000.
        milli: u16,
    },
}

impl MessageSize {
    /// The words of a piece of `w` units.
    ///
    /// ```
    /// use treelb_sim::platform::MessageSize;
    /// assert_eq!(MessageSize::Constant.words(1 << 20), 1);
    /// assert_eq!(MessageSize::Log.words(1 << 20), 20);
    /// assert_eq!(MessageSize::Power { milli: 500 }.words(1 << 20), 1024);
    /// ```
    pub fn words(self, w: u64) -> u64 {
        match self {
            MessageSize::Constant => 1,
            MessageSize::Log => u64::from(u64::BITS - w.max(2).saturating_sub(1).leading_zeros()).max(1),
            MessageSize::Power { milli } => {
                ((w.max(1) as f64).powf(f64::from(milli) / 1000.0).ceil() as u64).max(1)
            }
        }
    }
}

impl fmt::Display for MessageSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageSize::Constant => f.write_str("constant"),
            MessageSize::Log => f.write_str("log"),
            MessageSize::Power { milli } => write!(f, "power:{}", f64::from(*milli) / 1000.0),
        }
    }
}

impl FromStr for MessageSize {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "constant" => Ok(MessageSize::Constant),
            "log" => Ok(MessageSize::Log),
            _ => {
                let b = s
                    .strip_prefix("power:")
                    .and_then(|b| b.parse::<f64>().ok())
                    .filter(|b| (0.0..1.0).contains(b))
                    .ok_or_else(|| {
                        format!(
                            "unknown message size `{s}` (expected constant, log or power:B with 0 ≤ B < 1)"
                        )
                    })?;
                Ok(MessageSize::Power { milli: (b * 1000.0).round() as u16 })
            }
        }
    }
}

/// The cost parameters of the machine, in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Costs {
    /// `T_rout`: the time a message takes per hop (latency plus overhead).
    pub t_rout: Time,
    /// `T_split`: the time a busy PE spends splitting its piece for a request.
    pub t_split: Time,
    /// `T_poll`: the time one probe of the message queue costs a busy PE
    /// (every Δt of work; Δt is the run's, `RunSpec::budget`).
    pub t_poll: Time,
    /// The time the hub spends on one message (a ticket of global round
    /// robin, a report or look-up of max-load, a request or part of
    /// master–worker). Messages queue at the hub, so at most one leaves it
    /// per `t_counter`.
    pub t_counter: Time,
    /// What a message costs the PEs at its ends.
    #[serde(default)]
    pub overhead: Overhead,
    /// The time one word of a piece's message adds to its travel (0: pieces
    /// cost what any message costs).
    #[serde(default)]
    pub t_word: Time,
    /// How many words a piece's message takes.
    #[serde(default)]
    pub size: MessageSize,
    /// What prices messages, start-up and termination: the seeds' model
    /// (the default: `T_rout`, [`Overhead`], `t_word` and a constant for
    /// termination) or LogGP ([`crate::loggp`]).
    #[serde(default)]
    pub model: Model,
}

/// The cost model of messages, start-up and termination.
///
/// Under [`Model::Seeds`] a message costs what [Sanders 1999] §1.1 charges
/// ([`Overhead`], `T_rout` per hop, `s(w) · t_word` for a piece), a
/// broadcast and termination detection are constants
/// ([`Platform::broadcast_delay`], [`Platform::termination_delay`]) and
/// nothing contends: every reproduction of the seeds runs it. Under
/// [`Model::LogGp`] a message costs its sender `o_s` and its receiver `o_r`,
/// travels `L` per hop and `G` per byte, and passes one PE's network
/// interface at a time; the broadcast of selective initialization and the
/// waves of termination detection are messages like any other
/// ([`crate::loggp`]). Predictions of real runs use it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Model {
    /// The seeds' model.
    #[default]
    Seeds,
    /// LogGP with serialization at the PEs' interfaces.
    #[serde(rename = "loggp")]
    LogGp(LogGp),
}

impl Model {
    /// The name on the command line and in reports: `seeds` or `loggp`.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Seeds => "seeds",
            Model::LogGp(_) => "loggp",
        }
    }
}

impl Costs {
    /// The time a PE spends sending or receiving one message: `T_rout`
    /// under [`Overhead::SendReceive`], 0 under [`Overhead::Latency`].
    #[inline]
    pub fn end_cost(&self) -> Time {
        match self.overhead {
            Overhead::SendReceive => self.t_rout,
            Overhead::Latency => 0,
        }
    }

    /// The waves up the reduction tree that termination detection needs
    /// after the last piece is exhausted: 2 for the four-counter protocol
    /// ([Sanders 1999]), 1 in the optimistic model.
    pub fn termination_waves(&self) -> u64 {
        match self.overhead {
            Overhead::SendReceive => 2,
            Overhead::Latency => 1,
        }
    }
}

impl Default for Costs {
    /// One message costs as much as 100 ticks of work; a split a tenth of
    /// that; a probe 1 tick (every Δt of work: 1 % at Δt = 100 ticks).
    fn default() -> Self {
        Costs {
            t_rout: 100,
            t_split: 10,
            t_poll: 1,
            t_counter: 10,
            overhead: Overhead::SendReceive,
            t_word: 0,
            size: MessageSize::Constant,
            model: Model::Seeds,
        }
    }
}

/// P PEs that share C < P cores: which PEs run, and for how long.
///
/// Work advances only on a core, so `T_par ≥ T_seq / C` and the efficiency
/// `T_seq / (P · T_par)` can never exceed `C / P`, whatever the balancing.
/// A PE that holds a piece needs a core to work it (and to probe for
/// messages, which it does between slices of work); when all C are taken
/// it waits in a first-in first-out queue, and messages for it wait in its
/// inbox until it runs and probes. Idle PEs answer and send messages
/// without a core: their turns are short (a request, a refusal), and in the
/// threads runtime they run on the pool's thread beyond the cores (the
/// calling thread), in the MPI runtime between the back-offs of an idle
/// rank.
///
/// * `quantum: None` — **run to idle**, the turns of the threads runtime's
///   pool (`crates/threads/src/sched.rs`): a busy PE keeps its thread until
///   its piece and its pool run out; then the core goes to the PE at the
///   head of the queue.
/// * `quantum: Some(q)` — **time sharing**, processes under the operating
///   system's scheduler (MPI ranks): a busy PE that has held its core for
///   `q` ticks gives it up at its next probe if another PE waits, and goes
///   to the back of the queue (round robin).
///
/// Each hand-over of a core costs the incoming PE `switch` ticks before it
/// works (a context switch; the pool's hand-over of a turn).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cores {
    /// C, the cores (at least 1).
    pub cores: u32,
    /// The longest a busy PE keeps its core while another waits (`None`:
    /// until it is idle).
    pub quantum: Option<Time>,
    /// Ticks a hand-over of a core costs the PE that gets it.
    pub switch: Time,
}

impl Cores {
    /// The bound the cores set on efficiency, `min(1, C / P)`.
    ///
    /// ```
    /// use treelb_sim::platform::Cores;
    /// let c = Cores { cores: 2, quantum: None, switch: 0 };
    /// assert_eq!(c.bound(8), 0.25);
    /// assert_eq!(c.bound(2), 1.0);
    /// ```
    pub fn bound(&self, p: u32) -> f64 {
        (f64::from(self.cores.max(1)) / f64::from(p.max(1))).min(1.0)
    }
}

/// A machine: P PEs, a network and the costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Platform {
    /// The number of PEs.
    pub p: u32,
    /// The network.
    pub network: Network,
    /// The costs.
    pub costs: Costs,
    /// Torus side lengths (x, y, z), derived from P and the network.
    #[serde(skip)]
    dims: [u32; 3],
}

impl Platform {
    /// A machine of `p` PEs (at least 1) on `network` with `costs`.
    ///
    /// A torus whose side would not be whole takes the nearest power-of-two
    /// sides whose product is at least P (PEs fill it in row order).
    pub fn new(p: u32, network: Network, costs: Costs) -> Self {
        assert!(p >= 1, "a machine needs at least one PE");
        let bits = u32::BITS - (p - 1).leading_zeros(); // ⌈log₂ p⌉
        let dims = match network {
            Network::Torus2d => {
                let x = 1u32 << bits.div_ceil(2);
                [x, (1u32 << bits) / x, 1]
            }
            Network::Torus3d => {
                let x = 1u32 << bits.div_ceil(3);
                let y = 1u32 << (bits - bits.div_ceil(3)).div_ceil(2);
                [x, y, (1u32 << bits) / (x * y)]
            }
            _ => [p, 1, 1],
        };
        Platform { p, network, costs, dims }
    }

    /// The number of hops between PEs `a` and `b` (0 if `a == b`).
    ///
    /// ```
    /// use treelb_sim::platform::{Costs, Platform, Network};
    /// let m = |n| Platform::new(16, n, Costs::default());
    /// assert_eq!(m(Network::Crossbar).hops(3, 9), 1);
    /// assert_eq!(m(Network::Ring).hops(1, 15), 2);
    /// assert_eq!(m(Network::Torus2d).hops(0, 15), 2); // (0,0) to (3,3) wraps
    /// assert_eq!(m(Network::FatTree).hops(4, 5), 2);
    /// assert_eq!(m(Network::FatTree).hops(0, 15), 8);
    /// ```
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            return 0;
        }
        match self.network {
            Network::Crossbar => 1,
            Network::FatTree => 2 * (u32::BITS - (a ^ b).leading_zeros()),
            Network::Ring => {
                let d = a.abs_diff(b);
                d.min(self.p - d)
            }
            Network::Torus2d | Network::Torus3d => {
                let [x, y, _] = self.dims;
                let ring = |u: u32, v: u32, n: u32| {
                    let d = u.abs_diff(v);
                    d.min(n - d)
                };
                let (ax, ay, az) = (a % x, (a / x) % y, a / (x * y));
                let (bx, by, bz) = (b % x, (b / x) % y, b / (x * y));
                ring(ax, bx, x) + ring(ay, by, y) + ring(az, bz, self.dims[2])
            }
        }
    }

    /// The time a message from `a` to `b` takes: `T_rout · max(1, hops)`.
    #[inline]
    pub fn delay(&self, a: u32, b: u32) -> Time {
        self.costs.t_rout * Time::from(self.hops(a, b).max(1))
    }

    /// The network diameter in hops, `d(n)`.
    pub fn diameter(&self) -> u32 {
        let bits = u32::BITS - (self.p - 1).leading_zeros();
        match self.network {
            Network::Crossbar => 1,
            Network::FatTree => 2 * bits,
            Network::Ring => self.p / 2,
            Network::Torus2d | Network::Torus3d => self.dims.iter().map(|&n| n / 2).sum(),
        }
    }

    /// `⌈log₂ P⌉`: the depth of a binary reduction or broadcast tree.
    pub fn log_p(&self) -> u32 {
        u32::BITS - (self.p - 1).leading_zeros()
    }

    /// The time PE `a` spends sending a message to PE `b`: `o_s` under
    /// LogGP, [`Costs::end_cost`] under the seeds' model.
    #[inline]
    pub fn send_overhead(&self, a: u32, b: u32) -> Time {
        match &self.costs.model {
            Model::Seeds => self.costs.end_cost(),
            Model::LogGp(g) => g.link(a, b).o_send,
        }
    }

    /// The time PE `b` spends taking in a message from PE `a`: `o_r` under
    /// LogGP, [`Costs::end_cost`] under the seeds' model.
    #[inline]
    pub fn receive_overhead(&self, a: u32, b: u32) -> Time {
        match &self.costs.model {
            Model::Seeds => self.costs.end_cost(),
            Model::LogGp(g) => g.link(a, b).o_recv,
        }
    }

    /// The time the head of a message takes from PE `a` to PE `b`: under
    /// LogGP `L_intra` within a node and `L · max(1, d(a, b))` between
    /// nodes, under the seeds' model [`delay`](Self::delay).
    #[inline]
    pub fn latency(&self, a: u32, b: u32) -> Time {
        match &self.costs.model {
            Model::Seeds => self.delay(a, b),
            Model::LogGp(g) if g.same_node(a, b) => g.intra.latency,
            Model::LogGp(g) => g.inter.latency * Time::from(self.hops(a, b).max(1)),
        }
    }

    /// The time `bytes` of a message from `a` to `b` take to pass a network
    /// interface: `⌈bytes · G⌉` under LogGP, 0 under the seeds' model (whose
    /// `t_word` adds to the travel instead).
    #[inline]
    pub fn transmission(&self, a: u32, b: u32, bytes: u64) -> Time {
        match &self.costs.model {
            Model::Seeds => 0,
            Model::LogGp(g) => g.link(a, b).transmission(bytes),
        }
    }

    /// The delay of termination detection after the last piece is exhausted:
    /// [`Costs::termination_waves`] reductions up a binomial tree rooted at
    /// PE 0 and the verdict back down, each a
    /// [`broadcast_delay`](Self::broadcast_delay) — on a crossbar
    /// `3 ⌈log₂ P⌉ · T_rout` under the seeds' model, `2 ⌈log₂ P⌉ · T_rout`
    /// in the optimistic one ([Sanders 1999]: O(T_rout log P)). Zero for one PE.
    ///
    /// ```
    /// use treelb_sim::platform::{Costs, Platform, Network, Overhead};
    /// let m = |n| Platform::new(1024, n, Costs::default());
    /// assert_eq!(m(Network::Crossbar).termination_delay(), 3 * 10 * 100);
    /// // A ring: the tree's messages travel 1 + 2 + 4 + … + 512 hops.
    /// assert_eq!(m(Network::Ring).termination_delay(), 3 * 1023 * 100);
    /// let optimistic = Costs { overhead: Overhead::Latency, ..Costs::default() };
    /// assert_eq!(Platform::new(1024, Network::Crossbar, optimistic).termination_delay(), 2 * 10 * 100);
    /// ```
    pub fn termination_delay(&self) -> Time {
        (self.costs.termination_waves() + 1) * self.broadcast_delay()
    }

    /// The time a broadcast from PE 0 takes to reach every PE along a
    /// binomial tree, whose level-j messages go between PEs 2^j apart:
    /// `Σ_j T_rout · max(1, d(0, 2^j))` over the ⌈log₂ P⌉ levels, so
    /// `⌈log₂ P⌉ · T_rout` on a crossbar and about `d(n) · T_rout` on a
    /// ring or torus (selective initialization starts with it).
    pub fn broadcast_delay(&self) -> Time {
        (0..self.log_p()).map(|j| self.delay(0, 1 << j)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_distances_are_symmetric_and_bounded_by_the_diameter() {
        for network in Network::ALL {
            for p in [1, 2, 7, 16, 64, 100] {
                let m = Platform::new(p, network, Costs::default());
                let mut max = 0;
                for a in 0..p {
                    for b in 0..p {
                        let h = m.hops(a, b);
                        assert_eq!(h, m.hops(b, a));
                        assert_eq!(h == 0, a == b);
                        max = max.max(h);
                    }
                }
                assert!(max <= m.diameter().max(1), "{network} p={p}: {max} > {}", m.diameter());
            }
        }
    }

    #[test]
    fn termination_is_free_on_one_pe() {
        let m = Platform::new(1, Network::Crossbar, Costs::default());
        assert_eq!(m.termination_delay(), 0);
        assert_eq!(Platform::new(1024, Network::Crossbar, Costs::default()).termination_delay(), 3000);
    }
}
