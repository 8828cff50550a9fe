//! What a run of the balancer is: the one specification every driver
//! takes, with typed per-strategy parameters, validated once.
//!
//! A [`RunSpec`] says which [`Strategy`] balances, how the root reaches the
//! PEs ([`Init`]), Δt (the work units between two polls), the seed of the
//! PEs' random choices, and the parameters of the strategies that have some:
//! ρ of max-load's lazy reports ([`Rho`]) and the fan-outs of the
//! multilevel producer tree. The threads runtime, the MPI runtime and the
//! simulator each add only what their medium needs (threads per process,
//! the machine model). From a spec come every PE's [`Machine`], the run's
//! [`Hub`], and every PE's initial pieces.
//!
//! ```
//! use treelb::{RunSpec, Strategy};
//! use treelb::spec::Rho;
//! let spec = RunSpec { strategy: Strategy::MaxLoad, rho: Rho::new(1.25)?, ..RunSpec::default() };
//! spec.validate()?;
//! assert_eq!(spec.budget, treelb::spec::Budget::DEFAULT);
//! # Ok::<(), treelb::spec::SpecError>(())
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::init::{Share, selective_shares};
use crate::strategy::master::Worker;
use crate::strategy::maxload::MaxLoad;
use crate::strategy::multilevel::{MAX_FANOUT, Multilevel, ProducerTree};
use crate::strategy::pushing::Pushing;
use crate::strategy::static_assign::{STATIC_PARTS_PER_PE, Static, StaticAssignment};
use crate::strategy::stealing::Stealing;
use crate::strategy::{Hub, Machine};
use crate::{Init, Reduce, Strategy, Work};

/// Δt: the units of work a busy PE does between two polls for requests
/// ([Sanders 1994]'s `work(I, Δt)`), at least 1. Smaller answers requests
/// sooner; larger costs less per unit.
///
/// ```
/// use treelb::spec::{Budget, SpecError};
/// assert_eq!(Budget::default().get(), 256);
/// assert_eq!(Budget::new(16)?.get(), 16);
/// assert_eq!(Budget::new(0), Err(SpecError::ZeroBudget));
/// assert_eq!("64".parse::<Budget>()?, Budget::of(64));
/// # Ok::<(), SpecError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Budget(std::num::NonZeroU64);

impl Budget {
    /// The default Δt, 256 units: the one default every runtime, the
    /// simulator and the command line use unless an application sets its
    /// own.
    pub const DEFAULT: Budget = Budget::of(256);

    /// Δt = `units`, checked: at least 1.
    pub const fn new(units: u64) -> Result<Budget, SpecError> {
        match std::num::NonZeroU64::new(units) {
            Some(n) => Ok(Budget(n)),
            None => Err(SpecError::ZeroBudget),
        }
    }

    /// Δt = `units`, for constants: panics on 0 (at compile time in a
    /// `const`). Input goes through [`Budget::new`] or [`str::parse`].
    pub const fn of(units: u64) -> Budget {
        match std::num::NonZeroU64::new(units) {
            Some(n) => Budget(n),
            None => panic!("Δt must be at least 1 unit"),
        }
    }

