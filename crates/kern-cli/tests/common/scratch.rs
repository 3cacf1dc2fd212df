//! Scratch directories of integration tests that leave nothing behind, and the files written into
//! them: one definition, included by the shared test module of kern-cli (`mod scratch;`) and of
//! kern-dist (by path), since integration tests of two crates cannot share a module otherwise.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch directory of one test, removed with everything in it when dropped (also when the test
/// fails). It derefs to its [`Path`].
pub struct Scratch(PathBuf);

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A new, empty scratch directory named after the package, the test binary, `name`, the process and a
/// counter, so that tests running in parallel (or one test asking twice) never share one.
pub fn scratch(name: &str) -> Scratch {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let (package, test) = (env!("CARGO_PKG_NAME"), env!("CARGO_CRATE_NAME"));
    let d = std::env::temp_dir().join(format!("{package}-{test}-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory created");
    Scratch(d)
}

/// Writes `content` to the file `name` in `dir` and returns its path.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).expect("file written");
    p
}
