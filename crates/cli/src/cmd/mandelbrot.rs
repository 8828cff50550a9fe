//! `treelb mandelbrot`: the Mandelbrot set by escape time, pixel by pixel or
//! by rectangle subdivision; PNGs coloured by escape time and by the PE that
//! made each pixel.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;
use treelb_apps::mandelbrot::{
    Counts, Image, MAX_TILES, Mandelbrot, Method, SET_AREA, View, bytes_per_pixel,
};
use treelb_mpi::wire::StateCodec;

use super::Status;
use crate::args::MandelbrotArgs;
use crate::config::{Error, RunConfig, Runtime, bytes, err, numbers};
use crate::report::{Line, report, write};

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
    let per_pixel = bytes_per_pixel(cfg.kind == Runtime::Mpi);
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
    let Some(outcome) = crate::run::work(&StateCodec(m), m.work(method), &cfg, None, "iterations")? else {
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
    let area_line = Line::new("area", format!("{area:.5}"));
    lines.push(if view.contains(&View::STANDARD) {
        area_line.note(format!("in-set pixels × pixel area; the set's area is ≈ {SET_AREA}"))
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
    let report =
        report("mandelbrot", title, instance, answer, lines, "iterations", &cfg, outcome.stats, stopped)
            .with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    let image = std::sync::Arc::new(image);
    let colours: [(&str, &Option<String>, Colour); 2] =
        [("--out", &args.out, Image::escape_colour), ("--pe-out", &args.pe_out, Image::pe_colour)];
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

/// The view: `--view`, or `--center` and `--extent`; by default the
/// smallest view with square pixels around the standard view.
fn view(args: &MandelbrotArgs, width: u32, height: u32) -> Result<View, Error> {
    if let Some(v) = &args.view {
        let [x0, x1, y0, y1] = numbers("--view", "X0,X1,Y0,Y1", v)?;
        return View::corners(x0, x1, y0, y1).map_err(|e| err!("--view: {e}"));
    }
    let center = args.center.as_deref().map(|c| numbers("--center", "RE,IM", c)).transpose()?;
    let extent = args.extent.as_deref().map(|e| numbers("--extent", "a width along the real axis", e));
    let extent = extent.transpose()?.map(|[x]| x);
    View::around(center, extent, width, height).map_err(|e| err!("--extent: {e}"))
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
