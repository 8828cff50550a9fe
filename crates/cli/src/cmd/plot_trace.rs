//! `treelb plot-trace FILE`: what a `--trace` file shows — the share of
//! PE-time in each state, PE utilization over time (stacked by state) and a
//! timeline with one row per PE ([`treelb_bench::trace_plot`]); the trace
//! as Chrome trace-event JSON ([`Trace::write_chrome`]).

use std::io::Write;
use std::path::Path;

use treelb_bench::trace_plot::{Format, MAX_BUCKETS, Plot, Summary, TraceReport, html_page, title};
use treelb_threads::trace::Trace;

use crate::args::PlotTraceArgs;
use treelb_apps::input::escape;

use crate::config::{Error, err};

pub(crate) fn run(args: &PlotTraceArgs, out: &mut impl Write) -> Result<bool, Error> {
    let buckets = args.buckets;
    if buckets > MAX_BUCKETS {
        return Err(err!("--buckets {buckets} is too many (at most {MAX_BUCKETS})"));
    }
    for (flag, path) in [("--out", &args.out), ("--timeline", &args.timeline)] {
        if let Some(p) = path {
            image_format(flag, p)?;
        }
    }
    let files = [
        ("--out", &args.out),
        ("--timeline", &args.timeline),
        ("--html", &args.html),
        ("--chrome", &args.chrome),
    ];
    let named = files.map(|(flag, path)| (flag, path.as_deref()));
    treelb_files::output::distinct(&named).map_err(|e| err!("{e}"))?;
    for (flag, path) in files {
        if let Some(path) = path {
            crate::outputs::check(flag, path)?;
        }
    }
    let shown = escape(args.file.as_bytes());
    let bytes = std::fs::read(&args.file).map_err(|e| err!("{shown}: {e}"))?;
    let trace = Trace::parse_bytes(&bytes).map_err(|e| err!("{shown}: {e}"))?;
    if trace.pes.is_empty() || trace.wall_ns == 0 {
        return Err(err!("{shown}: the trace has no intervals"));
    }
    let title = title(&trace);
    let utilization = Plot::Utilization { buckets: buckets as usize };
    // Drawn here, written after the summary (see `crate::outputs`).
    let mut files: Vec<(&str, &str, Vec<u8>)> = Vec::new();
    for (flag, path, plot) in
        [("--out", &args.out, utilization), ("--timeline", &args.timeline, Plot::Timeline)]
    {
        if let Some(path) = path {
            let image = plot.render(image_format(flag, path)?, &trace, &title);
            files.push((flag, path, image.map_err(|e| err!("{}: {e}", escape(path.as_bytes())))?));
        }
    }
    if let Some(path) = &args.html {
        let page = html_page(&args.file, &trace, utilization, &title).map_err(|e| err!("--html: {e}"))?;
        files.push(("--html", path, page.into_bytes()));
    }
    if let Some(path) = &args.chrome {
        let mut json = Vec::new();
        trace.write_chrome(&mut json).map_err(|e| err!("--chrome: {e}"))?;
        files.push(("--chrome", path, json));
    }
    let written = files.iter().map(|&(_, path, _)| path).collect();
    let report = TraceReport { file: &args.file, notes: &trace.notes, summary: Summary::of(&trace), written };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.text())?;
    }
    for (flag, path, bytes) in files {
        crate::outputs::later(flag, path, move |w| w.write_all(&bytes));
    }
    Ok(true)
}

/// The image format of `path` given to `flag`: .png or .svg.
fn image_format(flag: &str, path: &str) -> Result<Format, Error> {
    Format::of(Path::new(path))
        .ok_or_else(|| err!("{flag} {}: the image must end in .png or .svg", escape(path.as_bytes())))
}
