//! `treelb plot-trace FILE`: what a `--trace` file shows — the share of
//! PE-time in each state, PE utilization over time (stacked by state) and a
//! timeline with one row per PE.

use std::io::Write;
use std::path::Path;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;
use treelb_sim::plot::short;
use treelb_threads::trace::{State, Trace, slot};

use crate::args::PlotTraceArgs;
use treelb_apps::input::{escape, escape_text};

use crate::config::{Error, err};

/// The colour of each state, in the order of [`State::ALL`].
const COLOURS: [RGBColor; 5] = [
    RGBColor(44, 160, 44),   // working: green
    RGBColor(255, 127, 14),  // splitting: orange
    RGBColor(148, 103, 189), // sending: purple
    RGBColor(31, 119, 180),  // requesting: blue
    RGBColor(205, 205, 205), // idle: grey
];

/// The most time spans of the utilization plot.
const MAX_BUCKETS: u64 = 10_000;

/// Pixel columns of the timeline's plot area (about): each shows the state
/// its PE spent most of that column's time in.
const TIMELINE_COLUMNS: usize = 1000;

#[derive(Serialize)]
struct PeSummary {
    pe: usize,
    intervals: usize,
    /// Fraction of the run in each state, by name.
    shares: Vec<(&'static str, f64)>,
}

#[derive(Serialize)]
struct Summary<'a> {
    file: &'a str,
    notes: &'a [String],
    wall_secs: f64,
    pes: usize,
    intervals: usize,
    /// Fraction of all PE-time in each state, by name.
    shares: Vec<(&'static str, f64)>,
    per_pe: Vec<PeSummary>,
    written: Vec<&'a str>,
}

pub(crate) fn run(args: &PlotTraceArgs, out: &mut impl Write) -> Result<bool, Error> {
    let buckets = args.buckets;
    if buckets > MAX_BUCKETS {
        return Err(err!("--buckets {buckets} is too many (at most {MAX_BUCKETS})"));
    }
    for (flag, path) in [("--out", &args.out), ("--timeline", &args.timeline)] {
        if let Some(p) = path {
            image_kind(flag, p)?;
        }
    }
    let files = [("--out", &args.out), ("--timeline", &args.timeline), ("--html", &args.html)];
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
    // Drawn here, written after the summary (see `crate::outputs`).
    let mut files: Vec<(&str, &str, Vec<u8>)> = Vec::new();
    if let Some(path) = &args.out {
        let picture = Utilization { trace: &trace, buckets: buckets as usize, title: &title };
        files.push(("--out", path, render(path, (800, 480), &picture)?));
    }
    if let Some(path) = &args.timeline {
        files.push((
            "--timeline",
            path,
            render(path, timeline_size(&trace), &Timeline { trace: &trace, title: &title })?,
        ));
    }
    if let Some(path) = &args.html {
        let page = html_page(&summarize(&args.file, &trace, Vec::new()), &trace, buckets as usize, &title)?;
        files.push(("--html", path, page.into_bytes()));
    }
    let written = files.iter().map(|&(_, path, _)| path).collect();
    let summary = summarize(&args.file, &trace, written);
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
    } else {
        print_summary(&summary, out)?;
    }
    for (flag, path, bytes) in files {
        crate::outputs::later(flag, path, move |w| w.write_all(&bytes));
    }
    Ok(true)
}

/// The caption: the traced command, if the file names it.
fn title(trace: &Trace) -> String {
    let command = trace.notes.iter().find_map(|n| n.strip_prefix("command: ")).map(str::trim);
    match command {
        Some(c) if c.chars().count() > 90 => format!("{}…", c.chars().take(89).collect::<String>()),
        Some(c) => c.to_owned(),
        None => String::new(),
    }
}

