//! `treelb mandelbrot`: the Mandelbrot set by escape time, pixel by pixel or
//! by rectangle subdivision; PNGs coloured by escape time and by the PE that
//! made each pixel.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;
use treelb_apps::mandelbrot::{Counts, Image, MAX_TILES, Mandelbrot, Method, View};

use super::Status;
use crate::args::MandelbrotArgs;
use crate::config::{Error, RunConfig, Runtime, err};
use crate::report::{Line, Report};

/// The area of the whole set (pixel counting at high resolution).
const AREA: f64 = 1.5066;

/// Bytes a pixel takes at the peak, when the patches of the run become the
/// image: 4 of the patches' value, then 4 of the value, 8 of the PE, 1 of
/// "computed" and 1 of "made" in the image.
const BYTES_PER_PIXEL: u64 = 18;

/// Bytes a pixel takes at rank 0 besides, under MPI: the other ranks'
/// patches as received, in postcard's variable-length integers.
const MPI_BYTES_PER_PIXEL: u64 = 6;

/// Parses `--max-memory`: bytes, with an optional K, M, G or T suffix
/// (powers of 1024).
fn bytes(flag: &str, value: &str) -> Result<u64, Error> {
    let v = value.trim();
    let (digits, shift) = match v.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(err!("{flag}: unknown unit in `{value}` (expected K, M, G or T)")),
            };
            (&v[..i], shift)
        }
        _ => (v, 0),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n > 0)
        .ok_or_else(|| err!("{flag} expects a positive number of bytes such as 2G or 500M, got `{value}`"))
}

/// A number of bytes for people: `4.5 GiB`.
fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / f64::from(1u32 << 30)),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / f64::from(1u32 << 20)),
        n => format!("{n} bytes"),
    }
}

#[derive(Serialize)]
struct Instance {
    view: View,
    width: u32,
    height: u32,
    max_iter: u32,
    method: Method,
    /// Subdivision: rectangles of at most this many pixels are computed
    /// pixel by pixel.
    min_area: Option<u64>,
    /// Subdivision: it starts from a grid of `tiles × tiles` rectangles.
    tiles: Option<u32>,
    pixel_area: f64,
}

#[derive(Serialize)]
struct Sequential {
    wall_secs: f64,
    iterations: u64,
}

#[derive(Serialize)]
struct Answer {
    pixels: u64,
    /// Pixels not made (an interrupted run).
    missing: u64,
    in_set: u64,
    /// In-set pixels × pixel area.
    area: f64,
    counts: Counts,
    /// Pixels made by each PE.
    pixels_per_pe: Vec<u64>,
    image: Option<String>,
    pe_image: Option<String>,
    sequential: Option<Sequential>,
}

