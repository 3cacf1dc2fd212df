//! How a run ends: the JSON summary line on standard output, or the error and its causes on standard
//! error in plain words; and the quiet end when the program reading standard output went away.

use kern_cli::CliError;
use kern_core::CoreError;
use std::error::Error;
use std::io::Write as _;
use std::process::ExitCode;

/// Writes the summary line to standard output (through file descriptor 1), or to standard error when
/// the command wrote its data to standard output (`--out -`): success, or the end of a failed write.
pub fn summary(json: &serde_json::Value) -> ExitCode {
    let line = format!("{json}\n");
    if crate::output::stdout_has_data() {
        let mut err = std::io::stderr().lock();
        // Standard error may be gone; the data was written.
        let _ = err.write_all(line.as_bytes());
        return ExitCode::SUCCESS;
    }
    match kern_core::io::write_stdout(line.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure(&e.into()),
    }
}

/// Reports a failed run: a reader of standard output that went away ends the process quietly, as a
/// broken pipe ends other command-line tools (killed by SIGPIPE); any other error (a closed standard
/// output included) is printed with its causes, and the exit code is 1.
pub fn failure(e: &CliError) -> ExitCode {
    if is_broken_pipe(e.as_ref()) {
        kern_core::io::exit_broken_pipe();
    }
    let mut err = std::io::stderr().lock();
    // Standard error may be gone too; nothing is left to report that to.
    let _ = err.write_all(error_text(e.as_ref()).as_bytes());
    ExitCode::FAILURE
}

/// The lines printed for an error: `kern: error: MESSAGE`, then `  caused by: CAUSE` for each cause
/// whose text the line above does not already hold, with the ` (os error N)` numbers of system
/// errors left out.
pub fn error_text(e: &(dyn Error + 'static)) -> String {
    let mut above = cli_terms(&plain(&e.to_string()));
    let mut text = format!("kern: error: {above}\n");
    let mut source = e.source();
    while let Some(s) = source {
        let cause = cli_terms(&plain(&s.to_string()));
        if !cause.is_empty() && !above.contains(&cause) {
            text.push_str(&format!("  caused by: {cause}\n"));
        }
        above = cause;
        source = s.source();
    }
    text
}

/// Whether the error, or any error in its chain of causes, is a broken pipe on standard output
/// (kern-core's `BrokenPipe`, also inside another crate's error, or a system error of that kind).
fn is_broken_pipe(e: &(dyn Error + 'static)) -> bool {
    let mut link = Some(e);
    while let Some(l) = link {
        if matches!(core_error(l), Some(CoreError::BrokenPipe))
            || l.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        {
            return true;
        }
        link = l.source();
    }
    false
}

/// The kern-core error an error is, or wraps without showing it as a cause (the other crates wrap
/// kern-core's errors transparently, so it is not in the chain of causes).
fn core_error<'a>(e: &'a (dyn Error + 'static)) -> Option<&'a CoreError> {
    if let Some(c) = e.downcast_ref::<CoreError>() {
        return Some(c);
    }
    let sparse = |s: &'a kern_sparse::SparseError| match s {
        kern_sparse::SparseError::Core(c) => Some(c),
        _ => None,
    };
    if let Some(m) = e.downcast_ref::<kern_models::ModelsError>() {
        return match m {
            kern_models::ModelsError::Core(c) => Some(c),
            kern_models::ModelsError::Sparse(s) => sparse(s),
            _ => None,
        };
    }
    if let Some(kern_tune::TuneError::Core(c)) = e.downcast_ref::<kern_tune::TuneError>() {
        return Some(c);
    }
    e.downcast_ref::<kern_sparse::SparseError>().and_then(sparse)
}

/// The library's advice in the command's terms: the libraries name their own ways of setting what
/// a flag of `kern` sets (the memory limit of `set_limit`, the force option of the writer, ...); the
/// command names its flag.
fn cli_terms(text: &str) -> String {
    use kern_core::memory::{LIMIT_SOURCE, RAISE_LIMIT};
    let source = format!("({LIMIT_SOURCE})");
    [
        (RAISE_LIMIT, "raise --max-memory"),
        (source.as_str(), "(--max-memory)"),
        ("the force option (with_force)", "--force"),
        ("the drop policy for missing values)", "the drop policy for missing values, --missing drop)"),
        ("another fill-reducing ordering", "another --order"),
        ("scale the features (feature scaling)", "scale the features (kern train --scale)"),
        (
            "train a railway SVC (kern-models) with the spec railway:auto",
            "use --kernel railway:auto with kern train",
        ),
    ]
    .iter()
    .fold(text.to_string(), |t, (lib, cli)| t.replace(lib, cli))
}

/// `text` without the ` (os error N)` numbers the system's error texts end with.
fn plain(text: &str) -> String {
    const MARK: &str = " (os error ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(MARK) {
        let after = &rest[i + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..i]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..i + MARK.len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memory refusal of the library (its limit, its advice) is shown with the flag that sets the
    /// limit, as every refusal of the command is.
    #[test]
    fn library_advice_is_shown_in_flags() {
        let e = CoreError::Memory {
            what: "a matrix".into(),
            needed: 2 << 20,
            available: 1 << 20,
            source_name: kern_core::memory::LIMIT_SOURCE,
            instead: format!("use fewer samples, or {}", kern_core::memory::RAISE_LIMIT),
        };
        assert!(!e.to_string().contains("--"), "{e}");
        let text = error_text(&e);
        assert!(
            text.contains("available (--max-memory); use fewer samples, or raise --max-memory\n"),
            "{text}"
        );
        let w = CoreError::WriteProtected { path: "m.kern".into() };
        assert!(!w.to_string().contains("--"), "{w}");
        assert!(error_text(&w).contains("write-protected; write with --force to replace it"));
    }

    #[test]
    fn os_error_numbers_are_left_out() {
        assert_eq!(
            plain("x.svm: No such file or directory (os error 2)"),
            "x.svm: No such file or directory"
        );
        assert_eq!(plain("a (os error 13); b (os error 2)"), "a; b");
        assert_eq!(plain("kept (os error x) and (os error 5"), "kept (os error x) and (os error 5");
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::from_raw_os_error(2);
        let e = CoreError::Io { path: "x.svm".into(), source: io };
        let text = error_text(&e);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with("kern: error: x.svm: "), "{text}");
        assert!(!text.contains("os error"), "{text}");
    }

    #[test]
    fn a_new_cause_is_printed() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("reading the model failed")
            }
        }
        impl Error for Outer {
            fn source(&self) -> Option<&(dyn Error + 'static)> {
                Some(&self.0)
            }
        }
        let text = error_text(&Outer(std::io::Error::from_raw_os_error(13)));
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().nth(1).unwrap().starts_with("  caused by: "), "{text}");
        assert!(!text.contains("os error"), "{text}");
    }

    #[test]
    fn broken_pipes_are_found_through_wrappers() {
        let wrapped: CliError = kern_models::ModelsError::Core(CoreError::BrokenPipe).into();
        assert!(is_broken_pipe(wrapped.as_ref()));
        let io: CliError = std::io::Error::from(std::io::ErrorKind::BrokenPipe).into();
        assert!(is_broken_pipe(io.as_ref()));
        let closed: CliError = CoreError::StdoutClosed.into();
        assert!(!is_broken_pipe(closed.as_ref()));
    }
}
