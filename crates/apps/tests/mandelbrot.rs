//! The Mandelbrot set: both methods against the plain per-pixel double loop,
//! a pinned in-set count, the area of the set, the same image for every P
//! on the threads runtime, and the work contract (splits lose and duplicate
//! no pixel) under random schedules.

use proptest::prelude::*;
use treelb::RunSpec;
use treelb::{Init, Progress, Reduce, Work, seq};
use treelb_apps::mandelbrot::{Counts, Image, Mandelbrot, Method, Patches, View};
use treelb_threads::{Config, run};

/// The area of the Mandelbrot set, from the literature (pixel counting at
/// high resolution; Förstemann's estimate is 1.50659177 ± 0.00000008).
const AREA: f64 = 1.506_591_77;

fn centered(re: f64, im: f64, extent: f64) -> View {
    View::centered(re, im, extent, 1, 1).unwrap()
}

/// Runs `method` sequentially and assembles the image.
fn image(m: &Mandelbrot, method: Method) -> (Image, Patches) {
    let (patches, units) = seq::run_work(m.work(method));
    assert_eq!(units, patches.counts.iterations);
    assert_eq!(patches.counts.computed + patches.counts.filled, m.pixels());
    (patches.clone().into_image(m).expect("the pieces tile the image"), patches)
}

#[test]
fn per_pixel_pieces_give_the_plain_values() {
    for (w, h, it) in [(1, 1, 5), (1, 30, 50), (30, 1, 50), (37, 23, 100), (64, 48, 200)] {
        let m = Mandelbrot::new(View::STANDARD, w, h, it).unwrap();
        let (image, patches) = image(&m, Method::Pixels);
        assert_eq!(image.values, m.plain_values(), "{w} × {h}");
        assert_eq!(patches.counts.filled, 0);
        assert!(image.computed.iter().all(|&c| c));
        // One run: the pixels of one piece in row-major order.
        assert_eq!(patches.patches(), (1, 0), "{w} × {h}");
    }
}

#[test]
fn subdivision_equals_the_plain_computation_pixel_for_pixel() {
    let views = [
        ("standard", View::STANDARD, 64, 48, 200),
        ("standard", View::STANDARD, 200, 200, 1000),
        ("standard", View::STANDARD, 301, 257, 500),
        // The cusp of the cardioid at 1/4, where escape is slowest.
        ("cusp", centered(0.26, 0.0, 0.05), 200, 200, 1000),
        // A small copy of the set on the real axis, with its antenna.
        ("minibrot", centered(-1.7548, 0.0, 0.04), 301, 257, 500),
        // The neck between the cardioid and the period-2 bulb.
        ("neck", centered(-0.75, 0.0, 0.02), 301, 257, 500),
        // Inside the cardioid: one fill after the frame.
        ("inside", View::corners(-0.5, -0.1, -0.2, 0.2).unwrap(), 120, 80, 300),
        // Thin images: no interior, every pixel is computed.
        ("thin", View::STANDARD, 1, 50, 100),
        ("thin", View::STANDARD, 50, 2, 100),
        ("small", View::STANDARD, 3, 3, 100),
        ("small", centered(-0.2, 0.0, 0.1), 4, 7, 100),
    ];
    for (name, view, w, h, it) in views {
        let m = Mandelbrot::new(view, w, h, it).unwrap();
        let plain = m.plain_values();
        // What the per-pixel method iterates: value + 1, or max_iter in the set.
        let plain_iterations: u64 = plain.iter().map(|&v| u64::from((v + 1).min(it))).sum();
        for (min_area, tiles) in [(1, 1), (16, 1), (64, 1), (16, 3), (16, 8)] {
            let m = m.with_min_area(min_area).with_tiles(tiles);
            let (image, patches) = image(&m, Method::Subdivide);
            let what = format!("{name} {w} × {h}, max_iter {it}, min_area {min_area}, {tiles}² tiles");
            assert_eq!(image.values, plain, "{what}");
            let c = patches.counts;
            assert_eq!(c.in_set, image.in_set(), "{what}");
            assert_eq!(c.filled, image.computed.iter().filter(|&&c| !c).count() as u64, "{what}");
            if w >= 3 && h >= 3 && name != "small" {
                assert!(c.filled > 0, "{what}: something was filled");
                assert!(c.iterations < plain_iterations, "{what}: subdivision saves iterations");
            }
        }
    }
    // Inside the cardioid the frame is all there is to compute.
    let m = Mandelbrot::new(View::corners(-0.5, -0.1, -0.2, 0.2).unwrap(), 120, 80, 300).unwrap();
    let (_, patches) = image(&m, Method::Subdivide);
    assert_eq!(patches.counts.computed, 2 * 120 + 2 * 80 - 4);
    assert_eq!((patches.counts.fills, patches.counts.cuts), (1, 0));
}