    /// The units of work.
    pub const fn get(self) -> u64 {
        self.0.get()
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

impl TryFrom<u64> for Budget {
    type Error = SpecError;

    fn try_from(units: u64) -> Result<Self, SpecError> {
        Budget::new(units)
    }
}

impl From<Budget> for u64 {
    fn from(b: Budget) -> u64 {
        b.get()
    }
}

impl std::str::FromStr for Budget {
    type Err = SpecError;

    /// A whole number of units, at least 1.
    fn from_str(s: &str) -> Result<Self, SpecError> {
        let units = s.trim().parse::<u64>().map_err(|_| SpecError::BadBudget(s.to_owned()))?;
        Budget::new(units)
    }
}

/// The default seed of the PEs' random choices.
pub const DEFAULT_SEED: u64 = 0x7EE1_B5EED;

/// The ratio ρ of max-load's lazy load reports (a PE reports when
/// ⌈log_ρ L⌉ grows): strictly between 1 and 3/2, the range of Loui and
/// Sohoni's analysis ([Loui & Sohoni 1989]), held in thousandths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rho(u16);

impl Rho {
    /// The default, 1.4.
    pub const DEFAULT: Rho = Rho(1400);

    /// ρ, checked: `1 < rho < 1.5`, rounded to thousandths.
    ///
    /// ```
    /// use treelb::spec::Rho;
    /// assert_eq!(Rho::new(1.4).unwrap().value(), 1.4);
    /// assert!(Rho::new(1.5).is_err() && Rho::new(1.0).is_err() && Rho::new(f64::NAN).is_err());
    /// ```
    pub fn new(rho: f64) -> Result<Rho, SpecError> {
        let milli = (rho * 1000.0).round();
        if rho > 1.0 && rho < 1.5 && (1001.0..=1499.0).contains(&milli) {
            Ok(Rho(milli as u16))
        } else {
            Err(SpecError::BadRho(rho))
        }
    }

    /// ρ as a number.
    pub fn value(self) -> f64 {
        f64::from(self.0) / 1000.0
    }
}

impl Default for Rho {
    fn default() -> Self {
        Rho::DEFAULT
    }
}

impl fmt::Display for Rho {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

/// A specification that cannot run.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecError {
    /// Δt was 0.
    ZeroBudget,
    /// Δt was not a whole number of units.
    BadBudget(String),
    /// ρ outside (1, 3/2).
    BadRho(f64),
    /// A fan-out of 0.
    ZeroFanout,
    /// A fan-out wider than [`MAX_FANOUT`].
    FanoutTooWide(usize),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::ZeroBudget => f.write_str("the work budget (Δt) must be at least 1 unit"),
            SpecError::BadBudget(s) => {
                write!(
                    f,
                    "the work budget (Δt) is a whole number of units, at least 1; got {:?}",
                    s.escape_debug().to_string()
                )
            }
            SpecError::BadRho(r) => write!(
                f,
                "the ratio of lazy load reports must lie strictly between 1 and 1.5 (Loui and Sohoni's ρ < 3/2), got {r}"
            ),
            SpecError::ZeroFanout => f.write_str("every fan-out of the producer tree must be at least 1"),
            SpecError::FanoutTooWide(d) => {
                write!(f, "a fan-out of {d} is too wide (at most {MAX_FANOUT})")
            }
        }
    }
}

impl std::error::Error for SpecError {}

/// The default granularity control of `multilevel`
/// ([`RunSpec::grain`]): pieces a producer cuts per child.
pub const DEFAULT_GRAIN: u32 = 4;

/// How to balance one run, whatever runs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSpec {
    /// The balancing strategy.
    pub strategy: Strategy,
    /// How the root reaches the PEs.
    pub init: Init,
    /// Δt: units of work a busy PE does between two polls.
    pub budget: Budget,
    /// Seed of the PEs' random choices: the same seed gives the same
    /// choices (though not the same schedule where timing varies).
    pub seed: u64,
    /// `max-load`: ρ of the lazy load reports.
    pub rho: Rho,
    /// `multilevel`: the fan-out of each level of the producer tree, root
    /// first (levels beyond the list repeat its last entry). Empty: the
    /// default tree of [`ProducerTree::for_run`].
    pub fanout: Vec<usize>,
    /// `multilevel`: granularity control, the pieces a producer cuts per
    /// child ([`Multilevel::with_grain`]); 0: none, a child gets the part
    /// its producer's piece splits off.
    #[serde(default)]
    pub grain: u32,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            strategy: Strategy::RandomPolling,
            init: Init::Root,
            budget: Budget::DEFAULT,
            seed: DEFAULT_SEED,
            rho: Rho::DEFAULT,
            fanout: Vec::new(),
            grain: DEFAULT_GRAIN,
        }
    }
}

impl RunSpec {
    /// A default spec with the given strategy.
    pub fn with_strategy(strategy: Strategy) -> Self {
        RunSpec { strategy, ..RunSpec::default() }
    }

    /// Checks that the spec can run.
    pub fn validate(&self) -> Result<(), SpecError> {
        // ρ is checked when made; a deserialized one is checked again.
        Rho::new(self.rho.value())?;
        if self.fanout.contains(&0) {
            return Err(SpecError::ZeroFanout);
        }
        if let Some(&d) = self.fanout.iter().find(|&&d| d > MAX_FANOUT) {
            return Err(SpecError::FanoutTooWide(d));
        }
        Ok(())
    }

