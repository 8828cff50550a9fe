//! `treelb plot-trace FILE`: what a `--trace` file shows — the share of
//! PE-time in each state, PE utilization over time (stacked by state) and a
//! timeline with one row per PE ([`treelb_bench::trace_plot`]); the trace
//! as Chrome trace-event JSON ([`Trace::write_chrome`]).

use std::io::Write;
use std::path::Path;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb_bench::trace_plot::{Format, MAX_BUCKETS, Plot, Summary, title};
use treelb_threads::trace::{State, Trace};

use crate::args::PlotTraceArgs;
use treelb_apps::input::{escape, escape_text};

use crate::config::{Error, err};

/// The summary as printed: the file, its notes, the shares, the files
/// written.
#[derive(Serialize)]
struct Report<'a> {
    file: &'a str,
    notes: &'a [String],
    #[serde(flatten)]
    summary: Summary,
    written: Vec<&'a str>,
}

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
    for (i, (flag_a, a)) in files.iter().enumerate() {
        for (flag_b, b) in &files[i + 1..] {
            if let (Some(a), Some(b)) = (a, b)
                && a == b
            {
                return Err(err!("{flag_a} and {flag_b} name the same file `{a}`"));
            }
        }
    }
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
    let report =
        |written| Report { file: &args.file, notes: &trace.notes, summary: Summary::of(&trace), written };
    if let Some(path) = &args.html {
        let page = html_page(&report(Vec::new()), &trace, utilization, &title)?;
        files.push(("--html", path, page.into_bytes()));
    }
    if let Some(path) = &args.chrome {
        let mut json = Vec::new();
        trace.write_chrome(&mut json).map_err(|e| err!("--chrome: {e}"))?;
        files.push(("--chrome", path, json));
    }
    let report = report(files.iter().map(|&(_, path, _)| path).collect());
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        print_summary(&report, out)?;
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

/// The header of the shares' table.
fn header() -> Vec<String> {
    let mut header = vec!["PE".to_owned()];
    header.extend(State::ALL.iter().map(|st| format!("{st} %")));
    header.push("intervals".to_owned());
    header
}

/// The rows of the shares' table: one per PE, then all of them.
fn rows(s: &Summary) -> Vec<Vec<String>> {
    let row = |label: String, shares: &[(&str, f64)], intervals: usize| {
        let mut cells = vec![label];
        cells.extend(shares.iter().map(|(_, v)| format!("{:.1}", 100.0 * v)));
        cells.push(intervals.to_string());
        cells
    };
    let mut rows: Vec<Vec<String>> =
        s.per_pe.iter().map(|pe| row(pe.pe.to_string(), &pe.shares, pe.intervals)).collect();
    rows.push(row("all".into(), &s.shares, s.intervals));
    rows
}

/// The trace as one HTML page: the run, the share of each state per PE, and
/// both plots inline as SVG.
fn html_page(r: &Report<'_>, trace: &Trace, utilization: Plot, title: &str) -> Result<String, Error> {
    let s = &r.summary;
    let mut page = crate::html::Page::new(&format!("treelb trace {}", r.file));
    for note in r.notes.iter().filter(|n| n.starts_with("command: ") || n.starts_with("strategy: ")) {
        page.code(note);
    }
    page.paragraph(&format!("{} PEs, {:.6} s, {} intervals", s.pes, s.wall_secs, s.intervals));
    let header = header();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    page.heading("Share of each PE's time in each state").table(&header, &rows(s));
    let svg = |plot: Plot| plot.svg(trace, title).map_err(|e| err!("--html: {e}"));
    page.heading("PE utilization over time").svg(&svg(utilization)?);
    page.heading("Timeline: one row per PE").svg(&svg(Plot::Timeline)?);
    Ok(page.finish())
}

fn print_summary(r: &Report<'_>, out: &mut impl Write) -> Result<(), Error> {
    let s = &r.summary;
    let file = escape(r.file.as_bytes());
    writeln!(out, "trace {file} — {} PEs, {:.6} s, {} intervals", s.pes, s.wall_secs, s.intervals)?;
    // The notes come from the file: shown escaped.
    for note in r.notes.iter().filter(|n| n.starts_with("command: ") || n.starts_with("strategy: ")) {
        writeln!(out, "  {}", escape_text(note))?;
    }
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(header());
    for row in rows(s) {
        let right =
            |(i, c)| if i == 0 { Cell::new(c) } else { Cell::new(c).set_alignment(CellAlignment::Right) };
        table.add_row(row.into_iter().enumerate().map(right).collect::<Vec<_>>());
    }
    writeln!(out, "{table}")?;
    for path in &r.written {
        writeln!(out, "wrote {}", escape(path.as_bytes()))?;
    }
    if r.written.is_empty() {
        writeln!(out, "(draw it with --out utilization.png and --timeline timeline.svg)")?;
    }
    Ok(())
}
