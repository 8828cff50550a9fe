//! Unit tests of the pieces' internals: orbits resume exactly, the
//! boundary sequence visits a ring once, splits of fresh pieces.

use treelb::Work;

use super::*;

#[test]
fn known_values() {
    let m = Mandelbrot::new(View::STANDARD, 5, 5, 50).unwrap();
    // 0 and −1 are in the set; 0.5 + 1.25i escapes at z₂.
    assert_eq!(Orbit::default().iterate(0.0, 0.0, 50).value(50), Some(50));
    assert_eq!(Orbit::default().iterate(-1.0, 0.0, 50).value(50), Some(50));
    assert_eq!(Orbit::default().iterate(0.5, 1.25, 50).value(50), Some(1));
    // Far outside: |z₁| = |c| > 2.
    assert_eq!(Orbit::default().iterate(3.0, 0.0, 50).value(50), Some(0));
    // The centre pixel of the standard view at 5 × 5 is −0.75, in the set.
    assert_eq!(m.c(2, 2), (-0.75, 0.0));
    assert_eq!(m.value(2, 2), 50);
}

#[test]
fn an_orbit_resumed_in_steps_is_the_orbit_in_one_go() {
    for (cr, ci) in [(0.26, 0.0), (-0.75, 0.01), (-1.5, 0.0), (0.3, 0.5), (-0.1, 0.651)] {
        let whole = Orbit::default().iterate(cr, ci, 1000);
        for step in [1, 2, 7, 64] {
            let mut orbit = Orbit::default();
            while orbit.value(1000).is_none() {
                orbit = orbit.iterate(cr, ci, (orbit.iterations() + step).min(1000));
            }
            assert_eq!(orbit, whole, "c = {cr} + {ci}i in steps of {step}");
        }
    }
}

#[test]
fn the_boundary_sequence_visits_the_ring_once() {
    for (w, h) in [(3, 3), (3, 7), (8, 3), (10, 6)] {
        let r = piece::rect(2, 5, w, h);
        let len = 2 * u64::from(w) + 2 * u64::from(h) - 4;
        let mut seen: Vec<(u32, u32)> = (0..len).map(|k| seq_boundary(r, k)).collect();
        seen.sort_unstable();
        let mut expected = Vec::new();
        for x in 2..2 + w {
            for y in 5..5 + h {
                if x == 2 || x == 1 + w || y == 5 || y == 4 + h {
                    expected.push((x, y));
                }
            }
        }
        assert_eq!(seen, expected, "{w} × {h}");
    }
}

fn seq_boundary(r: piece::Rect, k: u64) -> (u32, u32) {
    piece::boundary_pixel(r, k)
}

#[test]
fn a_fresh_subdivision_is_atomic_until_its_frame_is_computed() {
    let m = Mandelbrot::new(View::STANDARD, 40, 30, 100).unwrap();
    let mut piece = m.work(Method::Subdivide);
    assert!(piece.split().is_none());
    assert_eq!(piece.load(), 40 * 30);
    let mut acc = Patches::default();
    // The frame (2·40 + 2·30 − 4 pixels), then the interior's first cutting
    // line (a column of 28 pixels): then there are two rectangles.
    let given = loop {
        assert_eq!(piece.work(1, &mut acc), treelb::Progress::Pending);
        if let Some(given) = piece.split() {
            break given;
        }
    };
    assert_eq!(acc.counts.computed, 136 + 28);
    assert_eq!((given.generation(), piece.generation()), (1, 1));
    assert_eq!(piece.load() + given.load(), 40 * 30 - 136 - 28);
}

#[test]
fn a_tiled_subdivision_splits_at_once_into_its_tiles() {
    let m = Mandelbrot::new(View::STANDARD, 40, 30, 100).unwrap().with_tiles(3);
    let mut pieces = vec![m.work(Method::Subdivide)];
    let mut i = 0;
    while i < pieces.len() {
        while let Some(p) = pieces[i].split() {
            pieces.push(p);
        }
        i += 1;
    }
    assert_eq!(pieces.len(), 9);
    // Columns 0..13, 13..26, 26..40; rows 0..10, 10..20, 20..30.
    let mut loads: Vec<u64> = pieces.iter().map(Work::load).collect();
    loads.sort_unstable();
    assert_eq!(loads, [130, 130, 130, 130, 130, 130, 140, 140, 140]);
    assert_eq!(Mandelbrot::new(View::STANDARD, 5, 300, 10).unwrap().with_tiles(9).tiles(), 5);
    assert_eq!(m.with_tiles(0).tiles(), 1);
}

