//! How long the operating system takes to start a new thread, and to run a
//! parked one again, while the thread that asks keeps its core busy — the
//! situation of a run's first moments, when the calling thread starts or
//! wakes the workers and goes on.
//!
//! `cargo run --release -p treelb-bench --example thread_start [-- ROUNDS]`
//! prints, over ROUNDS (default 30) of each, the latency from `spawn` to
//! the new thread's first instruction and from `unpark` to the parked
//! thread's first instruction after it, as minimum, median and maximum in
//! microseconds. The asking thread spins until the other one has run, so
//! that only another core (or the end of the asker's time slice) can run
//! it.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Nanoseconds since `t0`; never 0, so that 0 means "not yet".
fn since(t0: Instant) -> u64 {
    t0.elapsed().as_nanos() as u64 + 1
}

/// Spins until `flag` is set, then returns it.
fn wait_for(flag: &AtomicU64) -> u64 {
    loop {
        let v = flag.load(Ordering::Acquire);
        if v != 0 {
            return v;
        }
        std::hint::spin_loop();
    }
}

fn summary(mut micros: Vec<u64>) -> String {
    micros.sort_unstable();
    let n = micros.len();
    format!("min {} µs, median {} µs, max {} µs", micros[0], micros[n / 2], micros[n - 1])
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(30, |s| s.parse().expect("ROUNDS: a number"));
    let t0 = Instant::now();
    let (mut spawn, mut wake) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        // Idle first, as a process is before its first run.
        thread::sleep(Duration::from_millis(5));
        let started = Arc::new(AtomicU64::new(0));
        let go = Arc::new(AtomicU64::new(0));
        let woke = Arc::new(AtomicU64::new(0));
        let (s, g, w) = (Arc::clone(&started), Arc::clone(&go), Arc::clone(&woke));
        let asked = since(t0);
        let handle = thread::spawn(move || {
            s.store(since(t0), Ordering::Release);
            while g.load(Ordering::Acquire) == 0 {
                thread::park(); // again after a spurious wake-up
            }
            w.store(since(t0), Ordering::Release);
        });
        spawn.push((wait_for(&started) - asked) / 1000);
        // Let the new thread park and its core go idle, then wake it.
        thread::sleep(Duration::from_millis(5));
        let asked = since(t0);
        go.store(asked, Ordering::Release);
        handle.thread().unpark();
        wake.push((wait_for(&woke) - asked) / 1000);
        handle.join().expect("no panic");
    }
    println!("spawn to first instruction: {}", summary(spawn));
    println!("unpark to running:          {}", summary(wake));
}
