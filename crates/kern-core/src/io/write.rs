//! Writing output files safely: atomic replacement that keeps the replaced file's mode and owner,
//! refuses write-protected files unless forced, removes its temporary file on every error path and on
//! SIGINT, SIGTERM and SIGHUP; writing to standard output through file descriptor 1 with distinct
//! errors for a broken pipe and a closed stream; and the check that an output is not an input.

use super::io_err;
use crate::error::{CoreError, Result};
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How [`write_file`] treats an existing file.
///
/// ```
/// use kern_core::io::WriteOptions;
/// assert!(!WriteOptions::default().force);
/// assert!(WriteOptions::new().with_force(true).force);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Replace a write-protected file (one the user has no write permission for) instead of refusing.
    pub force: bool,
}

impl WriteOptions {
    /// The defaults: a write-protected file is refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`WriteOptions::force`].
    pub fn with_force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }
}

/// Writes `bytes` to `path` with the default [`WriteOptions`] (a write-protected file is refused);
/// see [`write_file`] for everything it guarantees.
///
/// ```
/// let p = std::env::temp_dir().join("kern-doc-atomic.txt");
/// kern_core::io::write_atomic(&p, b"hello")?;
/// assert_eq!(std::fs::read(&p).unwrap(), b"hello");
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_file(path, bytes, &WriteOptions::default())
}

/// Writes `bytes` to `path` without ever leaving it half-written or destroying something that is not
/// a regular file:
///
/// - a path naming standard output other than `-` (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, or
///   any path to the file standard output is open on; see [`is_stdout`]) is written through file
///   descriptor 1, so what the program prints next follows the output instead of overwriting it;
/// - a symbolic link is followed to its target, which is replaced (the link stays a link);
/// - a write-protected regular file (no write permission for the user, or no write bit at all) is
///   refused with [`CoreError::WriteProtected`] unless `opts.force`;
/// - a regular file (or a new path) is replaced atomically: a temporary file in the same directory
///   (`.NAME.tmpPID-N`, or a shortened name when that would exceed 255 bytes) is written, flushed
///   and synced, given the replaced file's mode and, where permitted, its owner and group, renamed
///   over the target, then the directory is synced; on every error path, and when the process is
///   ended by SIGINT, SIGTERM or SIGHUP, the temporary file is removed and the target is untouched;
/// - anything else that exists (a FIFO, a character device such as `/dev/null`, a socket), any path
///   under `/proc/`, and any symbolic link directly in `/dev/` or `/dev/fd/` is written in place,
///   never renamed over; files and links elsewhere under `/dev/` (a `tmpfs` such as `/dev/shm`) are
///   ordinary ones;
/// - temporary files of earlier saves whose process is gone (killed by SIGKILL or a power loss) are
///   removed by the next save of the same name.
///
/// ```
/// use kern_core::{CoreError, io::{write_file, WriteOptions}};
/// let p = std::env::temp_dir().join("kern-doc-write-file.txt");
/// let _ = std::fs::remove_file(&p);
/// write_file(&p, b"one", &WriteOptions::default())?;
/// let mut perms = std::fs::metadata(&p).unwrap().permissions();
/// perms.set_readonly(true);
/// std::fs::set_permissions(&p, perms).unwrap();
/// let refused = write_file(&p, b"two", &WriteOptions::default());
/// assert!(matches!(refused, Err(CoreError::WriteProtected { .. })));
/// write_file(&p, b"two", &WriteOptions::new().with_force(true))?;
/// assert_eq!(std::fs::read(&p).unwrap(), b"two");
/// # std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn write_file(path: &Path, bytes: &[u8], opts: &WriteOptions) -> Result<()> {
    write_file_with(path, opts, |w| w.write_all(bytes))
}

