//! # treelb — dynamic load balancing of tree-shaped computations
//!
//! The vocabulary, in the order of the model (Sanders, [Sanders 1999] §1.2):
//!
//! * [`work`] — a *piece of work* `I` held by one processing element (PE):
//!   `work(I, Δt)` does bounded sequential work, `split(I)` cuts off part of
//!   it, and every piece has a *generation* (how many splits made it).
//! * [`reduce`] — results of pieces merge by an associative, commutative
//!   reduction ([`Reduce`]), so any schedule gives the sequential answer.
//! * [`game`] — game-tree search: negamax by alpha-beta, sequential and
//!   shared out under the young-brothers-wait concept ([`game::YbwWork`]).
//! * [`search`] — a backtracking search only says how a node expands
//!   ([`Search`]); the DFS-stack adapter [`DfsWork`] makes it a piece of work
//!   and splits it by a [`SplitPolicy`] (half of the oldest generation, or the
//!   bottom-most node).
//! * [`incumbent`] — the shared best solution of branch and bound, and the
//!   early stop of decision searches.
//! * [`init`] — how the root reaches the PEs: PE 0 alone, or selective
//!   initialization by the bits of the PE index.
//! * [`limit`] — a cap on the units of work of a run, which stops every PE
//!   as a decided decision search does.
//! * [`strategy`] — every balancing scheme of the seeds as a state machine
//!   per PE (and one [`strategy::Hub`] per run where a scheme needs a shared
//!   structure): events in, actions out, no threads, no messages, no clock.
//! * [`pe`] — one processing element around its machine, with no transport
//!   in it: its piece and pool, its slices of work, the splits and messages
//!   its machine's actions call for, its counters ([`pe::Pe`]).
//! * [`spec`] — what a run of the balancer is ([`RunSpec`]): strategy,
//!   initialization, Δt, seed, and the strategies' parameters, validated
//!   once; the machines, the hub and the initial pieces come from it.
//! * [`termination`] — the four-counter termination detection of distributed
//!   drivers, as a state machine.
//! * [`stats`] — per-PE counters and the efficiency estimate.
//! * [`seq`] — the sequential baseline: the same node code, no runtime.
//! * [`rng`] — SplitMix64, the one generator behind every random choice;
//!   [`backoff`] — how an idle PE of a runtime waits, as a policy.
//!
//! This crate has no threads and no transport: three drivers run these
//! pieces — the threads runtime (`treelb-threads`), the MPI runtime
//! (`treelb-mpi`) and the simulator (`treelb-sim`).
//!
//! ```
//! use treelb::search::{Children, DfsWork, Search, SplitPolicy};
//! use treelb::{seq, Work};
//!
//! /// Counts the n-bit strings with no two adjacent ones.
//! struct NoAdjacentOnes(u32);
//!
//! impl Search for NoAdjacentOnes {
//!     type Node = (u32, bool); // (bits placed, last bit was one)
//!     type Output = u64;
//!     fn root(&self) -> (u32, bool) { (0, false) }
//!     fn expand(&self, (len, one): (u32, bool), acc: &mut u64, c: &mut Children<'_, (u32, bool)>) {
//!         if len == self.0 {
//!             *acc += 1;
//!             return;
//!         }
//!         c.push((len + 1, false));
//!         if !one {
//!             c.push((len + 1, true));
//!         }
//!     }
//! }
//!
//! let problem = NoAdjacentOnes(20);
//! // Sequentially: Fibonacci(22) strings.
//! assert_eq!(seq::run_search(&problem).0, 17711);
//! // Two pieces, worked separately, give the same count.
//! let mut a = DfsWork::new(&problem, SplitPolicy::OldestHalf);
//! let mut count = 0;
//! a.work(10, &mut count);
//! let b = a.split().unwrap();
//! count += seq::run_work(a).0 + seq::run_work(b).0;
//! assert_eq!(count, 17711);
//! ```

pub mod backoff;
pub mod bound;
pub mod game;
pub mod incumbent;
pub mod init;
pub mod limit;
pub mod pe;
pub mod reduce;
pub mod rng;
pub mod search;
pub mod seq;
pub mod spec;
pub mod stats;
pub mod strategy;
pub mod termination;
pub mod trace;
pub mod work;

pub use incumbent::{Incumbent, Sense};
pub use init::Init;
pub use reduce::Reduce;
pub use search::{DfsWork, Search, SplitPolicy};
pub use spec::RunSpec;
pub use stats::{MIN_MEASURED_WALL, PeStats, RunStats};
pub use strategy::Strategy;
pub use work::{Progress, Work};