/// Where the complement of the set has channels thinner than a pixel, a
/// rectangle whose sampled boundary is in the set can hold an escaping
/// pixel: the subdivision fills it. Every computed pixel still has its plain
/// value, and the few differences are filled pixels that the plain loop
/// sees escape. (The subdivision is deterministic: the same for every
/// schedule, as `every_p_gives_the_same_image` checks.)
#[test]
fn subdivision_differs_only_in_filled_pixels_across_channels_thinner_than_a_pixel() {
    for (name, view, expected) in [
        ("seahorse valley", centered(-0.75, 0.1, 0.1), 3),
        ("elephant valley", centered(0.275, 0.007, 0.01), 5),
    ] {
        let m = Mandelbrot::new(view, 301, 257, 500).unwrap();
        let (image, _) = image(&m, Method::Subdivide);
        let plain = m.plain_values();
        let mut differ = 0;
        for (i, (&sub, &plain)) in image.values.iter().zip(&plain).enumerate() {
            if sub != plain {
                differ += 1;
                assert!(!image.computed[i], "{name}: pixel {i} was computed as {sub}, plainly {plain}");
                assert_eq!(sub, m.max_iter(), "{name}: pixel {i}");
            }
        }
        assert_eq!(differ, expected, "{name}");
    }
}

#[test]
fn the_in_set_count_of_a_small_view_is_pinned() {
    let m = Mandelbrot::new(View::STANDARD, 64, 48, 200).unwrap();
    let plain = m.plain_values();
    assert_eq!(plain.iter().filter(|&&v| v == 200).count(), 756);
    for method in Method::ALL {
        let (image, patches) = image(&m, method);
        assert_eq!(image.in_set(), 756, "{method}");
        assert_eq!(patches.counts.in_set, 756, "{method}");
    }
    let (_, pixels) = image(&m, Method::Pixels);
    assert_eq!(pixels.counts.iterations, 166_130);
    let (_, subdivided) = image(&m, Method::Subdivide);
    assert_eq!(subdivided.counts.iterations, 126_130);
}

#[test]
fn the_area_of_the_set_converges() {
    let mut last = f64::INFINITY;
    for (n, it) in [(50, 50), (100, 200), (200, 500), (400, 1000)] {
        let m = Mandelbrot::new(View::STANDARD, n, n, it).unwrap();
        let (patches, _) = seq::run_work(m.work(Method::Subdivide));
        let area = m.area(patches.counts.in_set);
        let error = (area - AREA).abs() / AREA;
        assert!(error < last, "{n} × {n}, max_iter {it}: area {area}, relative error {error} ≥ {last}");
        last = error;
    }
    assert!(last < 0.005, "400 × 400, max_iter 1000: relative error {last}");
}

