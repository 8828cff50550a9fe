//! An image written as a PNG file: [`Image::write_png`].

use std::io::Write;

use super::Image;

/// The colour of a pixel of an image, by its index: [`Image::escape_colour`]
/// or [`Image::pe_colour`].
pub type Colour = fn(&Image, usize) -> [u8; 3];

impl Image {
    /// Writes the image to `out` as an RGB PNG, each pixel coloured by
    /// `colour`, row by row (no copy of the whole image in RGB).
    ///
    /// ```
    /// use treelb_apps::mandelbrot::{Image, Mandelbrot, View};
    ///
    /// let m = Mandelbrot::new(View::corners(-2.0, 0.5, -1.25, 1.25)?, 8, 6, 50)?;
    /// let (image, _) = treelb::seq::run_work(m.work(Default::default()));
    /// let image = image.into_image(&m)?;
    /// let mut png = Vec::new();
    /// image.write_png(&mut png, Image::escape_colour)?;
    /// assert_eq!(&png[1..4], b"PNG");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_png(&self, out: &mut dyn Write, colour: Colour) -> std::io::Result<()> {
        let fail = |e: png::EncodingError| match e {
            png::EncodingError::IoError(e) => e,
            e => std::io::Error::other(e),
        };
        let mut encoder = png::Encoder::new(out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(fail)?;
        let mut stream = writer.stream_writer().map_err(fail)?;
        let width = self.width as usize;
        let mut row = Vec::with_capacity(3 * width);
        for y in 0..self.height as usize {
            row.clear();
            row.extend((y * width..(y + 1) * width).flat_map(|i| colour(self, i)));
            stream.write_all(&row)?;
        }
        stream.finish().map_err(fail)?;
        writer.finish().map_err(fail)
    }
}

/// A number of bytes for people: `4.5 GiB`, `12.0 MiB`, `512 bytes`.
///
/// ```
/// assert_eq!(treelb_apps::mandelbrot::human_bytes(3 << 29), "1.5 GiB");
/// ```
pub fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / f64::from(1u32 << 30)),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / f64::from(1u32 << 20)),
        n => format!("{n} bytes"),
    }
}
