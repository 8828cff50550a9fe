//! Files and text of treelb's programs, shared by the applications, the
//! checkpoint code and the command line:
//!
//! * [`output`]: an output path is checked before the work and the file
//!   written whole after it — a temporary file created exclusively without
//!   following a link, flushed, renamed over the target;
//! * [`text`]: input a message repeats (a name read from a file, a path)
//!   is shown with its control and invisible characters escaped;
//! * [`values`]: values as people write them on a command line (`1e6`,
//!   `90s`), each refused in a few words.

pub mod output;
pub mod text;
pub mod values;
