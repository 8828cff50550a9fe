//! `treelb mandelbrot`: the Mandelbrot set by escape time, pixel by pixel or
//! by rectangle subdivision; PNGs coloured by escape time and by the PE that
//! made each pixel.

use std::io::Write;
use std::time::Instant;

use treelb_apps::mandelbrot::{Colour, Image, MAX_TILES, Mandelbrot, View, bytes_per_pixel, human_bytes};
use treelb_apps::report::mandelbrot::{self, Sequential};
use treelb_mpi::wire::StateCodec;

use super::Status;
use crate::args::MandelbrotArgs;
use crate::config::{Error, RunConfig, Runtime, bytes, err, numbers};
use crate::report::{report, write};

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
    let files = [("--out", args.out.as_deref()), ("--pe-out", args.pe_out.as_deref())];
    treelb_files::output::distinct(&files).map_err(|e| err!("{e}"))?;
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
    let (interrupted, units, stopped) =
        (outcome.stopped.is_some(), outcome.stats.work_units(), outcome.stopped);
    let counts = outcome.output.counts;
    let (image, missing) = if interrupted {
        outcome.output.into_partial_image(&m)
    } else {
        outcome.output.into_image(&m).map(|image| (image, 0))
    }
    .map_err(|e| err!("internal error: {e}"))?;

    let seq_secs = sequential.as_ref().map(|s| s.wall_secs);
    let files = (args.out.clone(), args.pe_out.clone());
    let answered =
        mandelbrot::answer(&m, (method, min_area), &image, counts, missing, files, sequential, interrupted);
    let report =
        report("mandelbrot", answered, "iterations", &cfg, outcome.stats, stopped).with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    let image = std::sync::Arc::new(image);
    let colours: [(&str, &Option<String>, Colour); 2] =
        [("--out", &args.out, Image::escape_colour), ("--pe-out", &args.pe_out, Image::pe_colour)];
    for (flag, path, colour) in colours {
        if let Some(path) = path {
            let image = std::sync::Arc::clone(&image);
            crate::outputs::later(flag, path, move |w| image.write_png(w, colour));
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