    /// The producer tree of `multilevel` for `p` PEs.
    pub fn producer_tree(&self, p: usize) -> ProducerTree {
        ProducerTree::for_run(p, &self.fanout)
    }

    /// The machine of PE `me` of `p`.
    pub fn machine(&self, me: usize, p: usize) -> Machine {
        self.grouped_machine(me, p, 1)
    }

    /// The machines of all `p` PEs, in PE order: [`machine`](Self::machine)
    /// of each, with what they share (the producer tree of `multilevel`)
    /// built once, so that the whole list costs O(p).
    ///
    /// ```
    /// use treelb::{RunSpec, Strategy};
    /// let spec = RunSpec::with_strategy(Strategy::Multilevel);
    /// let all = spec.machines(9);
    /// assert_eq!(all.len(), 9);
    /// assert_eq!(format!("{:?}", all[4]), format!("{:?}", spec.machine(4, 9)));
    /// ```
    pub fn machines(&self, p: usize) -> Vec<Machine> {
        match self.strategy {
            Strategy::Multilevel => {
                let tree = self.producer_tree(p);
                (0..p).map(|me| Machine::Multilevel(Multilevel::with_grain(&tree, me, self.grain))).collect()
            }
            _ => (0..p).map(|me| self.machine(me, p)).collect(),
        }
    }

    /// The machine of PE `me` of `p`, the PEs in groups of `group` (the
    /// threads of one MPI rank in hybrid runs; `p` a multiple of it).
    pub fn grouped_machine(&self, me: usize, p: usize, group: usize) -> Machine {
        match self.strategy {
            s @ (Strategy::RandomPolling | Strategy::GlobalRoundRobin | Strategy::AsyncRoundRobin) => {
                Machine::Stealing(Stealing::new(s, me, p, group, self.seed))
            }
            s @ (Strategy::WorkSharing
            | Strategy::ExtremeWorkSharing
            | Strategy::TwoChoice
            | Strategy::AlwaysGoLeft) => Machine::Pushing(Box::new(Pushing::new(s, me, p, self.seed))),
            Strategy::MaxLoad => Machine::MaxLoad(MaxLoad::new(me, self.rho.value())),
            Strategy::Multilevel => {
                Machine::Multilevel(Multilevel::with_grain(&self.producer_tree(p), me, self.grain))
            }
            Strategy::MasterWorker => Machine::Master(Worker::new()),
            Strategy::StaticBlock | Strategy::StaticCyclic | Strategy::StaticRandom => {
                Machine::Static(Static::new())
            }
        }
    }

    /// The hub of a run on `p` PEs; `busy(pe)` says which PEs start with a
    /// piece.
    pub fn hub<T>(&self, p: usize, busy: impl Fn(usize) -> bool) -> Hub<T> {
        Hub::new(self.strategy, p, busy)
    }

    /// Whether the root is cut before the run (selective initialization,
    /// static assignment): then every PE's initial pieces come from one
    /// descent of the splitting tree, and a distributed driver broadcasts
    /// the root so that every process cuts its own copy.
    pub fn cuts_root(&self) -> bool {
        self.init == Init::Selective || self.strategy.is_static()
    }

    /// Whether PE `pe` may start with a piece: PE 0 alone when the root is
    /// not cut, any PE otherwise (a share may still come out empty). The
    /// master of master–worker demands parts from these first.
    pub fn may_start_busy(&self, pe: usize) -> bool {
        self.cuts_root() || pe == 0
    }

    /// The static assignment of a run on `p` PEs (static strategies only).
    pub fn static_assignment(&self, p: usize) -> Option<StaticAssignment> {
        self.strategy
            .is_static()
            .then(|| StaticAssignment::new(self.strategy, p, STATIC_PARTS_PER_PE, self.seed))
    }