/// Like [`write_file`], for output produced piece by piece: `fill` writes the content into a
/// buffered writer (the temporary file, the device, or standard output) and the file is put in
/// place only when `fill` succeeded.
///
/// ```
/// use std::io::Write;
/// let p = std::env::temp_dir().join("kern-doc-write-with.txt");
/// kern_core::io::write_file_with(&p, &Default::default(), |w| {
///     for i in 0..3 {
///         writeln!(w, "line {i}")?;
///     }
///     Ok(())
/// })?;
/// assert_eq!(std::fs::read_to_string(&p).unwrap(), "line 0\nline 1\nline 2\n");
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn write_file_with<F>(path: &Path, opts: &WriteOptions, fill: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    if path != Path::new("-") && is_stdout(path) {
        // A closed standard output is an error when it was named as such (`/dev/stdout`), not when
        // the path names the `/dev/null` the runtime put in its place.
        return with_stdout(fill, stdout_name(path));
    }
    let target = resolve_links(path).map_err(|e| io_err(path, e))?;
    if in_place(&target) {
        return write_in_place(&target, fill).map_err(|e| io_err(path, e));
    }
    if !opts.force
        && let Ok(m) = std::fs::metadata(&target)
        && m.is_file()
        && write_protected(&target, &m)
    {
        return Err(CoreError::WriteProtected { path: path.to_path_buf() });
    }
    replace_atomically(&target, fill).map_err(|e| io_err(path, e))
}

/// Whether `path` means standard output: `-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, or any
/// path that leads to the file standard output is open on (the same device and inode: a shell's
/// `> FILE` and `FILE` itself, `/proc/PID/fd/1`, the terminal). A program should write such an output
/// through file descriptor 1 ([`write_stdout`]) rather than open the path again: a second open
/// starts at offset 0, and what follows on standard output would overwrite it.
///
/// ```
/// use std::path::Path;
/// use kern_core::io::is_stdout;
/// assert!(is_stdout(Path::new("-")));
/// assert!(is_stdout(Path::new("/dev/stdout")));
/// assert!(!is_stdout(Path::new("model.kern")));
/// ```
pub fn is_stdout(path: &Path) -> bool {
    if stdout_name(path) {
        return true;
    }
    let (Ok(p), Some(o)) = (std::fs::metadata(path), stdout_metadata()) else { return false };
    same_file(&p, &o)
}

/// Writes `bytes` to standard output (file descriptor 1, after flushing what `print!` buffered) and
/// flushes. A reader that went away is [`CoreError::BrokenPipe`] (end quietly, as other command-line
/// tools do); a standard output that was closed is [`CoreError::StdoutClosed`]; never panics.
///
/// A command started with its standard output closed (`>&-`) finds it open on `/dev/null`, which the
/// Rust runtime opens in its place; on Linux that is recognized (the state of descriptor 1 is
/// recorded before the runtime starts) and reported as closed too, so output is not dropped silently.
///
/// ```
/// kern_core::io::write_stdout(b"")?;
/// # Ok::<(), kern_core::CoreError>(())
/// ```
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    with_stdout(|w| w.write_all(bytes), true)
}

/// Ends the process as a broken pipe ends a command-line tool: quietly, killed by SIGPIPE (exit
/// status 141 in a shell). For a program that got [`CoreError::BrokenPipe`] from [`write_stdout`];
/// the Rust runtime ignores SIGPIPE, so this restores its default action first. Where there are no
/// signals, exits with status 141.
///
/// ```
/// use kern_core::{CoreError, io::{exit_broken_pipe, write_stdout}};
/// // How a command-line tool writes its output: only a reader that went away ends it here.
/// match write_stdout(b"") {
///     Err(CoreError::BrokenPipe) => exit_broken_pipe(),
///     other => assert!(other.is_ok()),
/// }
/// ```
pub fn exit_broken_pipe() -> ! {
    #[cfg(unix)]
    signal_cleanup::die_of(libc::SIGPIPE);
    #[allow(unreachable_code)]
    std::process::exit(141)
}

