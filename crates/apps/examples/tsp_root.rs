//! Root bounds of TSPLIB files (scratch).
fn main() {
    for path in std::env::args().skip(1) {
        let tsp = treelb_apps::tsp::tsplib::read_file(&path).unwrap();
        let t = std::time::Instant::now();
        let s = treelb_apps::tsp::TspSearch::new(&tsp);
        let c = s.root_cuts().unwrap();
        println!(
            "{path}: hk {:.1} bound {:.1} combs {} in {:.2}s",
            c.held_karp,
            c.bound,
            c.combs,
            t.elapsed().as_secs_f64()
        );
    }
}