pub(crate) fn run(args: &MandelbrotArgs, out: &mut impl Write) -> Result<Status, Error> {
    let cfg = RunConfig::from_args(&args.run)?;
    cfg.refuse_deterministic("mandelbrot")?;
    cfg.refuse_checkpoint("mandelbrot")?;
    let (width, height, max_iter) = (args.width, args.height, args.max_iter);
    let (method, min_area, tiles) = (args.method.0, args.min_area, args.tiles);
    if tiles > MAX_TILES {
        return Err(err!("--tiles {tiles} is too many (at most {MAX_TILES})"));
    }
    let view = view(args, width, height)?;
    let m = Mandelbrot::new(view, width, height, max_iter)
        .map_err(|e| err!("{e}"))?
        .with_min_area(min_area)
        .with_tiles(tiles)
        .with_pe_hook(match cfg.kind {
            Runtime::Threads => treelb_threads::current_pe,
            #[cfg(feature = "mpi")]
            Runtime::Mpi => treelb_mpi::current_pe,
            #[cfg(not(feature = "mpi"))]
            Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
        });
    let max_memory = bytes("--max-memory", &args.max_memory)?;
    let per_pixel = BYTES_PER_PIXEL + if cfg.kind == Runtime::Mpi { MPI_BYTES_PER_PIXEL } else { 0 };
    let memory = u64::from(width) * u64::from(height) * per_pixel;
    if memory > max_memory {
        return Err(err!(
            "{width} × {height} pixels need about {} of memory ({per_pixel} bytes a pixel), above --max-memory \
             {} (raise it, e.g. --max-memory {}G)",
            human_bytes(memory),
            human_bytes(max_memory),
            memory.div_ceil(1 << 30)
        ));
    }
    if let (Some(a), Some(b)) = (&args.out, &args.pe_out)
        && a == b
    {
        return Err(err!("--out and --pe-out name the same file `{a}`"));
    }
    // Check the outputs first: a bad path fails before the computation.
    // Under MPI every rank checks (writing nothing) before the ranks meet
    // to start; only rank 0 writes, after its report.
    for (flag, path) in [("--out", &args.out), ("--pe-out", &args.pe_out)] {
        if let Some(path) = path {
            crate::outputs::check(flag, path)?;
        }
    }

    let sequential = args.compare_seq.then(|| {
        let start = Instant::now();
        let (_, iterations) = treelb::seq::run_work(m.work(method));
        Sequential { wall_secs: start.elapsed().as_secs_f64(), iterations }
    });
    let outcome = match cfg.kind {
        Runtime::Threads => Some(super::run_threads(m.work(method), &cfg, None, "iterations")?),
        #[cfg(feature = "mpi")]
        Runtime::Mpi => super::mpi::run_codec(&treelb_mpi::wire::StateCodec(m), m.work(method), &cfg)?,
        #[cfg(not(feature = "mpi"))]
        Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
    };
    let Some(outcome) = outcome else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let (interrupted, units, stopped) = (outcome.interrupted(), outcome.stats.work_units(), outcome.stopped);
    let counts = outcome.output.counts;
    let (image, missing) = if interrupted {
        outcome.output.into_partial_image(&m)
    } else {
        outcome.output.into_image(&m).map(|image| (image, 0))
    }
    .map_err(|e| err!("internal error: {e}"))?;

    let pixels = m.pixels();
    let in_set = image.in_set();
    let area = m.area(in_set);
    let pixels_per_pe = image.pixels_per_pe();
    let mut lines = vec![
        Line::new("pixels", format!("{width} × {height} = {pixels}")),
        Line::new("in set", in_set).note(format!("{:.2} %", percent(in_set, pixels))),
    ];
    if interrupted {
        lines.insert(
            1,
            Line::new("missing", missing)
                .note("partial: pixels not made before the interruption (value 0, of no PE in the images)"),
        );
    }
    let whole = View::STANDARD;
    let area_line = Line::new("area", format!("{area:.5}"));
    lines.push(if view.x0 <= whole.x0 && view.x1 >= whole.x1 && view.y0 <= whole.y0 && view.y1 >= whole.y1 {
        area_line.note(format!("in-set pixels × pixel area; the set's area is ≈ {AREA}"))
    } else {
        area_line.note("of the set within the view: in-set pixels × pixel area")
    });
    lines.push(Line::new("computed", counts.computed).note("pixels iterated"));
    if method == Method::Subdivide {
        lines.push(Line::new("filled", counts.filled).note(format!(
            "pixels in the set, not iterated: {} rectangles filled, {} cut in two, {} computed pixel by pixel; \
             from {} × {} tiles",
            counts.fills,
            counts.cuts,
            counts.blocks,
            m.tiles(),
            m.tiles()
        )));
    }
    lines.push(
        Line::new("iterations", counts.iterations)
            .note(format!("{:.1} per pixel; at most {max_iter}", counts.iterations as f64 / pixels as f64)),
    );
    let shares: Vec<String> = pixels_per_pe
        .iter()
        .enumerate()
        .map(|(pe, &n)| format!("{pe}: {:.1} %", percent(n, pixels)))
        .collect();
    lines.push(Line::new("pixels by PE", shares.join(" · ")));
    if let Some(path) = &args.out {
        lines.push(Line::new("image", path).note("coloured by escape time, the set black"));
    }
    if let Some(path) = &args.pe_out {
        lines.push(Line::new("PE image", path).note("a hue per PE; the set darker, filled rectangles muted"));
    }
    if let Some(s) = &sequential {
        lines.push(
            Line::new("sequential", format!("{:.3} s", s.wall_secs))
                .note(format!("{} iterations on one core", s.iterations)),
        );
    }

    let title = format!("Mandelbrot — {view}, {width} × {height} pixels, max_iter {max_iter}, {method}");
    let instance = Instance {
        view,
        width,
        height,
        max_iter,
        method,
        min_area: (method == Method::Subdivide).then_some(min_area),
        tiles: (method == Method::Subdivide).then_some(m.tiles()),
        pixel_area: m.pixel_area(),
    };
    let answer = Answer {
        pixels,
        missing,
        in_set,
        area,
        counts,
        pixels_per_pe,
        image: args.out.clone(),
        pe_image: args.pe_out.clone(),
        sequential,
    };
    let seq_secs = answer.sequential.as_ref().map(|s| s.wall_secs);
    Report::new("mandelbrot", title, instance, answer, lines, "iterations", &cfg, outcome.stats, stopped)
        .with_sequential(seq_secs)
        .write(cfg.json, out)?;
    let image = std::sync::Arc::new(image);
    let colours: [(&str, &Option<String>, Colour); 2] =
        [("--out", &args.out, escape_colour), ("--pe-out", &args.pe_out, pe_colour)];
    for (flag, path, colour) in colours {
        if let Some(path) = path {
            let image = std::sync::Arc::clone(&image);
            crate::outputs::later(flag, path, move |w| write_png(w, &image, colour));
        }
    }
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, "iterations"));
    }
    Ok(Status::Done)
}