/// Refuses to write `out` when it is one of `inputs` (the same file, also through links, hard links,
/// `/dev/stdout` or `/dev/fd/N` aliases or another spelling of the path), so a typo cannot overwrite
/// the data with the result.
///
/// ```
/// use std::path::Path;
/// let p = std::env::temp_dir().join("kern-doc-distinct.svm");
/// std::fs::write(&p, "1 1:1\n").unwrap();
/// assert!(kern_core::io::ensure_distinct(&p, &[p.as_path()]).is_err());
/// assert!(kern_core::io::ensure_distinct(Path::new("/nonexistent/out"), &[p.as_path()]).is_ok());
/// ```
pub fn ensure_distinct(out: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(o) = std::fs::metadata(out) else { return Ok(()) };
    if !o.is_file() {
        return Ok(()); // devices and FIFOs are written in place, never replaced
    }
    for input in inputs {
        if let Ok(i) = std::fs::metadata(input)
            && same_file(&o, &i)
        {
            return Err(CoreError::Clobber { out: out.to_path_buf(), input: input.to_path_buf() });
        }
    }
    Ok(())
}

/// Whether `path` is one of the names of standard output.
fn stdout_name(path: &Path) -> bool {
    matches!(path.to_str(), Some("-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1"))
}

/// The display name of standard output in errors.
const STDOUT_NAME: &str = "standard output";

/// Runs `fill` on a buffered writer to file descriptor 1 and maps its errors; with `check_closed`, a
/// standard output that was closed at start is an error.
fn with_stdout<F>(fill: F, check_closed: bool) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    let map = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::BrokenPipe => CoreError::BrokenPipe,
        _ if is_ebadf(&e) => CoreError::StdoutClosed,
        _ => io_err(Path::new(STDOUT_NAME), e),
    };
    std::io::stdout().flush().map_err(map)?;
    let file = stdout_file().map_err(map)?;
    if check_closed && reopened_by_runtime(&file) {
        return Err(CoreError::StdoutClosed);
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
    fill(&mut w).map_err(map)?;
    w.flush().map_err(map)
}

fn is_ebadf(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(libc::EBADF);
    #[cfg(not(unix))]
    return false;
}

/// A file on a duplicate of file descriptor 1 (sharing its offset); fails with EBADF when it is closed.
/// (Rust's `Stdout` treats a closed descriptor as a sink that accepts everything, so it is not used.)
#[cfg(unix)]
fn stdout_file() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    Ok(std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn stdout_file() -> std::io::Result<std::fs::File> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "writing to standard output by descriptor"))
}

fn stdout_metadata() -> Option<std::fs::Metadata> {
    stdout_file().ok()?.metadata().ok()
}

/// Whether `f` (a duplicate of descriptor 1) is the `/dev/null` the Rust runtime opened in place of a
/// standard output that was closed when the program started (Linux: recorded before the runtime
/// starts, see [`start_state`]; elsewhere never detected).
fn reopened_by_runtime(f: &std::fs::File) -> bool {
    #[cfg(target_os = "linux")]
    if start_state::STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        let (Ok(m), Ok(null)) = (f.metadata(), std::fs::metadata("/dev/null")) else { return false };
        return same_file(&m, &null);
    }
    let _ = f;
    false
}

/// Whether descriptor 1 was closed when the process started, recorded by a constructor that the C
/// runtime runs before `main` (from `.init_array`), so before the Rust runtime opens `/dev/null` on
/// a closed standard stream (which makes `>&-` indistinguishable from `> /dev/null` afterwards).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod start_state {
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Set once, before `main`, when descriptor 1 was closed.
    pub(super) static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn record() {
        // SAFETY: F_GETFD on a descriptor number only reads the process's descriptor table (-1 with
        // EBADF when it is closed); it touches no memory of ours and needs no initialized runtime.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, Ordering::Relaxed);
    }

    /// The constructor entry. The C runtime calls `.init_array` entries as `fn(argc, argv, envp)`;
    /// a function taking no arguments ignores them (C calling convention, caller cleans up).
    /// `STDOUT_CLOSED` is read by `reopened_by_runtime`, so the object file holding this entry is
    /// linked whenever standard output is written through this module.
    // SAFETY: the section holds only this function pointer, which is valid for the whole program.
    #[used]
    #[unsafe(link_section = ".init_array")]
    static RECORD: extern "C" fn() = record;
}

/// Whether the user may not write the regular file `path`: it has no write bit at all (also for the
/// superuser, who could write it anyway), or the user's effective identity has no write permission.
#[cfg(unix)]
#[allow(unsafe_code)]
fn write_protected(path: &Path, m: &std::fs::Metadata) -> bool {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    if m.permissions().mode() & 0o222 == 0 {
        return true;
    }
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: `c` is a NUL-terminated string that outlives the call; faccessat only reads it.
    let r = unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EACCES)
}

