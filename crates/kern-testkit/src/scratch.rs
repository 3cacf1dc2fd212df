//! Scratch directories of tests that leave nothing behind, and the files written into them.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch directory of one test, removed with everything in it when dropped (also when the test
/// fails). It derefs to its [`Path`]; see [`scratch`].
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

/// A new, empty scratch directory named after `name`, the process and a counter, so that tests
/// running in parallel (or one test asking twice) never share one.
///
/// ```
/// let dir = kern_testkit::scratch("doc");
/// let p = kern_testkit::write(&dir, "a.txt", "1");
/// assert!(p.is_file());
/// let kept = dir.to_path_buf();
/// drop(dir);
/// assert!(!kept.exists());
/// ```
pub fn scratch(name: &str) -> Scratch {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("kern-test-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory created");
    Scratch(d)
}

/// Writes `content` to the file `name` in `dir` and returns its path.
///
/// ```
/// let dir = kern_testkit::scratch("write");
/// assert_eq!(std::fs::read(kern_testkit::write(&dir, "b", [1u8])).unwrap(), [1u8]);
/// ```
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).expect("file written");
    p
}
