//! Splitting a text file into byte ranges at line boundaries.
//!
//! Part `p` of `P` is the byte range `[len·p/P, len·(p+1)/P)`; it owns every line whose first byte
//! lies in its range. A line starts at byte 0 and after every `\n`, so each line is owned by exactly
//! one part whatever the ranges: a part whose range lies inside one long line owns nothing, and the
//! owner of a line reads it to its end even past its own range. `\r\n` endings lose their `\r`.
//!
//! ```
//! use kern_dist::split::{byte_range, for_each_line};
//! let p = std::env::temp_dir().join(format!("kern-doc-split-mod-{}.txt", std::process::id()));
//! std::fs::write(&p, "alpha\nb\n\ncharlie\r\nd").unwrap();
//! // Four parts of the file's bytes: every line is read once, by the part holding its first byte.
//! let mut lines = Vec::new();
//! for part in 0..4 {
//!     let (start, end) = byte_range(std::fs::metadata(&p).unwrap().len(), part, 4);
//!     for_each_line(&p, start, end, |_, _, l| { lines.push(l.to_string()); Ok(()) }).unwrap();
//! }
//! assert_eq!(lines, ["alpha", "b", "", "charlie", "d"]);
//! # std::fs::remove_file(&p).unwrap();
//! ```

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The byte range `[start, end)` of part `part` of `parts` of a file of `len` bytes.
///
/// ```
/// assert_eq!(kern_dist::split::byte_range(10, 0, 3), (0, 3));
/// assert_eq!(kern_dist::split::byte_range(10, 2, 3), (6, 10));
/// ```
pub fn byte_range(len: u64, part: usize, parts: usize) -> (u64, u64) {
    let at = |p: usize| (len as u128 * p as u128 / parts.max(1) as u128) as u64;
    (at(part), at(part + 1))
}

/// How a part's reading stopped.
///
/// ```
/// use kern_dist::split::{for_each_line, LineError};
/// let p = std::env::temp_dir().join(format!("kern-doc-line-error-{}.txt", std::process::id()));
/// std::fs::write(&p, "1\n2\nx\n4\n").unwrap();
/// let parse = |_: usize, _: u64, l: &str| l.parse::<u32>().map(drop).map_err(|e| e.to_string());
/// match for_each_line(&p, 0, 8, parse) {
///     Err(LineError::Line(i, why)) => assert_eq!((i, why.as_str()), (2, "invalid digit found in string")),
///     other => panic!("{other:?}"),
/// }
/// std::fs::remove_file(&p).unwrap();
/// assert!(matches!(for_each_line(&p, 0, 8, parse), Err(LineError::Io(_))));
/// ```
#[derive(Debug)]
pub enum LineError {
    /// The file could not be read.
    Io(std::io::Error),
    /// `f` refused the line with 0-based index `.0` among the part's lines (or it is not UTF-8).
    Line(usize, String),
}

/// Calls `f(index, offset, line)` for every line whose first byte lies in `[start, end)` of `path`, in file
/// order (`index` counts from 0 within the part, `offset` is the line's first byte; the line has no `\n` / `\r\n`), and returns the number
/// of lines. Stops at the first line `f` refuses.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-split.txt");
/// std::fs::write(&p, "ab\r\ncdef\n\ng").unwrap();
/// let mut seen = Vec::new();
/// let n = kern_dist::split::for_each_line(&p, 3, 10, |_, _, l| { seen.push(l.to_string()); Ok(()) }).unwrap();
/// assert_eq!((n, seen), (2, vec!["cdef".to_string(), String::new()]));
/// # std::fs::remove_file(&p).unwrap();
/// ```
pub fn for_each_line(
    path: &Path,
    start: u64,
    end: u64,
    mut f: impl FnMut(usize, u64, &str) -> Result<(), String>,
) -> Result<usize, LineError> {
    let file = std::fs::File::open(path).map_err(LineError::Io)?;
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut pos = start;
    let mut buf = Vec::new();
    if start > 0 {
        r.seek(SeekFrom::Start(start - 1)).map_err(LineError::Io)?;
        let mut b = [0u8; 1];
        let got = r.read(&mut b).map_err(LineError::Io)?;
        if got == 1 && b[0] != b'\n' {
            // The line in progress at `start` belongs to an earlier part.
            pos += r.read_until(b'\n', &mut buf).map_err(LineError::Io)? as u64;
        }
    }
    let mut count = 0usize;
    while pos < end {
        buf.clear();
        let got = r.read_until(b'\n', &mut buf).map_err(LineError::Io)?;
        if got == 0 {
            break;
        }
        let at = pos;
        pos += got as u64;
        let mut line = &buf[..];
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l.strip_suffix(b"\r").unwrap_or(l);
        }
        let text = std::str::from_utf8(line).map_err(|_| LineError::Line(count, "not UTF-8 text".into()))?;
        f(count, at, text).map_err(|e| LineError::Line(count, e))?;
        count += 1;
    }
    Ok(count)
}
