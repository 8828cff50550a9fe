//! # treelb-sim — a discrete-event simulator of dynamic load balancing
//!
//! The seeds are mostly analysis: bounds that hold for thousands of PEs,
//! which no machine here has. This crate lets those results happen on one
//! core: it simulates P processing elements (PEs) exchanging messages, and
//! drives the *same* scheduler the threads and MPI runtimes run — every
//! PE's decisions come from its `treelb::strategy` machine, the run's hub
//! is `treelb::strategy::Hub`, the work is a `treelb::Work` (splits
//! included), and the initial pieces are `treelb::RunSpec::initial_shares`.
//! What the simulator adds is time.
//!
//! ## The model
//!
//! * [`platform`] — Sanders' conservative LogP ([Sanders 1999] §1.1): a message
//!   travels `T_rout` per hop of the network (crossbar, fat tree, 3D/2D
//!   torus, ring) and costs its sender and its receiver `T_rout` each
//!   ([`platform::Overhead::SendReceive`]; [`platform::Overhead::Latency`] is
//!   the optimistic model in which it only travels); a busy PE probes for
//!   messages every Δt of work (the spec's Δt in units, times the ticks of
//!   a unit) at `T_poll` a probe; a split costs `T_split`; termination
//!   detection is a tree reduction, two waves up and the verdict down,
//!   `3⌈log₂ P⌉·T_rout` after the last piece ends on a crossbar (the
//!   reduction tree's messages travel the network too). That is the seeds'
//!   model, which the reproductions run; predictions of real runs use
//!   [`loggp`] instead.
//! * [`loggp`] — LogGP: overheads charged to the PEs, latency per hop, a
//!   gap per byte at each PE's network interface, which passes one message
//!   at a time, intra- and inter-node links; the broadcast of selective
//!   initialization and termination detection's waves are messages.
//! * [`workload`] — what is worked on: abstract pieces of hidden size that
//!   split in a ratio α ([Sanders 1994]), atomic below `T_atomic` or after `h`
//!   generations; or a real UTS tree, one node costing a given time.
//! * [`queue`] — events ordered by (time, sequence number), so a run is a
//!   function of its seed; a timing wheel, because nearly every event is
//!   due within a few message times.
//! * [`engine`] — [Sanders 1999] Figure 1 as events, for all 13 strategies: each
//!   PE's machine decides, the engine delivers its messages; the hub (the
//!   counter of global round robin, max-load's heap, the central pool of
//!   master–worker) takes each message in, spends `T_counter` on it and
//!   sends its answers, one message at a time, at PE 0.
//! * [`utilization`] — busy PEs over time, binned without knowing the run's
//!   length in advance.
//!
//! Beside the machine, three models need no event queue:
//! [`producer`] is Kimura and Ichiyoshi's producer/consumer queue ([Kimura & Ichiyoshi 1992]
//! Definition 1) on the i.i.d. subtask model (deterministic, exponential or
//! uniform subtask sizes), [`multilevel`] their multi-level scheme on that
//! model, a tree of producers with a fan-out and a granularity per level
//! (`treelb sim run --strategy multilevel --workload iid:…`; on tree-shaped
//! work the `multilevel` machine runs in the [`engine`] like every other
//! strategy), and [`alloc`] places p tasks on p servers by the
//! lecture's rules ([Lecture, load balancing]), and [`ybwc`] runs parallel alpha-beta under
//! young brothers wait on synthetic game trees. [`sweep`] searches for isoefficiency, [`plot`] draws
//! PNG/SVG charts with an embedded font, and [`reproduce`] puts it together
//! into the reports of `docs/reproductions/`. [`replay`] runs a recorded
//! run's trace again in the engine, with the costs measured in the trace,
//! and sets the simulator's decisions beside the run's.
//!
//! ## Why this model
//!
//! The analyses bound T_par by what messages, splits and probes cost; so the
//! simulator charges exactly those and nothing else: no caches, no
//! contention in the network beyond the counter of global round robin, no
//! cost for receiving. That makes a simulated run the paper's model made
//! concrete, and a mismatch with a bound a finding about the bound (or the
//! constant it hides), not about an unmodelled effect.
//!
//! Time is integer ticks, so costs add exactly and two runs with one seed
//! agree to the tick. A PE's state changes only when a message arrives or
//! its piece runs out, so a busy PE nobody asks is one event for its whole
//! piece, not one per Δt: the number of events is about the number of
//! messages, which is what load balancing costs anyway, and 16384 PEs run
//! in about a second.
//!
//! Load queries, reports and requests to the hub are messages like any
//! other: they take `T_rout` each way and are counted.
//!
//! ```
//! use treelb::{RunSpec, Strategy};
//! use treelb_sim::engine::{simulate, SimConfig};
//! use treelb_sim::platform::{Costs, Platform, Network};
//! use treelb_sim::workload::{AlphaDist, AlphaModel};
//!
//! let model = AlphaModel { total: 10_000_000, dist: AlphaDist::Fixed { alpha: 1.0 / 3.0 },
//!                          atomic: 100, max_generation: 64, seed: 1 };
//! let machine = Platform::new(256, Network::Crossbar, Costs::default());
//! let cfg = SimConfig::new(machine, RunSpec { budget: treelb::spec::Budget::of(100), seed: 7, ..RunSpec::default() });
//! let (report, done) = simulate(model.root(), &cfg).unwrap();
//! assert_eq!(done, 10_000_000); // every unit of work done exactly once
//! assert!(report.efficiency > 0.5 && report.t_par > 10_000_000 / 256);
//! ```

pub mod alloc;
pub mod calibrate;
pub mod engine;
pub mod loggp;
pub mod maxload;
pub mod multilevel;
pub mod platform;
#[cfg(feature = "report")]
pub mod plot;
pub mod producer;
pub mod queue;
pub mod replay;
#[cfg(feature = "report")]
pub mod reproduce;
pub mod run;
mod stats;
pub mod sweep;
pub mod utilization;
pub mod workload;
pub mod ybwc;

pub use engine::{SimConfig, SimReport, simulate};
pub use platform::{Cores, Costs, Model, Network, Platform};
pub use workload::{AlphaDist, AlphaModel, AlphaPiece, SimWork};