    /// The pieces PEs `wanted` (of `p`) start with, each a list of shares:
    ///
    /// * static strategies: the root cut into the parts of
    ///   [`static_assignment`](Self::static_assignment), each PE its own;
    /// * [`Init::Selective`]: one share each, by the bits of the PE index;
    /// * [`Init::Root`]: PE 0 the root, the others nothing.
    ///
    /// The cut is one descent of the splitting tree. `cut_all` cuts every
    /// PE's share even if fewer are wanted: a search that prunes by shared
    /// state (an incumbent) must see the same cut on every process that cuts
    /// (see [`crate::init`]).
    ///
    /// ```
    /// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
    /// use treelb::{seq, Reduce, RunSpec, Strategy};
    /// let spec = RunSpec::with_strategy(Strategy::StaticCyclic);
    /// let shares = spec.initial_shares(&DfsWork::new(&BinaryTree(12), SplitPolicy::OldestHalf), 3, &[0, 1, 2], false);
    /// let mut total = 0u64;
    /// for share in shares.into_iter().flatten() {
    ///     total.merge(share.output);
    ///     total.merge(share.piece.map_or(0, |p| seq::run_work(p).0));
    /// }
    /// assert_eq!(total, (1 << 13) - 1);
    /// ```
    pub fn initial_shares<W: Work + Clone>(
        &self,
        root: &W,
        p: usize,
        wanted: &[usize],
        cut_all: bool,
    ) -> Vec<Vec<Share<W>>> {
        let mut shares: Vec<Vec<Share<W>>> = wanted.iter().map(|_| Vec::new()).collect();
        // Where each wanted PE's list is (PEs not wanted: none).
        let mut index = vec![usize::MAX; p];
        for (i, &pe) in wanted.iter().enumerate() {
            index[pe] = i;
        }
        let slot = |pe: usize| (index[pe] != usize::MAX).then_some(index[pe]);
        if let Some(assignment) = self.static_assignment(p) {
            let all: Vec<usize> = (0..assignment.pieces()).collect();
            let mut by_index: Vec<Option<Share<W>>> = (0..assignment.pieces()).map(|_| None).collect();
            for (index, share) in selective_shares(root, &all, assignment.pieces()) {
                by_index[index] = Some(share);
            }
            let by_pe = assignment.shares_by_pe(p);
            for (i, &pe) in wanted.iter().enumerate() {
                for &index in &by_pe[pe] {
                    shares[i].push(by_index[index].take().expect("every index has its share"));
                }
            }
        } else if self.init == Init::Selective {
            let cut: Vec<usize> = if cut_all { (0..p).collect() } else { wanted.to_vec() };
            for (index, share) in selective_shares(root, &cut, p) {
                if let Some(i) = slot(index) {
                    shares[i].push(share);
                }
            }
        } else if let Some(i) = slot(0) {
            shares[i].push(Share { piece: Some(root.clone()), output: W::Output::default(), units: 0 });
        }
        shares
    }
}

/// The output and work units of cutting, and the pieces, of a list of
/// shares: what a PE starts with.
pub fn unpack<W: Work>(shares: Vec<Share<W>>) -> (Vec<W>, W::Output, u64) {
    let mut output = W::Output::default();
    let mut units = 0;
    let pieces = shares
        .into_iter()
        .filter_map(|s| {
            output.merge(s.output);
            units += s.units;
            s.piece
        })
        .collect();
    (pieces, output, units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bad_field_is_named() {
        let bad = |f: fn(&mut RunSpec)| {
            let mut s = RunSpec::default();
            f(&mut s);
            s.validate().unwrap_err().to_string()
        };
        assert!("0".parse::<Budget>().unwrap_err().to_string().contains("Δt"));
        assert!(bad(|s| s.fanout = vec![4, 0]).contains("at least 1"));
        assert!(bad(|s| s.fanout = vec![5000]).contains("too wide"));
        assert!(RunSpec::default().validate().is_ok());
    }

    #[test]
    fn every_strategy_has_its_machine_family() {
        for s in Strategy::ALL {
            let m = RunSpec::with_strategy(s).machine(1, 4);
            let family = match m {
                Machine::Stealing(_) => "stealing",
                Machine::Pushing(_) => "pushing",
                Machine::MaxLoad(_) => "max-load",
                Machine::Multilevel(_) => "multilevel",
                Machine::Master(_) => "master",
                Machine::Static(_) => "static",
            };
            let expected = if s.is_pushing() {
                "pushing"
            } else if s.is_static() {
                "static"
            } else {
                match s {
                    Strategy::MaxLoad => "max-load",
                    Strategy::Multilevel => "multilevel",
                    Strategy::MasterWorker => "master",
                    _ => "stealing",
                }
            };
            assert_eq!(family, expected, "{s}");
        }
    }
}
