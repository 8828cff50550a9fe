//! `treelb connect4 POSITION` / `--file F` / `--generate N`: Connect Four
//! solved exactly by parallel alpha-beta under young brothers wait, on the
//! threads runtime or across MPI ranks; `treelb gametree`: a synthetic game
//! tree (`treelb_apps::gametree`) solved the same way.

use std::io::Write;
use std::time::Instant;

use treelb::game::{Game, GameOutput, alpha_beta_output, solve_root};
use treelb_apps::connect4::{Connect4, Position, parse_positions, random_positions};
use treelb_apps::gametree::GameTree;
use treelb_apps::report::connect4::{Row, Summary};
use treelb_run::game::{GameRun, GameRunBuilder};

use super::Status;
use crate::args::{Connect4Args, GameTreeArgs, SearchArgs};
use crate::config::{Error, RunConfig, err, number, positive};

/// Runs `treelb gametree`.
pub(crate) fn run_gametree(args: &GameTreeArgs, out: &mut impl Write) -> Result<Status, Error> {
    if args.check && args.search.sequential {
        return Err(err!(
            "gametree: --check compares the runtime with the sequential search; not with --sequential"
        ));
    }
    if !(0.0..=1.0).contains(&args.ordering) {
        return Err(err!("--ordering must be between 0 and 1, got {}", args.ordering));
    }
    let cfg = RunConfig::from_args(&args.search.run)?;
    check_supported(&cfg, "gametree")?;
    let tree = GameTree {
        branching: args.branching,
        depth: args.depth,
        weight: args.weight,
        ordering: args.ordering,
        seed: args.tree,
    };
    let world = crate::run::world(&cfg)?;
    let games = builder(&cfg, &args.search).start(world.pes())?;
    if games.rank() != 0 {
        let ok = serve(games, &tree);
        world.end();
        return Ok(ok);
    }
    let b = tree.bound();
    let start = Instant::now();
    let o = solve_root(b, args.null_windows, |a, bb| games.search(&tree, tree.root(), a, bb));
    let (value, nodes, aborted) = (o.value.unwrap_or_default(), o.nodes, o.aborted_nodes);
    let seconds = start.elapsed().as_secs_f64();
    let how = games.describe();
    writeln!(
        out,
        "synthetic game tree: branching {}, depth {}, ordering {}, weight {}, tree {}; {how}",
        tree.branching, tree.depth, tree.ordering, tree.weight, tree.seed,
    )?;
    writeln!(out, "value: {value}")?;
    writeln!(out, "nodes: {nodes}")?;
    writeln!(out, "aborted nodes: {aborted}")?;
    writeln!(out, "time: {seconds:.3} s")?;
    let mut ok = true;
    if args.check {
        let o = solve_root(b, args.null_windows, |a, bb| alpha_beta_output(&tree, &tree.root(), a, bb));
        let seq = o.value.unwrap_or_default();
        writeln!(out, "sequential: value {seq}, {} nodes", o.nodes)?;
        ok = seq == value;
        if !ok {
            eprintln!("treelb: mismatch: value {value}, sequential value {seq}");
        }
    }
    // Out before MPI is finalized, as in `run` below.
    out.flush()?;
    finish(games, ok);
    world.end();
    Ok(ok.into())
}

