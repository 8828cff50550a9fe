//! The root of the TSP search on TSPLIB files: the Held–Karp bound, the
//! bound with the root's cuts, how many cuts, and the time the root took.
//!
//! ```text
//! cargo run --release -p treelb-apps --example tsp_root -- FILE.tsp ...
//! ```

use std::path::PathBuf;
use std::time::Instant;

use treelb_apps::tsp::{TspSearch, tsplib};
use treelb_files::text::escape_path;

fn main() {
    let files: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        eprintln!("usage: tsp_root FILE.tsp ...");
        std::process::exit(2);
    }
    println!("| file | n | Held–Karp | root bound | combs | subtours | root s |");
    println!("|---|--:|--:|--:|--:|--:|--:|");
    for file in files {
        let tsp = match tsplib::read_file(&file) {
            Ok(tsp) => tsp,
            Err(e) => {
                eprintln!("{}: {e}", escape_path(&file));
                std::process::exit(1);
            }
        };
        let start = Instant::now();
        let search = TspSearch::new(&tsp);
        let secs = start.elapsed().as_secs_f64();
        let name = escape_path(file.file_stem().map_or(file.as_ref(), std::path::Path::new));
        match search.root_cuts() {
            Some(c) => println!(
                "| {name} | {} | {:.2} | {:.2} | {} | {} | {secs:.1} |",
                tsp.n(),
                c.held_karp,
                c.bound,
                c.combs,
                c.subtours
            ),
            None => println!("| {name} | {} | — | — | — | — | {secs:.1} |", tsp.n()),
        }
    }
}