/// The trace as one HTML page: the run, the share of each state per PE, and
/// both plots inline as SVG.
fn html_page(s: &Summary<'_>, trace: &Trace, buckets: usize, title: &str) -> Result<String, Error> {
    let mut page = crate::html::Page::new(&format!("treelb trace {}", s.file));
    for note in s.notes.iter().filter(|n| n.starts_with("command: ") || n.starts_with("strategy: ")) {
        page.code(note);
    }
    page.paragraph(&format!("{} PEs, {:.6} s, {} intervals", s.pes, s.wall_secs, s.intervals));
    let mut header = vec!["PE".to_owned()];
    header.extend(State::ALL.iter().map(|st| format!("{st} %")));
    header.push("intervals".to_owned());
    let row = |label: String, shares: &[(&str, f64)], intervals: usize| {
        let mut cells = vec![label];
        cells.extend(shares.iter().map(|(_, v)| format!("{:.1}", 100.0 * v)));
        cells.push(intervals.to_string());
        cells
    };
    let mut rows: Vec<Vec<String>> =
        s.per_pe.iter().map(|pe| row(pe.pe.to_string(), &pe.shares, pe.intervals)).collect();
    rows.push(row("all".into(), &s.shares, s.intervals));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    page.heading("Share of each PE's time in each state").table(&header, &rows);
    page.heading("PE utilization over time");
    page.svg(&svg_string((800, 480), &Utilization { trace, buckets, title })?);
    page.heading("Timeline: one row per PE");
    page.svg(&svg_string(timeline_size(trace), &Timeline { trace, title })?);
    Ok(page.finish())
}

/// Draws `picture` into an SVG document held in memory.
fn svg_string(size: (u32, u32), picture: &impl Paint) -> Result<String, Error> {
    treelb_sim::plot::register_fonts();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        picture.paint(&root).and_then(|()| root.present().map_err(e)).map_err(|e| err!("--html: {e}"))?;
    }
    Ok(svg)
}

/// The timeline's size: a row of 3 to 40 pixels per PE.
fn timeline_size(trace: &Trace) -> (u32, u32) {
    let p = trace.pes.len();
    let row = (360 / p).clamp(3, 40) as u32;
    (1100, 150 + row * p as u32)
}

/// Checks that `path` ends in .png or .svg; true for SVG.
fn image_kind(flag: &str, path: &str) -> Result<bool, Error> {
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("svg") => Ok(true),
        Some("png") => Ok(false),
        _ => Err(err!("{flag} {}: the image must end in .png or .svg", escape(path.as_bytes()))),
    }
}

/// A picture that draws on any plotters backend.
trait Paint {
    fn paint<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static;
}

/// Draws `picture` as a PNG or an SVG file by the extension of `path`: the
/// file's bytes.
fn render(path: &str, size: (u32, u32), picture: &impl Paint) -> Result<Vec<u8>, Error> {
    let fail = |e: String| err!("{}: {e}", escape(path.as_bytes()));
    if image_kind("", path)? {
        return svg_string(size, picture).map(String::into_bytes);
    }
    treelb_sim::plot::register_fonts();
    let mut rgb = vec![0u8; 3 * size.0 as usize * size.1 as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        picture.paint(&root).and_then(|()| root.present().map_err(e)).map_err(fail)?;
    }
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, size.0, size.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header().and_then(|mut w| w.write_image_data(&rgb)).map_err(|e| fail(e.to_string()))?;
    Ok(png_bytes)
}

/// (a) The utilization plot.
struct Utilization<'a> {
    trace: &'a Trace,
    buckets: usize,
    title: &'a str,
}

impl Paint for Utilization<'_> {
    fn paint<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        utilization(root, self.trace, self.buckets, self.title)
    }
}

/// (b) The timeline.
struct Timeline<'a> {
    trace: &'a Trace,
    title: &'a str,
}

impl Paint for Timeline<'_> {
    fn paint<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        timeline(root, self.trace, self.title)
    }
}

/// Time in the unit of the plots' x axes: milliseconds, or seconds for runs
/// of 10 s and more.
fn time_unit(wall_ns: u64) -> (f64, &'static str) {
    if wall_ns >= 10_000_000_000 { (1e9, "s") } else { (1e6, "ms") }
}

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