pub(crate) fn run(args: &Connect4Args, out: &mut impl Write) -> Result<Status, Error> {
    let cfg = RunConfig::from_args(&args.search.run)?;
    if let Some(n) = &args.generate {
        let moves: u32 = number("--moves", &args.moves)?;
        if moves > 40 {
            return Err(err!("--moves must be at most 40, got {moves}"));
        }
        for p in random_positions(positive("--generate", n)?, moves, cfg.spec.seed) {
            writeln!(out, "{}", p.map_err(|e| err!("--generate: {e}"))?)?;
        }
        return Ok(Status::Done);
    }
    check_supported(&cfg, "connect4")?;
    let log2: u32 = number("--tt-log2", &args.tt_log2)?;
    if !(4..=32).contains(&log2) {
        return Err(err!("--tt-log2 must be between 4 and 32, got {log2}"));
    }
    let parsed = match (&args.position, &args.file) {
        (Some(p), _) => vec![(p.clone(), Position::parse(p).map_err(|e| err!("position `{p}`: {e}"))?, None)],
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| err!("--file {path}: {e}"))?;
            parse_positions(path, &text).map_err(|e| err!("{e}"))?
        }
        (None, None) => unreachable!("clap requires a position, --file or --generate"),
    };
    let world = crate::run::world(&cfg)?;
    let games = builder(&cfg, &args.search).start(world.pes())?;
    let game = if args.tt_per_pe && !games.on_ranks() {
        Connect4::per_pe(log2, cfg.threads, treelb_threads::current_pe)
    } else {
        // Across ranks each rank has its own table anyway.
        Connect4::new(log2)
    };
    if games.rank() != 0 {
        let ok = serve(games, &game);
        world.end();
        return Ok(ok);
    }
    let started = Instant::now();
    let log = |p: &Position, a: i32, b: i32, o: &GameOutput, t: Instant| {
        if args.verbose {
            eprintln!(
                "treelb: {} moves, window ({a}, {b}): value {}, {} nodes, {:.3} s (at {:.1} s)",
                p.moves(),
                o.value.map_or("none".into(), |v| v.to_string()),
                o.nodes,
                t.elapsed().as_secs_f64(),
                started.elapsed().as_secs_f64()
            );
        }
    };
    let mut rows = Vec::with_capacity(parsed.len());
    for (text, pos, expected) in parsed {
        let start = Instant::now();
        let solved = game.solve_with_options(&pos, args.weak, !args.score_only, |p, a, b| {
            let t = Instant::now();
            let o = games.search(&game, *p, a, b);
            log(p, a, b, &o, t);
            o
        });
        let seconds = start.elapsed().as_secs_f64();
        let expected = expected.map(|s| if args.weak { s.signum() } else { s });
        if args.each && !cfg.json {
            writeln!(out, "{text} {} {} {:.3}", solved.score, solved.nodes, seconds * 1e3)?;
        }
        rows.push(Row { position: text, solved, expected, seconds });
    }
    let summary = Summary::of(&rows);
    let table = if games.on_ranks() {
        "a table per rank"
    } else if args.tt_per_pe {
        "a table per PE"
    } else {
        "one shared table"
    };
    let how = match args.search.sequential {
        true => games.describe(),
        false => format!("{}, {table}", games.describe()),
    };
    if cfg.json {
        serde_json::to_writer_pretty(&mut *out, &rows).map_err(|e| err!("{e}"))?;
        writeln!(out)?;
    } else if args.position.is_some() {
        write!(out, "{}", rows[0].text(&how, args.weak, args.score_only))?;
    } else {
        write!(out, "{}", summary.text(&how))?;
    }
    for r in rows.iter().filter(|r| r.mismatch()) {
        eprintln!(
            "treelb: mismatch: position {}: score {}, expected {}",
            r.position,
            r.solved.score,
            r.expected.unwrap_or_default()
        );
    }
    // The report leaves this process before MPI is finalized: once a rank
    // exits with a failure code, mpirun tears the job down and may drop
    // output it has not forwarded yet.
    out.flush()?;
    // Rank 0's verdict goes to every rank, so every rank ends with it.
    let ok = summary.mismatches == 0;
    finish(games, ok);
    world.end();
    Ok(ok.into())
}

/// Refuses, in one line, what a game search does not support.
fn check_supported(cfg: &RunConfig, what: &str) -> Result<(), Error> {
    // The library names the setting; the command line, its flag.
    treelb_run::game::supports(&cfg.spec).map_err(|e| err!("{what}: --{e}"))?;
    if cfg.trace.is_some() || cfg.max_nodes.is_some() || cfg.time_limit.is_some() {
        return Err(err!(
            "{what}: --trace, --max-nodes and --time-limit are not supported (a stopped game search has no value)"
        ));
    }
    cfg.refuse_deterministic(what)?;
    cfg.refuse_checkpoint(what)?;
    Ok(())
}

/// The game searches the options ask for.
fn builder(cfg: &RunConfig, search: &SearchArgs) -> GameRunBuilder {
    let spec = cfg.spec.clone();
    GameRun::builder(spec).pin(cfg.pin).ybw(!search.no_ybw).sequential(search.sequential)
}

/// On a rank other than 0: takes part in rank 0's searches of `game`, then
/// ends with rank 0's verdict.
fn serve<G: Game>(games: GameRun<'_>, game: &G) -> Status
where
    G::Position: serde::Serialize + serde::de::DeserializeOwned,
{
    let ok = games.serve(game);
    finish(games, ok);
    ok.into()
}

/// Ends the game searches with the verdict `ok`: across ranks, rank 0 tells
/// the serving ranks and reports their messages on stderr; then MPI is
/// finalized.
fn finish(games: GameRun<'_>, ok: bool) {
    if let Some(summary) = games.finish(ok) {
        eprintln!("treelb: {summary}");
    }
}
