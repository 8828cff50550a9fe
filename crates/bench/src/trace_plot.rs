//! What a threads runtime's `--trace` file shows
//! ([`treelb_threads::trace`]): the share of PE-time in each state, per PE
//! and in all ([`Summary`]), and two plots ([`Plot`]) — PE utilization over
//! time, stacked by state, and a timeline with one row per PE — drawn with
//! plotters as SVG or PNG, in memory: writing the file is the caller's.
//!
//! ```
//! use treelb_bench::trace_plot::{Format, Plot, Summary};
//! use treelb_threads::trace::{Interval, State, Trace};
//!
//! let trace = Trace {
//!     notes: vec!["command: treelb uts T1 -p 2".into()],
//!     wall_ns: 100,
//!     pes: vec![
//!         vec![Interval { start_ns: 0, end_ns: 100, state: State::Working }],
//!         vec![
//!             Interval { start_ns: 0, end_ns: 40, state: State::Idle },
//!             Interval { start_ns: 40, end_ns: 100, state: State::Working },
//!         ],
//!     ],
//!     marks: vec![],
//! };
//! let summary = Summary::of(&trace);
//! let (state, share) = summary.shares[0];
//! assert_eq!(state, "working");
//! assert!((share - 0.8).abs() < 1e-9);
//! assert!((summary.per_pe[1].shares[0].1 - 0.6).abs() < 1e-9);
//! let svg = Plot::Timeline.render(Format::Svg, &trace, "").unwrap();
//! assert!(String::from_utf8(svg).unwrap().contains("<svg"));
//! ```

use std::path::Path;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;
use treelb_sim::plot::{register_fonts, short};
use treelb_threads::trace::{State, Trace, slot};

use crate::html::Page;

/// The colour of each state, in the order of [`State::ALL`].
const COLOURS: [RGBColor; 5] = [
    RGBColor(44, 160, 44),   // working: green
    RGBColor(255, 127, 14),  // splitting: orange
    RGBColor(148, 103, 189), // sending: purple
    RGBColor(31, 119, 180),  // requesting: blue
    RGBColor(205, 205, 205), // idle: grey
];

/// The most time spans of the utilization plot.
pub const MAX_BUCKETS: u64 = 10_000;

/// Pixel columns of the timeline's plot area (about): each shows the state
/// its PE spent most of that column's time in.
const TIMELINE_COLUMNS: usize = 1000;

/// One PE's share of the run in each state.
#[derive(Clone, Debug, Serialize)]
pub struct PeSummary {
    /// The PE.
    pub pe: usize,
    /// Its intervals in the trace.
    pub intervals: usize,
    /// Fraction of the run in each state, by name, in the order of
    /// [`State::ALL`].
    pub shares: Vec<(&'static str, f64)>,
}

/// The share of PE-time in each state: in all, and per PE.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The run's wall time, seconds.
    pub wall_secs: f64,
    /// PEs.
    pub pes: usize,
    /// Intervals of all PEs.
    pub intervals: usize,
    /// Fraction of all PE-time in each state, by name, in the order of
    /// [`State::ALL`].
    pub shares: Vec<(&'static str, f64)>,
    /// Each PE's, in order.
    pub per_pe: Vec<PeSummary>,
}

impl Summary {
    /// The summary of `trace`.
    pub fn of(trace: &Trace) -> Summary {
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
            wall_secs: trace.wall_ns as f64 * 1e-9,
            pes: trace.pes.len(),
            intervals: trace.pes.iter().map(Vec::len).sum(),
            shares: named(trace.shares()),
            per_pe,
        }
    }
}

impl Summary {
    /// The header of the shares' table: the PE, a column per state, the
    /// intervals.
    pub fn header() -> Vec<String> {
        let mut header = vec!["PE".to_owned()];
        header.extend(State::ALL.iter().map(|st| format!("{st} %")));
        header.push("intervals".to_owned());
        header
    }

    /// The rows of the shares' table: one per PE, then all of them.
    pub fn rows(&self) -> Vec<Vec<String>> {
        let row = |label: String, shares: &[(&str, f64)], intervals: usize| {
            let mut cells = vec![label];
            cells.extend(shares.iter().map(|(_, v)| format!("{:.1}", 100.0 * v)));
            cells.push(intervals.to_string());
            cells
        };
        let mut rows: Vec<Vec<String>> =
            self.per_pe.iter().map(|pe| row(pe.pe.to_string(), &pe.shares, pe.intervals)).collect();
        rows.push(row("all".into(), &self.shares, self.intervals));
        rows
    }

    /// The shares' table as text, numbers aligned right.
    pub fn table(&self) -> String {
        let mut table = Table::new();
        table.load_style(UTF8_FULL_CONDENSED);
        table.set_header(Self::header());
        for row in self.rows() {
            let right =
                |(i, c)| if i == 0 { Cell::new(c) } else { Cell::new(c).set_alignment(CellAlignment::Right) };
            table.add_row(row.into_iter().enumerate().map(right).collect::<Vec<_>>());
        }
        table.to_string()
    }
}

/// What a trace shows, as `treelb plot-trace` reports it: the file, its
/// notes, the share of PE-time in each state, the files drawn from it.
#[derive(Serialize)]
pub struct TraceReport<'a> {
    /// The trace file.
    pub file: &'a str,
    /// Its notes.
    pub notes: &'a [String],
    /// The share of each state, per PE and in all.
    #[serde(flatten)]
    pub summary: Summary,
    /// The files written from it.
    pub written: Vec<&'a str>,
}