#[cfg(not(unix))]
fn write_protected(_path: &Path, m: &std::fs::Metadata) -> bool {
    m.permissions().readonly()
}

/// Whether `path` must be written in place: it exists and is not a regular file (FIFO, device,
/// socket; symlinks followed), it is a process file, or it is a symbolic link directly in `/dev` or
/// `/dev/fd` (the standard streams: `/dev/stdout` leads through `/proc/self/fd` to whatever a shell
/// redirected to). A user's link inside a file system mounted below `/dev` (`/dev/shm/...`) is an
/// ordinary link, followed to the file it names.
fn in_place(path: &Path) -> bool {
    let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    let stream_dir = path.parent().is_some_and(|d| d == Path::new("/dev") || d == Path::new("/dev/fd"));
    let dev_link = stream_dir && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    special || dev_link || path.starts_with("/proc")
}

fn write_in_place<F>(path: &Path, fill: F) -> std::io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    let f = std::fs::OpenOptions::new().append(true).open(path)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
    fill(&mut w)?;
    w.flush()
}

/// Follows symbolic links (also dangling ones, whose target is then created) to the path to replace,
/// stopping at the first path that must be written in place.
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        if in_place(&p) {
            return Ok(p); // a link through `/dev` or `/proc` is written where it stands
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)?;
                p = if t.is_absolute() { t } else { p.parent().unwrap_or(Path::new(".")).join(t) };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Removes the temporary file unless disarmed (on success the rename consumed it), then takes it off
/// the list the signal handler removes.
struct TempGuard {
    path: Option<PathBuf>,
    #[cfg(unix)]
    _registered: Option<signal_cleanup::Registration>,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = std::fs::remove_file(p);
        }
        // `_registered` drops after this body: the file is gone before the handler forgets it.
    }
}

/// The longest file name most file systems take (Linux's `NAME_MAX`), in bytes.
const NAME_MAX: usize = 255;
/// Room for what follows a temporary name's prefix: a process id (at most 10 digits), `-` and a
/// counter (at most 20 digits).
const TEMP_SUFFIX_MAX: usize = 10 + 1 + 20;

/// The prefix of the temporary files of a target named `name`: `.NAME.tmp`, or, when a temporary
/// name would exceed [`NAME_MAX`], `.HEAD~HASH.tmp` with HEAD the first bytes of the name (cut at a
/// character boundary) and HASH 16 hex digits of the whole name, so it stays unique to the target
/// and [`remove_stale_temps`] finds it.
fn temp_prefix(name: &OsStr) -> OsString {
    let bytes = name.as_encoded_bytes();
    if 1 + bytes.len() + 4 + TEMP_SUFFIX_MAX <= NAME_MAX {
        let mut p = OsString::from(".");
        p.push(name);
        p.push(".tmp");
        return p;
    }
    let mut cut = NAME_MAX - TEMP_SUFFIX_MAX - (1 + 1 + 16 + 4);
    // Cut before a UTF-8 continuation byte never: back up to the start of a character.
    while cut > 0 && (bytes[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    let mut p = b".".to_vec();
    p.extend_from_slice(&bytes[..cut]);
    p.extend_from_slice(format!("~{:016x}.tmp", fnv1a64(bytes)).as_bytes());
    os_from_bytes(p)
}

#[cfg(unix)]
fn os_from_bytes(b: Vec<u8>) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(b)
}

#[cfg(not(unix))]
fn os_from_bytes(b: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&b).into_owned())
}

