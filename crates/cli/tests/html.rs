//! `--html` reports, rendered in a real browser: `treelb plot-trace …
//! --html` and `treelb compare … --html` write one self-contained page,
//! headless Chromium takes a screenshot of it, and the screenshot must show
//! the tables and the plots (their colours), not a blank page.
//!
//! Without Chromium the pages are still checked, and the rendering is
//! skipped with one line on the terminal, unless `TREELB_REQUIRE` names
//! `chromium` (`.ci/run` installs Debian's `chromium` and sets it).
//! Every process is killed and fails its test after 120 s.

#[allow(dead_code)] // this file uses only some of the helpers
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn treelb(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(args);
    let o = common::output_within(cmd, LIMIT);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("treelb-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The browser to render with, or `None` where it is absent (the test
/// then checks the page without rendering it).
fn chromium() -> Option<&'static str> {
    common::outside_program("chromium", &["chromium", "chromium-browser"], "apt-get install chromium")
}

/// Renders `page` headless into a PNG of `width` × `height`; returns the
/// image as RGB pixels.
fn screenshot(browser: &str, page: &Path, width: u32, height: u32) -> (u32, u32, Vec<[u8; 3]>) {
    let png = page.with_extension("png");
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        &format!("--screenshot={}", png.display()),
        &format!("--window-size={width},{height}"),
        &format!("file://{}", page.display()),
    ]);
    let o = common::output_within(cmd, LIMIT);
    assert!(o.status.success() && png.exists(), "{browser}: {}", String::from_utf8_lossy(&o.stderr));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels = buf[..info.buffer_size()].chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    (info.width, info.height, pixels)
}

/// How many pixels are within a few levels of `colour`.
fn count(pixels: &[[u8; 3]], colour: [u8; 3]) -> usize {
    pixels.iter().filter(|p| p.iter().zip(colour).all(|(&a, b)| a.abs_diff(b) <= 8)).count()
}

#[test]
fn plot_trace_html_renders_its_tables_and_plots() {
    let dir = scratch("trace");
    let trace = dir.join("t.csv");
    let page = dir.join("trace.html");
    let (trace, page_s) = (trace.to_str().unwrap(), page.to_str().unwrap());
    treelb(&["nqueens", "12", "-p", "2", "--trace", trace, "--no-progress"]);
    let out = String::from_utf8(treelb(&["plot-trace", trace, "--html", page_s]).stdout).unwrap();
    assert!(out.contains(&format!("wrote {page_s}")), "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for part in ["<table>", "<th>working %</th>", "<td>all</td>", "command: treelb nqueens 12"] {
        assert!(html.contains(part), "`{part}` in the page");
    }
    assert_eq!(html.matches("<svg").count(), 2, "the utilization plot and the timeline, inline");
    assert!(!html.contains("src=\""), "self-contained: nothing loaded from elsewhere");
    let Some(browser) = chromium() else { return };
    let (w, h, pixels) = screenshot(browser, &page, 1200, 1400);
    assert_eq!((w, h), (1200, 1400));
    let not_white = pixels.iter().filter(|p| p.iter().any(|&c| c < 235)).count();
    assert!(not_white > pixels.len() / 20, "a blank page: {not_white} of {} pixels not white", pixels.len());
    // The states' colours (working, splitting, sending, requesting, idle)
    // fill both plots, whatever the shares of the states (a loaded machine
    // changes them); the tables' header background is there too.
    let states = [[44, 160, 44], [255, 127, 14], [148, 103, 189], [31, 119, 180], [205, 205, 205]];
    let drawn: usize = states.iter().map(|&c| count(&pixels, c)).sum();
    assert!(drawn > 100_000, "the plots are not drawn: {drawn} pixels in the states' colours");
    assert!(count(&pixels, [232, 238, 244]) > 1_000, "the table's header is not drawn");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn compare_html_renders_its_table_and_chart() {
    let dir = scratch("compare");
    let page = dir.join("compare.html");
    let page_s = page.to_str().unwrap();
    let args = ["compare", "T3", "-p", "2", "--repeat", "1", "--strategies", "random-polling,static-block"];
    treelb(&[&args[..], &["--html", page_s]].concat());
    let html = std::fs::read_to_string(&page).unwrap();
    for part in ["<table>", "<th>efficiency</th>", "<td>random-polling</td>", "<td>static-block</td>", "<svg"]
    {
        assert!(html.contains(part), "`{part}` in the page");
    }
    assert_eq!(html.matches("<rect").count(), 2, "one bar per strategy");
    let Some(browser) = chromium() else { return };
    let (_, _, pixels) = screenshot(browser, &page, 1000, 800);
    // Bars of 18 pixels by 560 × the efficiency (above 0.1 even on a loaded
    // machine).
    assert!(count(&pixels, [31, 119, 180]) > 1_000, "the bars are not drawn: {html}");
    assert!(count(&pixels, [232, 238, 244]) > 1_000, "the table's header is not drawn");
    std::fs::remove_dir_all(dir).ok();
}

/// An unwritable page is refused before the runs, in one line.
#[test]
fn an_unwritable_page_is_refused_at_once() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(["compare", "T1", "--html", "/nonexistent/dir/r.html"]);
    let o = common::output_within(cmd, LIMIT);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--html /nonexistent/dir/r.html: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
}