/// (a) The fraction of the PEs in each state over time, stacked: working at
/// the bottom (its top edge is the utilization curve), idle on top.
fn utilization<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    trace: &Trace,
    buckets: usize,
    title: &str,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let (scale, unit) = time_unit(trace.wall_ns);
    let wall = trace.wall_ns as f64 / scale;
    let caption = format!("PE utilization over time, {} PEs", trace.pes.len());
    let mut chart = ChartBuilder::on(root)
        .caption(&caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(if title.is_empty() { 45 } else { 62 })
        .y_label_area_size(60)
        .margin_right(LEGEND_WIDTH)
        .build_cartesian_2d(0.0..wall, 0.0..100.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(format!("time since the start ({unit})"))
        .y_desc("PEs (%)")
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(240, 240, 240))
        .max_light_lines(4)
        .draw()
        .map_err(e)?;
    let data = trace.buckets(buckets);
    let shares = trace.shares();
    let width = wall / data.len() as f64;
    for k in 0..State::ALL.len() {
        let colour = COLOURS[k];
        let rects = data.iter().enumerate().filter(|(_, b)| b[k] > 0.0).map(|(i, b)| {
            let below: f64 = b[..k].iter().sum();
            let x0 = i as f64 * width;
            Rectangle::new([(x0, 100.0 * below), (x0 + width, 100.0 * (below + b[k]))], colour.filled())
        });
        chart.draw_series(rects).map_err(e)?;
    }
    let labels = State::ALL.map(|st| format!("{st} {:.1} %", 100.0 * shares[slot(st)]));
    legend(root, &labels)?;
    footer(root, title)
}

/// (b) One row per PE (PE 0 on top), coloured by state: each pixel column
/// by the state the PE spent most of that time in; a column in which the
/// PE split its piece gets an orange tick on top.
fn timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    trace: &Trace,
    title: &str,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let p = trace.pes.len();
    let (scale, unit) = time_unit(trace.wall_ns);
    let wall = trace.wall_ns as f64 / scale;
    let caption = format!("What each PE did when, {p} PEs");
    let top = -(p as f64) + 0.5;
    let mut chart = ChartBuilder::on(root)
        .caption(&caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(if title.is_empty() { 45 } else { 62 })
        .y_label_area_size(50)
        .margin_right(LEGEND_WIDTH)
        .build_cartesian_2d(0.0..wall, top..0.5)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(format!("time since the start ({unit})"))
        .y_desc("PE")
        .x_label_formatter(&|v| short(*v))
        .y_labels(p.min(16) + 1)
        .y_label_formatter(&|v| {
            let r = v.round();
            if (v - r).abs() < 1e-6 && r <= 0.0 { format!("{}", -r as i64) } else { String::new() }
        })
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(240, 240, 240))
        .max_light_lines(4)
        .draw()
        .map_err(e)?;
    let columns = TIMELINE_COLUMNS;
    let width = wall / columns as f64;
    let half = if p > 40 { 0.5 } else { 0.4 };
    let mut rects = Vec::new();
    let mut ticks = Vec::new();
    let splitting = slot(State::Splitting);
    for pe in 0..p {
        let y = -(pe as f64);
        let spans = trace.pe_buckets(pe, columns);
        let dominant: Vec<Option<usize>> = spans
            .iter()
            .map(|b| {
                let (k, v) =
                    b.iter().enumerate().fold((0, 0.0), |m, (k, &v)| if v > m.1 { (k, v) } else { m });
                (v > 0.0).then_some(k)
            })
            .collect();
        // Runs of equal columns become one rectangle.
        let mut start = 0;
        for i in 1..=columns {
            if i == columns || dominant[i] != dominant[start] {
                if let Some(k) = dominant[start] {
                    let (x0, x1) = (start as f64 * width, i as f64 * width);
                    rects.push(Rectangle::new([(x0, y - half), (x1, y + half)], COLOURS[k].filled()));
                }
                start = i;
            }
        }
        // A split is much shorter than a column: mark every column with one
        // by a tick over the top third of the row.
        for (i, b) in spans.iter().enumerate() {
            if b[splitting] > 0.0 && dominant[i] != Some(splitting) {
                let (x0, x1) = (i as f64 * width, (i + 1) as f64 * width);
                let top = y + half;
                ticks.push(Rectangle::new(
                    [(x0, top - 2.0 * half / 3.0), (x1, top)],
                    COLOURS[splitting].filled(),
                ));
            }
        }
    }
    chart.draw_series(rects).map_err(e)?;
    chart.draw_series(ticks).map_err(e)?;
    legend(
        root,
        &State::ALL.map(|st| {
            if st == State::Splitting { "splitting (tick)".to_owned() } else { st.name().to_owned() }
        }),
    )?;
    footer(root, title)
}