/// `N` comma-separated numbers, e.g. `-0.75,0.1`.
fn numbers<const N: usize>(flag: &str, form: &str, value: &str) -> Result<[f64; N], Error> {
    let bad = || err!("{flag} expects {form}, got `{value}`");
    let parts: Vec<f64> = value
        .split(',')
        .map(|p| p.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    parts.try_into().map_err(|_| bad())
}

/// The view: `--view`, or `--center` and `--extent`; by default the
/// smallest view with square pixels around the standard view.
fn view(args: &MandelbrotArgs, width: u32, height: u32) -> Result<View, Error> {
    if let Some(v) = &args.view {
        let [x0, x1, y0, y1] = numbers("--view", "X0,X1,Y0,Y1", v)?;
        return View::corners(x0, x1, y0, y1).map_err(|e| err!("--view: {e}"));
    }
    let standard = View::STANDARD;
    let [re, im] = match &args.center {
        Some(c) => numbers("--center", "RE,IM", c)?,
        None => [(standard.x0 + standard.x1) / 2.0, (standard.y0 + standard.y1) / 2.0],
    };
    let extent = match &args.extent {
        Some(e) => numbers::<1>("--extent", "a width along the real axis", e)?[0],
        None if args.center.is_some() => standard.width(),
        None => standard.width().max(standard.height() * f64::from(width) / f64::from(height)),
    };
    View::centered(re, im, extent, width, height).map_err(|e| err!("--extent: {e}"))
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// The colour of a pixel of an image.
type Colour = fn(&Image, usize) -> [u8; 3];

/// Writes `image` to `out` as an RGB PNG, one colour per pixel by `colour`.
fn write_png(out: &mut dyn Write, image: &Image, colour: Colour) -> std::io::Result<()> {
    let fail = |e: png::EncodingError| match e {
        png::EncodingError::IoError(e) => e,
        e => std::io::Error::other(e),
    };
    let mut encoder = png::Encoder::new(out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(fail)?;
    // Row by row: no copy of the whole image in RGB.
    let mut stream = writer.stream_writer().map_err(fail)?;
    let width = image.width as usize;
    let mut row = Vec::with_capacity(3 * width);
    for y in 0..image.height as usize {
        row.clear();
        row.extend((y * width..(y + 1) * width).flat_map(|i| colour(image, i)));
        stream.write_all(&row)?;
    }
    stream.finish().map_err(fail)?;
    writer.finish().map_err(fail)
}

/// The colour of pixel `i` by escape time: the set black, the rest along a
/// cyclic gradient (deep blue, white, orange, dark) by the logarithm of the
/// escape time, so that slow and fast escapes both show their bands.
fn escape_colour(image: &Image, i: usize) -> [u8; 3] {
    const STOPS: [(f64, [f64; 3]); 6] = [
        (0.0, [0.0, 7.0, 100.0]),
        (0.16, [32.0, 107.0, 203.0]),
        (0.42, [237.0, 255.0, 255.0]),
        (0.6425, [255.0, 170.0, 0.0]),
        (0.8575, [0.0, 2.0, 0.0]),
        (1.0, [0.0, 7.0, 100.0]),
    ];
    let v = image.values[i];
    if v >= image.max_iter {
        return [0, 0, 0];
    }
    let t = (f64::from(v) + 1.0).ln() / (f64::from(image.max_iter) + 1.0).ln();
    let t = (t * 1.5).fract();
    let k = STOPS.iter().rposition(|&(at, _)| at <= t).unwrap_or(0).min(STOPS.len() - 2);
    let ((t0, a), (t1, b)) = (STOPS[k], STOPS[k + 1]);
    let s = (t - t0) / (t1 - t0);
    std::array::from_fn(|c| (a[c] + s * (b[c] - a[c])).round() as u8)
}

/// The colour of pixel `i` by the PE that made it: a hue per PE (golden
/// ratio steps, so neighbouring PEs differ), darker in the set, muted where
/// a rectangle was filled without computing; grey for an unknown PE.
fn pe_colour(image: &Image, i: usize) -> [u8; 3] {
    let Some(pe) = image.pes[i] else {
        return [128, 128, 128];
    };
    let hue = (f64::from(pe) * 0.618_033_988_749_895).fract();
    let in_set = image.values[i] >= image.max_iter;
    let (saturation, value) = match (image.computed[i], in_set) {
        (false, _) => (0.35, 0.5),
        (true, true) => (0.75, 0.6),
        (true, false) => (0.6, 0.95),
    };
    hsv(hue, saturation, value)
}

/// HSV (each in `[0, 1]`) to 8-bit RGB.
fn hsv(h: f64, s: f64, v: f64) -> [u8; 3] {
    let sector = (h * 6.0).floor();
    let f = h * 6.0 - sector;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let (r, g, b) = match sector as u32 % 6 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [r, g, b].map(|c| (c * 255.0).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_ne!(escape_colour(&image, 0), [0, 0, 0]);
        assert_ne!(escape_colour(&image, 1), [0, 0, 0]);
        assert_eq!(escape_colour(&image, 2), [0, 0, 0]);
        assert_ne!(pe_colour(&image, 0), pe_colour(&image, 1));
        assert_eq!(pe_colour(&image, 2), [128, 128, 128]);
    }

    #[test]
    fn hsv_primaries() {
        assert_eq!(hsv(0.0, 1.0, 1.0), [255, 0, 0]);
        assert_eq!(hsv(1.0 / 3.0, 1.0, 1.0), [0, 255, 0]);
        assert_eq!(hsv(2.0 / 3.0, 1.0, 1.0), [0, 0, 255]);
        assert_eq!(hsv(0.5, 0.0, 0.5), [128, 128, 128]);
    }

    #[test]
    fn numbers_are_comma_separated_and_finite() {
        assert_eq!(numbers::<2>("--center", "RE,IM", "-0.75, 0.1").unwrap(), [-0.75, 0.1]);
        for bad in ["1", "1,2,3", "a,b", "1,inf", "", "1,,2"] {
            let e = numbers::<2>("--center", "RE,IM", bad).unwrap_err().to_string();
            assert_eq!(e, format!("--center expects RE,IM, got `{bad}`"));
        }
    }
}
