//! One self-contained HTML page for a report: a heading, tables and inline
//! SVG plots, no script, no file beside it — a user opens it in any browser
//! or mails it. The pages of a comparison ([`Comparison::html`]) and of a
//! trace ([`trace_plot::html_page`]) are made of it.
//!
//! ```
//! use treelb_bench::html::{Page, bar_chart};
//!
//! let mut page = Page::new("efficiency");
//! page.table(&["strategy", "efficiency"], &[vec!["random-polling".to_owned(), "0.97".to_owned()]]);
//! page.svg(&bar_chart("efficiency", &[("random-polling".to_owned(), 0.97)], 1.0));
//! assert!(page.finish().contains("<td class=\"n\">0.97</td>"));
//! ```
//!
//! [`Comparison::html`]: crate::compare::Comparison::html
//! [`trace_plot::html_page`]: crate::trace_plot::html_page

use std::fmt::Write as _;

/// A page being built: sections appended in order, then [`Page::finish`].
pub struct Page {
    body: String,
    title: String,
}

impl Page {
    /// A page with this title (also its first heading).
    pub fn new(title: &str) -> Self {
        let mut body = String::new();
        let _ = writeln!(body, "<h1>{}</h1>", escape(title));
        Page { body, title: title.to_owned() }
    }

    /// A heading of a section.
    pub fn heading(&mut self, text: &str) -> &mut Self {
        let _ = writeln!(self.body, "<h2>{}</h2>", escape(text));
        self
    }

    /// A paragraph of text.
    pub fn paragraph(&mut self, text: &str) -> &mut Self {
        let _ = writeln!(self.body, "<p>{}</p>", escape(text));
        self
    }

    /// A line of code (a command).
    pub fn code(&mut self, text: &str) -> &mut Self {
        let _ = writeln!(self.body, "<pre><code>{}</code></pre>", escape(text));
        self
    }

    /// A table: a header row, then the rows; a cell that parses as a number
    /// is aligned right.
    pub fn table<R: AsRef<[String]>>(&mut self, header: &[&str], rows: &[R]) -> &mut Self {
        self.body.push_str("<table>\n<thead><tr>");
        for h in header {
            let _ = write!(self.body, "<th>{}</th>", escape(h));
        }
        self.body.push_str("</tr></thead>\n<tbody>\n");
        for row in rows {
            self.body.push_str("<tr>");
            for cell in row.as_ref() {
                let class = if cell.trim().parse::<f64>().is_ok() { " class=\"n\"" } else { "" };
                let _ = write!(self.body, "<td{class}>{}</td>", escape(cell));
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody>\n</table>\n");
        self
    }

    /// An SVG image, inline (its XML declaration dropped).
    pub fn svg(&mut self, svg: &str) -> &mut Self {
        let start = svg.find("<svg").unwrap_or(0);
        let _ = writeln!(self.body, "<figure>{}</figure>", &svg[start..]);
        self
    }

    /// The whole document.
    pub fn finish(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
             <style>\n{STYLE}</style>\n</head>\n<body>\n{}<footer>written by treelb {}</footer>\n</body>\n</html>\n",
            escape(&self.title),
            self.body,
            env!("CARGO_PKG_VERSION")
        )
    }
}

const STYLE: &str = "body { font-family: sans-serif; margin: 2em auto; max-width: 1150px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; }
th { background: #e8eef4; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #f6f6f6; }
pre { background: #f3f3f3; padding: 0.5em; overflow-x: auto; }
figure { margin: 1em 0; } footer { margin-top: 2em; color: #888; font-size: 0.8em; }
";

/// `text` with the characters HTML gives a meaning escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A horizontal bar chart as SVG: one bar per label, values from 0 to
/// `max` (at least the largest value), each bar labelled with its value.
pub fn bar_chart(title: &str, bars: &[(String, f64)], max: f64) -> String {
    let max = bars.iter().map(|b| b.1).fold(max, f64::max).max(f64::MIN_POSITIVE);
    let (label_w, bar_w, row_h) = (190.0, 560.0, 24.0);
    let height = 40.0 + row_h * bars.len() as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"13\">\n<text x=\"0\" y=\"16\" font-weight=\"bold\">{}</text>\n",
        escape(title),
        w = label_w + bar_w + 70.0
    );
    for (i, (label, value)) in bars.iter().enumerate() {
        let y = 30.0 + row_h * i as f64;
        let w = (value / max).clamp(0.0, 1.0) * bar_w;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect x=\"{label_w}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"#1f77b4\"/>\
             <text x=\"{}\" y=\"{}\">{value:.3}</text>",
            label_w - 8.0,
            y + 16.0,
            escape(label),
            row_h - 6.0,
            label_w + w + 6.0,
            y + 16.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_holds_its_tables_and_images_escaped() {
        let mut page = Page::new("T1 <2 threads>");
        page.table(&["strategy", "wall s"], &[vec!["a&b".to_owned(), "0.5".to_owned()]]);
        page.svg("<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>");
        let html = page.finish();
        assert!(html.contains("<title>T1 &lt;2 threads&gt;</title>"), "{html}");
        assert!(html.contains("<td>a&amp;b</td><td class=\"n\">0.5</td>"), "{html}");
        assert!(html.contains("<figure><svg width=\"1\"></svg></figure>"), "{html}");
        assert!(!html.contains("<?xml"));
        let chart = bar_chart("efficiency", &[("x".into(), 0.5), ("y".into(), 1.0)], 1.0);
        assert!(chart.contains("width=\"280.0\"") && chart.contains("width=\"560.0\""), "{chart}");
    }
}