#[test]
fn every_p_gives_the_same_image() {
    let views = [
        (View::STANDARD, 120, 100, 300, 1),
        (centered(-0.75, 0.1, 0.1), 101, 77, 400, 1),
        (centered(-1.7548, 0.0, 0.04), 90, 90, 300, 4),
    ];
    for (view, w, h, it, tiles) in views {
        let m = Mandelbrot::new(view, w, h, it)
            .unwrap()
            .with_tiles(tiles)
            .with_pe_hook(treelb_threads::current_pe);
        for method in Method::ALL {
            let (sequential, patches) = image(&m, method);
            assert!(sequential.pes.iter().all(Option::is_none), "no PE outside a run");
            for (j, p) in [1, 2, 4, 8].into_iter().enumerate() {
                for init in Init::ALL {
                    let budget = [1, 37, 256, 5000][j];
                    let config = Config {
                        threads: p,
                        spec: RunSpec {
                            budget: treelb::spec::Budget::of(budget),
                            init,
                            ..RunSpec::default()
                        },
                        ..Config::default()
                    };
                    let outcome = run(m.work(method), &config).unwrap();
                    let what = format!("{view} {w} × {h}, {method}, P = {p}, init {init}, Δt {budget}");
                    // Blocks split between PEs are counted once per part.
                    let (c, s) = (outcome.output.counts, patches.counts);
                    assert_eq!(Counts { blocks: 0, ..c }, Counts { blocks: 0, ..s }, "{what}");
                    assert_eq!(outcome.stats.work_units(), patches.counts.iterations, "{what}");
                    let image = outcome.output.into_image(&m).expect("the pieces tile the image");
                    assert_eq!(image.values, sequential.values, "{what}");
                    assert_eq!(image.computed, sequential.computed, "{what}");
                    assert!(image.pes.iter().all(|pe| pe.is_some_and(|pe| (pe as usize) < p)), "{what}");
                    assert_eq!(image.pixels_per_pe().iter().sum::<u64>(), m.pixels(), "{what}");
                }
            }
        }
    }
}

#[test]
fn every_strategy_gives_the_same_image() {
    let m = Mandelbrot::new(centered(-0.75, 0.1, 0.3), 64, 48, 300)
        .unwrap()
        .with_pe_hook(treelb_threads::current_pe);
    for (method, m) in [(Method::Pixels, m), (Method::Subdivide, m), (Method::Subdivide, m.with_tiles(4))] {
        let (sequential, patches) = image(&m, method);
        for strategy in treelb::Strategy::ALL {
            for p in [1, 2, 4, 8] {
                let config = Config {
                    threads: p,
                    spec: RunSpec { budget: treelb::spec::Budget::of(50), strategy, ..RunSpec::default() },
                    ..Config::default()
                };
                let outcome = run(m.work(method), &config).unwrap();
                let what = format!("{method}, {strategy}, P = {p}");
                let (c, s) = (outcome.output.counts, patches.counts);
                assert_eq!(Counts { blocks: 0, ..c }, Counts { blocks: 0, ..s }, "{what}");
                assert_eq!(outcome.stats.work_units(), s.iterations, "{what}");
                let image = outcome.output.into_image(&m).expect("the pieces tile the image");
                assert_eq!(image.values, sequential.values, "{what}");
                assert!(image.pes.iter().all(|pe| pe.is_some_and(|pe| (pe as usize) < p)), "{what}");
            }
        }
    }
}

#[test]
fn a_large_image_spreads_over_the_pes() {
    let m = Mandelbrot::new(View::STANDARD, 300, 300, 1000).unwrap().with_pe_hook(treelb_threads::current_pe);
    for method in Method::ALL {
        let outcome = run(
            m.work(method),
            &Config {
                threads: 2,
                spec: RunSpec { budget: treelb::spec::Budget::of(64), ..RunSpec::default() },
                ..Config::default()
            },
        )
        .unwrap();
        assert!(outcome.stats.pes.iter().all(|pe| pe.work_units > 0), "{method}: every PE worked");
        let image = outcome.output.into_image(&m).unwrap();
        assert_eq!(image.pixels_per_pe().len(), 2, "{method}: both PEs made pixels");
    }
}

/// One step of a random schedule: work piece `which` (modulo the pieces
/// alive) for `budget` units, then maybe split it.
type Step = (usize, u64, bool);

