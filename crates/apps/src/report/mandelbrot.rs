//! The report of a Mandelbrot image: its pixels, the area of the set, the
//! work of the method and the PEs' shares.

use serde::Serialize;

use super::{Answered, Line};
use crate::mandelbrot::{Counts, Image, Mandelbrot, Method, SET_AREA, View};

/// The instance.
#[derive(Debug, Serialize)]
pub struct Instance {
    /// The rectangle of the complex plane.
    pub view: View,
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// The iterations after which a point counts as in the set.
    pub max_iter: u32,
    /// Pixel by pixel, or by subdivision.
    pub method: Method,
    /// Subdivision: rectangles of at most this many pixels are computed
    /// pixel by pixel.
    pub min_area: Option<u64>,
    /// Subdivision: it starts from a grid of `tiles × tiles` rectangles.
    pub tiles: Option<u32>,
    /// The area of one pixel.
    pub pixel_area: f64,
}

/// The same image computed sequentially.
#[derive(Debug, Serialize)]
pub struct Sequential {
    /// Its wall time.
    pub wall_secs: f64,
    /// Its iterations.
    pub iterations: u64,
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// Pixels of the image.
    pub pixels: u64,
    /// Pixels not made (an interrupted run).
    pub missing: u64,
    /// Pixels in the set.
    pub in_set: u64,
    /// In-set pixels × pixel area.
    pub area: f64,
    /// What the method did: pixels computed and filled, iterations.
    pub counts: Counts,
    /// Pixels made by each PE.
    pub pixels_per_pe: Vec<u64>,
    /// Where the image coloured by escape time is written, if anywhere.
    pub image: Option<String>,
    /// Where the image coloured by PE is written, if anywhere.
    pub pe_image: Option<String>,
    /// The sequential run, if one was made.
    pub sequential: Option<Sequential>,
}

/// The `image` of `m` made by `method` (subdivision down to `min_area`
/// pixels), with `counts`, missing `missing` pixels if `interrupted`; the
/// images written to `files` (by escape time, by PE), and the `sequential`
/// run if one was made.
#[allow(clippy::too_many_arguments)]
pub fn answer(
    m: &Mandelbrot,
    (method, min_area): (Method, u64),
    image: &Image,
    counts: Counts,
    missing: u64,
    files: (Option<String>, Option<String>),
    sequential: Option<Sequential>,
    interrupted: bool,
) -> Answered<Instance, Answer> {
    let (view, width, height, max_iter) = (m.view(), m.width(), m.height(), m.max_iter());
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
    let (out, pe_out) = files;
    if let Some(path) = &out {
        lines.push(Line::new("image", path).note("coloured by escape time, the set black"));
    }
    if let Some(path) = &pe_out {
        lines.push(Line::new("PE image", path).note("a hue per PE; the set darker, filled rectangles muted"));
    }
    if let Some(s) = &sequential {
        lines.push(
            Line::new("sequential", format!("{:.3} s", s.wall_secs))
                .note(format!("{} iterations on one core", s.iterations)),
        );
    }
    let subdivide = method == Method::Subdivide;
    Answered {
        title: format!("Mandelbrot — {view}, {width} × {height} pixels, max_iter {max_iter}, {method}"),
        instance: Instance {
            view,
            width,
            height,
            max_iter,
            method,
            min_area: subdivide.then_some(min_area),
            tiles: subdivide.then_some(m.tiles()),
            pixel_area: m.pixel_area(),
        },
        answer: Answer {
            pixels,
            missing,
            in_set,
            area,
            counts,
            pixels_per_pe,
            image: out,
            pe_image: pe_out,
            sequential,
        },
        lines,
        ok: true,
    }
}

/// `part` as a percentage of `whole`.
fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}