impl TraceReport<'_> {
    /// The report for people: the file, what ran (the notes, escaped: they
    /// come from the file), the table of shares and the files written.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        use treelb_apps::input::{escape, escape_text};
        let s = &self.summary;
        let file = escape(self.file.as_bytes());
        let mut out =
            format!("trace {file} — {} PEs, {:.6} s, {} intervals\n", s.pes, s.wall_secs, s.intervals);
        for note in self.notes.iter().filter(|n| n.starts_with("command: ") || n.starts_with("strategy: ")) {
            let _ = writeln!(out, "  {}", escape_text(note));
        }
        let _ = writeln!(out, "{}", s.table());
        for path in &self.written {
            let _ = writeln!(out, "wrote {}", escape(path.as_bytes()));
        }
        if self.written.is_empty() {
            out.push_str("(draw it with --out utilization.png and --timeline timeline.svg)\n");
        }
        out
    }
}

/// The notes of a trace that say what ran: its command and its strategy.
pub fn run_notes(trace: &Trace) -> impl Iterator<Item = &String> {
    trace.notes.iter().filter(|n| n.starts_with("command: ") || n.starts_with("strategy: "))
}

/// The trace `file` as one HTML page ([`crate::html`]): what ran, the
/// share of each state per PE, and both plots inline as SVG (the
/// utilization as `utilization` draws it).
pub fn html_page(file: &str, trace: &Trace, utilization: Plot, title: &str) -> Result<String, String> {
    let s = Summary::of(trace);
    let mut page = Page::new(&format!("treelb trace {file}"));
    for note in run_notes(trace) {
        page.code(note);
    }
    page.paragraph(&format!("{} PEs, {:.6} s, {} intervals", s.pes, s.wall_secs, s.intervals));
    let header = Summary::header();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    page.heading("Share of each PE's time in each state").table(&header, &s.rows());
    page.heading("PE utilization over time").svg(&utilization.svg(trace, title)?);
    page.heading("Timeline: one row per PE").svg(&Plot::Timeline.svg(trace, title)?);
    Ok(page.finish())
}

fn named(shares: [f64; 5]) -> Vec<(&'static str, f64)> {
    State::ALL.into_iter().map(|s| (s.name(), shares[slot(s)])).collect()
}

/// The plots' caption: the traced command, if the trace's notes name it
/// (`command: …`), cut to 90 characters.
pub fn title(trace: &Trace) -> String {
    let command = trace.notes.iter().find_map(|n| n.strip_prefix("command: ")).map(str::trim);
    match command {
        Some(c) if c.chars().count() > 90 => format!("{}…", c.chars().take(89).collect::<String>()),
        Some(c) => c.to_owned(),
        None => String::new(),
    }
}

/// An image format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PNG, RGB 8 bits.
    Png,
    /// SVG.
    Svg,
}

impl Format {
    /// The format a file name asks for by its extension (`.png`, `.svg`,
    /// in any case), if either.
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => Some(Format::Svg),
            Some("png") => Some(Format::Png),
            _ => None,
        }
    }
}

/// A plot of a trace. The trace must have at least one PE and a wall time
/// above zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plot {
    /// The fraction of the PEs in each state over time, in `buckets` time
    /// spans, stacked: working at the bottom (its top edge is the
    /// utilization curve), idle on top; 800 × 480 pixels.
    Utilization {
        /// Time spans, at most [`MAX_BUCKETS`].
        buckets: usize,
    },
    /// One row per PE (PE 0 on top), coloured by state: each pixel column
    /// by the state the PE spent most of that time in; a column in which
    /// the PE split its piece gets an orange tick on top. 1100 pixels wide,
    /// a row of 3 to 40 pixels per PE.
    Timeline,
}

impl Plot {
    /// The picture's size in pixels, width × height.
    pub fn size(self, trace: &Trace) -> (u32, u32) {
        match self {
            Plot::Utilization { .. } => (800, 480),
            Plot::Timeline => {
                let p = trace.pes.len();
                let row = (360 / p).clamp(3, 40) as u32;
                (1100, 150 + row * p as u32)
            }
        }
    }

    /// Draws the plot of `trace`, with `title` (the traced command, see
    /// [`title`]; none if empty) small under it: the bytes of an SVG or PNG
    /// file.
    pub fn render(self, format: Format, trace: &Trace, title: &str) -> Result<Vec<u8>, String> {
        match format {
            Format::Svg => self.svg(trace, title).map(String::into_bytes),
            Format::Png => self.png(trace, title),
        }
    }

    /// Draws the plot as an SVG document.
    pub fn svg(self, trace: &Trace, title: &str) -> Result<String, String> {
        register_fonts();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size(trace)).into_drawing_area();
            self.paint(&root, trace, title).and_then(|()| root.present().map_err(e))?;
        }
        Ok(svg)
    }

    /// Draws the plot as a PNG file's bytes.
    pub fn png(self, trace: &Trace, title: &str) -> Result<Vec<u8>, String> {
        register_fonts();
        let size = self.size(trace);
        let mut rgb = vec![0u8; 3 * size.0 as usize * size.1 as usize];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
            self.paint(&root, trace, title).and_then(|()| root.present().map_err(e))?;
        }
        let mut png_bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut png_bytes, size.0, size.1);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.write_header().and_then(|mut w| w.write_image_data(&rgb)).map_err(e)?;
        Ok(png_bytes)
    }

    fn paint<DB: DrawingBackend>(
        self,
        root: &DrawingArea<DB, Shift>,
        trace: &Trace,
        title: &str,
    ) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        match self {
            Plot::Utilization { buckets } => utilization(root, trace, buckets, title),
            Plot::Timeline => timeline(root, trace, title),
        }
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

/// [`Plot::Utilization`].
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

/// [`Plot::Timeline`].
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