fn schedule() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec((0..16usize, 1..400u64, any::<bool>()), 0..80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Working and splitting in any order makes every pixel exactly once,
    /// with its sequential value; a split keeps the load; `Pending` means
    /// the whole budget was used.
    #[test]
    fn splits_lose_and_duplicate_no_pixel(
        w in 1u32..40,
        h in 1u32..40,
        max_iter in 1u32..120,
        min_area in 1u64..40,
        tiles in 1u32..5,
        subdivide in any::<bool>(),
        zoom in 0usize..3,
        steps in schedule(),
    ) {
        let view = [View::STANDARD, centered(-0.75, 0.1, 0.1), centered(0.26, 0.0, 0.05)][zoom];
        let method = if subdivide { Method::Subdivide } else { Method::Pixels };
        let m = Mandelbrot::new(view, w, h, max_iter).unwrap().with_min_area(min_area).with_tiles(tiles);
        let (sequential, whole) = seq::run_work(m.work(method));
        let expected = sequential.into_image(&m).unwrap();

        let mut pieces = vec![m.work(method)];
        let mut acc = Patches::default();
        let mut units = 0;
        for (which, budget, split) in steps {
            if pieces.is_empty() {
                break;
            }
            let i = which % pieces.len();
            let before = acc.counts.iterations;
            match pieces[i].work(budget, &mut acc) {
                Progress::Pending => prop_assert_eq!(acc.counts.iterations - before, budget),
                Progress::Exhausted { used } => {
                    prop_assert_eq!(acc.counts.iterations - before, used);
                    prop_assert_eq!(pieces[i].load(), 0);
                    pieces.swap_remove(i);
                    units += used;
                    continue;
                }
            }
            units += budget;
            if split {
                let load = pieces[i].load();
                let generation = pieces[i].generation();
                if let Some(given) = pieces[i].split() {
                    prop_assert_eq!(pieces[i].load() + given.load(), load);
                    prop_assert_eq!(given.generation(), generation + 1);
                    prop_assert_eq!(pieces[i].generation(), generation + 1);
                    pieces.push(given);
                }
            }
        }
        // Finish the rest, each piece into its own output, merged at the end.
        let mut outputs = vec![acc];
        for piece in pieces {
            let (out, u) = seq::run_work(piece);
            units += u;
            outputs.push(out);
        }
        let merged = treelb::reduce::merge_all(outputs);
        prop_assert_eq!(units, whole);
        prop_assert_eq!(merged.counts.iterations, whole);
        let image = merged.into_image(&m);
        prop_assert!(image.is_ok(), "{:?}", image.err());
        let image = image.unwrap();
        prop_assert_eq!(&image.values, &expected.values);
        prop_assert_eq!(&image.computed, &expected.computed);
    }
}

#[test]
fn merging_is_associative_and_commutative_on_the_image() {
    let m = Mandelbrot::new(View::STANDARD, 30, 20, 100).unwrap();
    let mut piece = m.work(Method::Subdivide);
    let mut outputs = Vec::new();
    loop {
        let mut acc = Patches::default();
        let done = piece.work(500, &mut acc).is_exhausted();
        outputs.push(acc);
        if done {
            break;
        }
    }
    assert!(outputs.len() > 3);
    let forward = treelb::reduce::merge_all(outputs.clone()).into_image(&m).unwrap();
    let backward = treelb::reduce::merge_all(outputs.iter().rev().cloned()).into_image(&m).unwrap();
    let mut nested = Patches::default();
    for pair in outputs.chunks(2) {
        let mut part = Patches::default();
        for o in pair {
            part.merge(o.clone());
        }
        nested.merge(part);
    }
    assert_eq!(forward, backward);
    assert_eq!(forward, nested.into_image(&m).unwrap());
    // Merged twice, every pixel is duplicated.
    let mut twice = treelb::reduce::merge_all(outputs.clone());
    twice.merge(treelb::reduce::merge_all(outputs));
    assert_eq!(twice.into_image(&m).unwrap_err().duplicated, m.pixels());
}
