//! Line and point charts, as PNG or SVG, with an embedded font.
//!
//! plotters draws text with `ab_glyph` and the DejaVu Sans font compiled into
//! the binary (registered once as "sans-serif"), so plots need no system
//! fonts. The format follows the file name: `.svg` or `.png`.

use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A solid line.
    Line,
    /// A dashed line (for predictions and bounds).
    Dashed,
    /// Points joined by a thin line (for measurements).
    Points,
}

/// One named series of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend entry.
    pub label: String,
    /// The points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// How to draw it.
    pub style: Style,
    /// An index into the palette, so related series share a colour.
    pub color: usize,
}

impl Series {
    /// A series with the given label, points, style and colour index.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>, style: Style, color: usize) -> Self {
        Series { label: label.into(), points, style, color }
    }
}

/// A chart: axes, labels and series.
#[derive(Clone, Debug)]
pub struct Chart {
    /// The caption.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The y range; derived from the data if `None`.
    pub y_range: Option<(f64, f64)>,
    /// The series.
    pub series: Vec<Series>,
    /// Where the legend goes.
    pub legend: Legend,
}

/// The corner of the legend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Legend {
    /// Lower right (the default).
    #[default]
    LowerRight,
    /// Upper left.
    UpperLeft,
    /// Upper right.
    UpperRight,
    /// Lower left.
    LowerLeft,
    /// The middle of the plot.
    Center,
}

/// Why a chart could not be drawn.
#[derive(Debug)]
pub struct PlotError(String);

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "plot: {}", self.0)
    }
}

impl std::error::Error for PlotError {}

fn err(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

const PALETTE: [RGBColor; 13] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(255, 187, 120),
    RGBColor(152, 223, 138),
];

/// The size of every chart, in pixels.
pub const SIZE: (u32, u32) = (800, 480);

/// Registers the embedded font as "sans-serif" (once per process), for
/// other plots drawn with plotters in the same way as these.
pub fn register_fonts() {
    fonts();
}

fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The embedded font parses; if it ever did not, text would be missing
        // from the plots, not the plots themselves.
        let _ = register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

impl Chart {
    /// Draws the chart to `path` (`.svg` or `.png`), written whole (see
    /// [`treelb_apps::output::write`]).
    pub fn draw(&self, path: &Path) -> Result<(), PlotError> {
        let bytes = self.render(path)?;
        treelb_apps::output::write_bytes(path, &bytes)
            .map_err(|e| PlotError(format!("{}: {e}", treelb_apps::input::escape_path(path))))
    }

    /// The bytes of the file [`draw`](Self::draw) writes to `path`: an SVG
    /// document or a PNG image, by the extension of `path`.
    pub fn render(&self, path: &Path) -> Result<Vec<u8>, PlotError> {
        fonts();
        let svg = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
        if svg {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
                self.draw_on(&root)?;
                root.present().map_err(err)?;
            }
            return Ok(text.into_bytes());
        }
        let mut rgb = vec![0u8; 3 * SIZE.0 as usize * SIZE.1 as usize];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
            self.draw_on(&root)?;
            root.present().map_err(err)?;
        }
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, SIZE.0, SIZE.1);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.write_header().and_then(|mut w| w.write_image_data(&rgb)).map_err(err)?;
        Ok(bytes)
    }

    fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let pts = self.series.iter().flat_map(|s| s.points.iter().copied());
        let ok = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (x, y) in pts {
            if ok(x, self.log_x) {
                x0 = x0.min(x);
                x1 = x1.max(x);
            }
            if ok(y, self.log_y) {
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
        if x0 > x1 {
            (x0, x1) = (1.0, 2.0);
        }
        if y0 > y1 {
            (y0, y1) = (1.0, 2.0);
        }
        if let Some(r) = self.y_range {
            (y0, y1) = r;
        } else if self.log_y {
            (y0, y1) = (y0 / 1.5, y1 * 1.5);
        } else {
            let pad = 0.05 * (y1 - y0).max(1e-9);
            (y0, y1) = ((y0 - pad).min(0.0f64.max(y0 - pad)), y1 + pad);
        }
        if x0 == x1 {
            x1 = x0 + 1.0;
        }
        ((x0, x1), (y0, y1))
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(err)?;
        let ((x0, x1), (y0, y1)) = self.bounds();
        match (self.log_x, self.log_y) {
            (false, false) => self.draw_axes(root, x0..x1, y0..y1),
            (true, false) => self.draw_axes(root, (x0..x1).log_scale(), y0..y1),
            (false, true) => self.draw_axes(root, x0..x1, (y0..y1).log_scale()),
            (true, true) => self.draw_axes(root, (x0..x1).log_scale(), (y0..y1).log_scale()),
        }
    }

    fn draw_axes<DB, X, Y>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
        x: X,
        y: Y,
    ) -> Result<(), PlotError>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x, y)
            .map_err(err)?;
        let mut mesh = chart.configure_mesh();
        if self.log_x {
            mesh.x_labels(8);
        }
        if self.log_y {
            mesh.y_labels(8);
        }
        let light = if self.log_x || self.log_y { 0 } else { 4 };
        mesh.x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&|v| short(*v))
            .y_label_formatter(&|v| short(*v))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(RGBColor(240, 240, 240))
            .max_light_lines(light)
            .draw()
            .map_err(err)?;
        for s in &self.series {
            let color = PALETTE[s.color % PALETTE.len()];
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|&(x, y)| {
                    x.is_finite() && y.is_finite() && (!self.log_x || x > 0.0) && (!self.log_y || y > 0.0)
                })
                .collect();
            let anno = match s.style {
                Style::Line => chart.draw_series(LineSeries::new(pts, color.stroke_width(2))).map_err(err)?,
                Style::Dashed => {
                    chart.draw_series(DashedLineSeries::new(pts, 8, 5, color.stroke_width(2))).map_err(err)?
                }
                Style::Points => {
                    chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(1))).map_err(err)?;
                    chart
                        .draw_series(pts.into_iter().map(|p| Circle::new(p, 4, color.filled())))
                        .map_err(err)?
                }
            };
            let style = s.style;
            anno.label(&s.label).legend(move |(x, y)| match style {
                Style::Points => Circle::new((x + 10, y), 4, color.filled()).into_dyn(),
                Style::Dashed => PathElement::new(vec![(x, y), (x + 8, y)], color.stroke_width(2)).into_dyn(),
                Style::Line => PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)).into_dyn(),
            });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 13))
            .position(match self.legend {
                Legend::LowerRight => SeriesLabelPosition::LowerRight,
                Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
                Legend::UpperRight => SeriesLabelPosition::UpperRight,
                Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
                Legend::Center => SeriesLabelPosition::MiddleMiddle,
            })
            .draw()
            .map_err(err)?;
        Ok(())
    }
}

/// A short label for a number: 16384 → "16.4k", 2.5e9 → "2.5G", 0.8 → "0.8".
///
/// ```
/// use treelb_sim::plot::short;
/// assert_eq!(short(16384.0), "16.4k");
/// assert_eq!(short(2.5e9), "2.5G");
/// assert_eq!(short(0.8), "0.8");
/// assert_eq!(short(120.0), "120");
/// ```
pub fn short(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x.abs() >= 100.0 || x.fract().abs() < 1e-9 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    format!("{s}{suffix}")
}