/// Room right of the plots for the legend, in pixels.
const LEGEND_WIDTH: i32 = 150;

/// The legend right of the plot: a colour box and a label per state.
fn legend<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, labels: &[String; 5]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let (w, _) = root.dim_in_pixel();
    for (k, label) in labels.iter().enumerate() {
        let (x, y) = (w as i32 - LEGEND_WIDTH + 20, 50 + 20 * k as i32);
        root.draw(&Rectangle::new([(x, y - 6), (x + 12, y + 6)], COLOURS[k].filled())).map_err(e)?;
        root.draw_text(label, &TextStyle::from(("sans-serif", 13)), (x + 18, y - 7)).map_err(e)?;
    }
    Ok(())
}

/// The command that made the trace, small and grey, centred at the bottom.
fn footer<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    if !title.is_empty() {
        let (w, h) = root.dim_in_pixel();
        root.draw_text(
            title,
            &TextStyle::from(("sans-serif", 12))
                .color(&BLACK.mix(0.6))
                .pos(Pos::new(HPos::Center, VPos::Bottom)),
            (w as i32 / 2, h as i32 - 4),
        )
        .map_err(e)?;
    }
    Ok(())
}

fn named(shares: [f64; 5]) -> Vec<(&'static str, f64)> {
    State::ALL.into_iter().map(|s| (s.name(), shares[slot(s)])).collect()
}

fn summarize<'a>(file: &'a str, trace: &'a Trace, written: Vec<&'a str>) -> Summary<'a> {
    let wall = trace.wall_ns.max(1) as f64;
    let per_pe = trace
        .pes
        .iter()
        .enumerate()
        .map(|(pe, intervals)| PeSummary {
            pe,
            intervals: intervals.len(),
            shares: named(State::ALL.map(|s| trace.time_in(pe, s) as f64 / wall)),
        })
        .collect();
    Summary {
        file,
        notes: &trace.notes,
        wall_secs: trace.wall_ns as f64 * 1e-9,
        pes: trace.pes.len(),
        intervals: trace.pes.iter().map(Vec::len).sum(),
        shares: named(trace.shares()),
        per_pe,
        written,
    }
}

fn print_summary(s: &Summary<'_>, out: &mut impl Write) -> Result<(), Error> {
    let file = escape(s.file.as_bytes());
    writeln!(out, "trace {file} — {} PEs, {:.6} s, {} intervals", s.pes, s.wall_secs, s.intervals)?;
    // The notes come from the file: shown escaped.
    for note in s.notes.iter().filter(|n| n.starts_with("command: ") || n.starts_with("strategy: ")) {
        writeln!(out, "  {}", escape_text(note))?;
    }
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    let mut header = vec![Cell::new("PE")];
    header.extend(State::ALL.iter().map(|st| Cell::new(format!("{st} %"))));
    header.push(Cell::new("intervals"));
    table.set_header(header);
    let row = |label: String, shares: &[(&str, f64)], intervals: usize| {
        let mut cells = vec![Cell::new(label)];
        cells.extend(
            shares
                .iter()
                .map(|(_, v)| Cell::new(format!("{:.1}", 100.0 * v)).set_alignment(CellAlignment::Right)),
        );
        cells.push(Cell::new(intervals).set_alignment(CellAlignment::Right));
        cells
    };
    for pe in &s.per_pe {
        table.add_row(row(pe.pe.to_string(), &pe.shares, pe.intervals));
    }
    table.add_row(row("all".into(), &s.shares, s.intervals));
    writeln!(out, "{table}")?;
    for path in &s.written {
        writeln!(out, "wrote {}", escape(path.as_bytes()))?;
    }
    if s.written.is_empty() {
        writeln!(out, "(draw it with --out utilization.png and --timeline timeline.svg)")?;
    }
    Ok(())
}