#[test]
fn a_pixel_piece_splits_down_to_single_pixels() {
    let m = Mandelbrot::new(View::STANDARD, 3, 3, 10).unwrap();
    let mut pieces = vec![m.work(Method::Pixels)];
    let mut i = 0;
    while i < pieces.len() {
        while let Some(p) = pieces[i].split() {
            pieces.push(p);
        }
        i += 1;
    }
    assert_eq!(pieces.len(), 9);
    assert!(pieces.iter().all(|p| p.load() == 1));
}

#[test]
fn methods_parse_by_name() {
    for method in Method::ALL {
        assert_eq!(method.name().parse::<Method>(), Ok(method));
    }
    assert_eq!(
        "plain".parse::<Method>().unwrap_err().to_string(),
        "unknown method `plain` (expected one of: pixels, subdivide)"
    );
}

#[test]
fn bad_setups_are_refused() {
    let v = View::STANDARD;
    assert!(matches!(View::corners(1.0, 0.0, 0.0, 1.0), Err(MandelbrotError::BadView(_))));
    assert!(matches!(View::corners(0.0, f64::NAN, 0.0, 1.0), Err(MandelbrotError::BadView(_))));
    assert!(matches!(View::corners(-f64::MAX, f64::MAX, 0.0, 1.0), Err(MandelbrotError::BadView(_))));
    assert_eq!(View::centered(0.0, 0.0, -1.0, 4, 4), Err(MandelbrotError::BadExtent(-1.0)));
    assert!(matches!(Mandelbrot::new(v, 0, 4, 10), Err(MandelbrotError::NoPixels { .. })));
    assert!(matches!(Mandelbrot::new(v, 1 << 15, 1 << 15, 10), Err(MandelbrotError::TooManyPixels { .. })));
    assert!(matches!(Mandelbrot::new(v, 4, 4, 0), Err(MandelbrotError::NoIterations)));
    let narrow = View::corners(1.0, 1.0 + 4.0 * f64::EPSILON, 0.0, 1.0).unwrap();
    assert!(matches!(Mandelbrot::new(narrow, 100, 10, 10), Err(MandelbrotError::TooNarrow(..))));
    assert!(Mandelbrot::new(narrow, 2, 10, 10).is_ok());
    let v = View::centered(-0.5, 0.25, 2.0, 200, 100).unwrap();
    assert_eq!((v.x0, v.x1, v.y0, v.y1), (-1.5, 0.5, -0.25, 0.75));
}

#[test]
fn the_set_is_black_and_the_rest_is_not() {
    let image = Image {
        width: 3,
        height: 1,
        max_iter: 100,
        values: vec![0, 57, 100],
        pes: vec![Some(0), Some(1), None],
        computed: vec![true, true, false],
    };
    assert_ne!(image.escape_colour(0), [0, 0, 0]);
    assert_ne!(image.escape_colour(1), [0, 0, 0]);
    assert_eq!(image.escape_colour(2), [0, 0, 0]);
    assert_ne!(image.pe_colour(0), image.pe_colour(1));
    assert_eq!(image.pe_colour(2), [128, 128, 128]);
}

#[test]
fn hsv_primaries() {
    assert_eq!(image::hsv(0.0, 1.0, 1.0), [255, 0, 0]);
    assert_eq!(image::hsv(1.0 / 3.0, 1.0, 1.0), [0, 255, 0]);
    assert_eq!(image::hsv(2.0 / 3.0, 1.0, 1.0), [0, 0, 255]);
    assert_eq!(image::hsv(0.5, 0.0, 0.5), [128, 128, 128]);
}
