//! Progress bars on stderr (indicatif): a bar over the fits of a grid search (`kern cv`), the SVM
//! solvers' progress line (`kern train` of an SVM), and a spinner with the elapsed time over work that
//! reports no steps (`kern tune`, and every other command's work). Shown when stderr is a terminal
//! or `--progress` is given, never with `--quiet`; standard output (the JSON summary) is untouched.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write as _};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// When progress is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// When stderr is a terminal.
    Auto,
    /// Always (`--progress`), also into a file or pipe.
    Always,
    /// Never (`--quiet`).
    Never,
}

impl Mode {
    /// The mode from the two global flags (`--quiet` wins).
    pub fn from_flags(progress: bool, quiet: bool) -> Self {
        match (progress, quiet) {
            (_, true) => Mode::Never,
            (true, false) => Mode::Always,
            (false, false) => Mode::Auto,
        }
    }

    fn shown(self) -> bool {
        match self {
            Mode::Auto => std::io::stderr().is_terminal(),
            Mode::Always => true,
            Mode::Never => false,
        }
    }
}

static MODE: OnceLock<Mode> = OnceLock::new();

/// The grid search's bar while it is drawn: lines printed meanwhile go above it ([`eprintln`]).
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Prints a line on stderr above the grid search's bar when one is drawn (so that the bar is
/// redrawn below it, never overwritten), else as `eprintln!` does.
pub fn eprintln(line: &str) {
    let bar = BAR.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match bar.filter(|b| !b.is_finished() && !b.is_hidden()) {
        Some(b) => b.println(line),
        None => {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
}

fn target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        // indicatif hides its stderr target when stderr is not a terminal; --progress asked for it.
        ProgressDrawTarget::term_like(Box::new(console::Term::stderr()))
    }
}

/// Sets the mode for the run and, when progress is shown, installs the grid-search observer that
/// draws a bar of finished fits (one bar per search).
pub fn install(mode: Mode) {
    let _ = MODE.set(mode);
    // The kern-tune line is replaced by the bar below (or silenced).
    kern_tune::grid::report_progress(false);
    if !mode.shown() {
        return;
    }
    kern_models::svm::observe_progress(Some(Arc::new(svm_line)));
    let bar: Arc<Mutex<Option<ProgressBar>>> = Arc::default();
    kern_tune::grid::observe_progress(Some(Arc::new(move |done, total| {
        let mut slot = bar.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = slot.as_ref().is_none_or(|b| b.is_finished() || b.length() != Some(total as u64));
        if fresh {
            let b = ProgressBar::with_draw_target(Some(total as u64), target());
            b.set_style(
                ProgressStyle::with_template(
                    "grid search [{elapsed_precise}] {wide_bar} {pos}/{len} fits, ~{eta} left {msg}",
                )
                .expect("a valid template"),
            );
            *slot = Some(b.clone());
            *BAR.lock().unwrap_or_else(|e| e.into_inner()) = Some(b);
        }
        let b = slot.as_ref().expect("set above");
        // Fits finish on several threads: keep the largest count seen.
        if done as u64 > b.position() {
            b.set_position(done as u64);
        }
        if done >= total {
            b.finish();
        }
    })));
}

/// The SVM solvers' progress line (about once a second during a training that runs for more than a
/// second): redrawn in place on a terminal, one line per report into a file or pipe.
fn svm_line(p: &kern_models::svm::SolverProgress) {
    let line = format!(
        "svm: {} variables, {} iterations, KKT violation {:.3e}, {:.1} s",
        p.variables,
        p.iterations,
        p.violation,
        p.elapsed.as_secs_f64()
    );
    // Under a grid search's bar, the solver's line is the bar's message (one fit among many).
    let bar = BAR.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(b) = bar.filter(|b| !b.is_finished() && !b.is_hidden()) {
        b.set_message(line);
        return;
    }
    // Progress is not worth failing over: a standard error that cannot be written is skipped.
    let mut err = std::io::stderr().lock();
    let _ = if err.is_terminal() { write!(err, "\r\x1b[2K{line}") } else { writeln!(err, "{line}") };
}

/// A spinner with the elapsed time while `what` runs; cleared when dropped. Hidden unless progress is
/// shown.
pub struct Spinner(Option<ProgressBar>);

impl Spinner {
    /// Starts the spinner (a no-op when progress is not shown).
    pub fn start(what: &str) -> Self {
        if !MODE.get().copied().unwrap_or(Mode::Never).shown() {
            return Spinner(None);
        }
        let s = ProgressBar::with_draw_target(None, target());
        s.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]").expect("a valid template"),
        );
        s.set_message(what.to_string());
        s.enable_steady_tick(Duration::from_millis(200));
        Spinner(Some(s))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(s) = &self.0 {
            s.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_wins_and_progress_forces() {
        assert_eq!(Mode::from_flags(true, true), Mode::Never);
        assert_eq!(Mode::from_flags(false, true), Mode::Never);
        assert_eq!(Mode::from_flags(true, false), Mode::Always);
        assert_eq!(Mode::from_flags(false, false), Mode::Auto);
        assert!(Mode::Always.shown() && !Mode::Never.shown());
    }
}