/// FNV-1a, 64 bits: a fixed hash (the same in every process, unlike the standard library's).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn replace_atomically<F>(path: &Path, fill: F) -> std::io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"))?;
    let old = std::fs::metadata(path).ok();
    if old.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"));
    }
    let prefix = temp_prefix(file_name);
    remove_stale_temps(dir, &prefix);
    let mut tmp_name = prefix;
    tmp_name.push(format!("{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let tmp = dir.join(tmp_name);
    // Registered before it exists, so no moment has the file on disk and unknown to the handler.
    let mut guard = TempGuard {
        #[cfg(unix)]
        _registered: signal_cleanup::register(&tmp),
        path: None,
    };
    let f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    guard.path = Some(tmp.clone());
    if let Some(m) = old.as_ref().filter(|m| m.is_file()) {
        keep_owner(&f, m);
        f.set_permissions(m.permissions())?; // after the owner: a change of owner clears set-id bits
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
    fill(&mut w)?;
    let f = w.into_inner().map_err(|e| e.into_error())?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    guard.path = None;
    drop(guard);
    sync_dir(dir)
}

/// Gives the new file the owner and group of the file it replaces where permitted (the superuser; a
/// user may still set a group they belong to); otherwise the new file keeps the writer's, and only the
/// mode is carried over.
#[cfg(unix)]
fn keep_owner(f: &std::fs::File, old: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let Ok(new) = f.metadata() else { return };
    if (new.uid(), new.gid()) == (old.uid(), old.gid()) {
        return;
    }
    if std::os::unix::fs::fchown(f, Some(old.uid()), Some(old.gid())).is_err() && new.gid() != old.gid() {
        let _ = std::os::unix::fs::fchown(f, None, Some(old.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_f: &std::fs::File, _old: &std::fs::Metadata) {}

/// Syncs a directory so a rename in it survives a crash (a no-op where directories cannot be opened).
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::File::open(dir) {
        Ok(d) => match d.sync_all() {
            Err(e) if e.raw_os_error() == Some(22) => Ok(()), // EINVAL: the file system cannot
            r => r,
        },
        Err(_) => Ok(()),
    }
}

/// Removes `PREFIX<pid>[-<n>]` files of processes that no longer exist (Linux: no `/proc/<pid>`).
fn remove_stale_temps(dir: &Path, prefix: &OsStr) {
    if !Path::new("/proc/self").exists() {
        return; // cannot tell which processes are alive
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefix = prefix.as_encoded_bytes();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.as_encoded_bytes().strip_prefix(prefix) else { continue };
        let pid = rest.split(|&b| b == b'-').next().unwrap_or(&[]);
        if pid.is_empty() || !pid.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let Ok(pid) = std::str::from_utf8(pid) else { continue };
        let alive = Path::new("/proc").join(pid).exists();
        if !alive && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.created().ok() == b.created().ok()
}

/// Removal of in-flight temporary files when the process is ended by SIGINT, SIGTERM or SIGHUP.
///
/// The live temporary paths sit in a fixed table of [`SLOTS`] atomic pointers to NUL-terminated C
/// strings, built (allocated) by [`register`] outside any handler. The handler, installed once on the
/// first save for each of the three signals whose action is still the default (an ignored signal, as
/// under `nohup`, or a program's own handler is left alone), only loads the pointers, calls
/// `unlink`, restores the default action with `sigaction` and re-sends the signal with `raise`: it
/// allocates nothing and takes no lock, and `unlink`, `sigaction` and `raise` are async-signal-safe
/// (POSIX.1-2008, 2.4.3); the atomics are lock-free pointers. When the handler returns the re-sent
/// signal (blocked while the handler runs) is delivered with its default action, so the process ends
/// as it would have without the handler (a shell sees 128 + the signal number).
///
/// Memory safety of the strings: a [`Registration`] swaps its slot to null before freeing the string.
/// The handler first sets [`HANDLING`] and then loads the slots; the registration swaps and then
/// reads [`HANDLING`], and leaks the string instead of freeing it when it is set (the process is about
/// to end). All four operations are sequentially consistent, so either the handler's flag store comes
/// before the registration's flag load (the string is leaked, never freed under the handler), or the
/// registration's swap comes before the handler's load of that slot (the handler sees null). A
/// registration never frees a string it did not own: each slot is claimed by `compare_exchange` from
/// null. If the table is full, a save goes unregistered (its file is still removed on errors, and by
/// the next save of the same name after a kill).
#[cfg(unix)]
#[allow(unsafe_code)]
mod signal_cleanup {
    use std::ffi::CString;
    use std::path::Path;
    use std::ptr::null_mut;
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::SeqCst};

    /// How many saves at once can be cleaned up on a signal.
    const SLOTS: usize = 64;
    static PATHS: [AtomicPtr<libc::c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];
    /// Set by the handler before it reads [`PATHS`]; never cleared (the process ends).
    static HANDLING: AtomicBool = AtomicBool::new(false);
    static INSTALL: Once = Once::new();
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    /// A slot of [`PATHS`] holding a path this save owns; emptied (and the string freed) on drop.
    pub(super) struct Registration(usize);

    /// Lists `path` for removal on a signal (installing the handlers the first time); `None` when the
    /// path holds a NUL byte (no file can have it) or the table is full.
    pub(super) fn register(path: &Path) -> Option<Registration> {
        use std::os::unix::ffi::OsStrExt;
        INSTALL.call_once(install);
        let raw = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
        for (i, slot) in PATHS.iter().enumerate() {
            if slot.compare_exchange(null_mut(), raw, SeqCst, SeqCst).is_ok() {
                return Some(Registration(i));
            }
        }
        // SAFETY: `raw` came from `CString::into_raw` above and was stored nowhere.
        drop(unsafe { CString::from_raw(raw) });
        None
    }

    impl Drop for Registration {
        fn drop(&mut self) {
            let raw = PATHS[self.0].swap(null_mut(), SeqCst);
            if !raw.is_null() && !HANDLING.load(SeqCst) {
                // SAFETY: the slot was claimed with this pointer from `CString::into_raw` by `register`
                // and only this registration empties it; no handler can be using it (module comment).
                drop(unsafe { CString::from_raw(raw) });
            }
        }
    }

    extern "C" fn on_signal(sig: libc::c_int) {
        HANDLING.store(true, SeqCst);
        for slot in &PATHS {
            let p = slot.load(SeqCst);
            if !p.is_null() {
                // SAFETY: a non-null slot points to a NUL-terminated string that is not freed while
                // HANDLING is set (module comment); unlink is async-signal-safe.
                unsafe { libc::unlink(p) };
            }
        }
        die_of(sig);
    }

    /// Restores the default action of `sig` and sends it to this thread: the process ends as the
    /// signal ends it (delivered at once, or when a running handler for it returns).
    pub(super) fn die_of(sig: libc::c_int) {
        // SAFETY: a zeroed `sigaction` is a valid value (no flags, empty mask, SIG_DFL = 0);
        // sigaction and raise are async-signal-safe and only read the struct passed.
        unsafe {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&mut dfl.sa_mask);
            libc::sigaction(sig, &dfl, null_mut());
            libc::raise(sig);
        }
    }

    fn install() {
        for sig in SIGNALS {
            // SAFETY: the structs are valid zeroed `sigaction` values filled in below; the handler is
            // an `extern "C" fn(c_int)` as `sa_sigaction` without SA_SIGINFO requires.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut new.sa_mask);
                for s in SIGNALS {
                    libc::sigaddset(&mut new.sa_mask, s); // one cleanup at a time
                }
                new.sa_flags = libc::SA_RESTART;
                libc::sigaction(sig, &new, null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kern-write-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_regular_files_and_leaves_no_temp() {
        let d = dir("regular");
        let p = d.join("m.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(listing(&d), vec!["m.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn follows_symlinks_and_keeps_the_link() {
        let d = dir("symlink");
        let target = d.join("real.txt");
        std::fs::write(&target, b"old").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(listing(&d), vec!["link.txt", "real.txt"]);
    }

    #[test]
    fn failure_leaves_target_and_no_temp() {
        let d = dir("fail");
        let sub = d.join("sub");
        std::fs::create_dir(&sub).unwrap();
        // A directory in the way: the rename fails, the temp file must go.
        assert!(write_atomic(&sub, b"x").is_err());
        assert_eq!(listing(&d), vec!["sub"]);
        assert!(write_atomic(&d.join("missing/x.txt"), b"x").is_err());
        assert_eq!(listing(&d), vec!["sub"]);
        // A writer that fails half-way: the target keeps its content, no temp is left.
        let p = d.join("m.txt");
        std::fs::write(&p, b"old").unwrap();
        let r = write_file_with(&p, &WriteOptions::default(), |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("generator failed"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(listing(&d), vec!["m.txt", "sub"]);
    }

    #[test]
    fn stale_temps_of_dead_processes_are_removed() {
        let d = dir("stale");
        // pid 4194304 is above Linux's maximum pid, so it is never alive.
        std::fs::write(d.join(".m.txt.tmp4194304"), b"junk").unwrap();
        std::fs::write(d.join(".m.txt.tmp4194304-3"), b"junk").unwrap();
        let own = format!(".m.txt.tmp{}-999999", std::process::id());
        std::fs::write(d.join(&own), b"in flight").unwrap();
        std::fs::write(d.join(".other.tmp4194304"), b"not ours").unwrap();
        write_atomic(&d.join("m.txt"), b"ok").unwrap();
        let mut want = vec![".other.tmp4194304".to_string(), own, "m.txt".into()];
        want.sort();
        if Path::new("/proc/self").exists() {
            assert_eq!(listing(&d), want);
        }
    }

    /// Temporary names of long targets stay within NAME_MAX, differ between targets that share their
    /// first 200 bytes, and their stale files are found by the next save of the same target.
    #[test]
    fn long_names_get_short_temp_names_that_are_still_cleaned() {
        let long_a = format!("{}a.txt", "é".repeat(120)); // 246 bytes, two-byte characters
        let long_b = format!("{}b.txt", "é".repeat(120));
        let pa = temp_prefix(OsStr::new(&long_a));
        let pb = temp_prefix(OsStr::new(&long_b));
        assert_ne!(pa, pb);
        assert!(pa.len() + TEMP_SUFFIX_MAX <= NAME_MAX, "{} bytes", pa.len());
        assert!(pa.to_str().is_some(), "cut at a character boundary");
        assert_eq!(temp_prefix(OsStr::new("m.txt")), OsStr::new(".m.txt.tmp"));
        let d = dir("longstale");
        let mut stale = pa.clone();
        stale.push("4194304-1");
        std::fs::write(d.join(&stale), b"junk").unwrap();
        write_atomic(&d.join(&long_a), b"ok").unwrap();
        if Path::new("/proc/self").exists() {
            assert_eq!(listing(&d), vec![long_a]);
        }
    }

    #[cfg(unix)]
    #[test]
    fn character_devices_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        let full = Path::new("/dev/full");
        if full.exists() {
            assert!(write_atomic(full, b"no space").is_err());
            assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
        }
    }

    /// A `tmpfs` under `/dev` holds ordinary files: a new one is created, an existing one replaced,
    /// and no temporary file is left; a user's link to a device is followed and written in place.
    #[cfg(unix)]
    #[test]
    fn regular_files_under_dev_are_ordinary_files() {
        use std::os::unix::fs::FileTypeExt;
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            let name = format!("kern-io-test-{}", std::process::id());
            let p = shm.join(&name);
            write_atomic(&p, b"one").unwrap();
            write_atomic(&p, b"two").unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"two");
            // A user's link there is followed: its target is replaced, not appended to.
            let link = shm.join(format!("{name}-link"));
            std::os::unix::fs::symlink(&p, &link).unwrap();
            write_atomic(&link, b"three").unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read(&p).unwrap(), b"three");
            std::fs::remove_file(&link).unwrap();
            std::fs::remove_file(&p).unwrap();
            let leftovers = std::fs::read_dir(shm)
                .unwrap()
                .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(&name))
                .count();
            assert_eq!(leftovers, 0);
        }
        let d = dir("devlink");
        let link = d.join("null-link");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        write_atomic(&link, b"discarded").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn output_equal_to_input_is_refused() {
        let d = dir("clobber");
        let data = d.join("data.svm");
        std::fs::write(&data, b"1 1:1\n").unwrap();
        let other_spelling = d.join(".").join("data.svm");
        assert!(matches!(ensure_distinct(&other_spelling, &[&data]), Err(CoreError::Clobber { .. })));
        assert!(ensure_distinct(&d.join("model.kern"), &[&data]).is_ok());
    }
}
