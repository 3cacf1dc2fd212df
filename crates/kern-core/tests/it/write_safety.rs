//! Output files: replacing keeps mode and owner, write-protected files are refused unless forced, long
//! names save, signals during a save leave no temporary file, standard output is recognized under its
//! aliases and written through descriptor 1, and a broken pipe or a closed standard output is an error.
//!
//! The cases about signals and standard output run a child process: this test binary again, with
//! `KERN_WRITE_CHILD` naming what the child does (see [`child`]).

#![cfg(unix)]

use kern_core::CoreError;
use kern_core::io::{
    WriteOptions, ensure_distinct, exit_broken_pipe, is_stdout, write_atomic, write_file, write_file_with,
    write_stdout,
};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kern-core-write-{name}-{}", std::process::id()));
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

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// This test binary, running only [`child`] with `KERN_WRITE_CHILD=what`.
fn child_command(what: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "write_safety::child", "--nocapture", "--test-threads=1"])
        .env("KERN_WRITE_CHILD", what);
    c
}

/// Exit codes of the child: what `write_stdout` returned.
const OK: i32 = 0;
const CLOSED: i32 = 3;
const OTHER: i32 = 5;

fn code_of(r: kern_core::Result<()>) -> i32 {
    match r {
        Ok(()) => OK,
        Err(CoreError::StdoutClosed) => CLOSED,
        Err(CoreError::BrokenPipe) => exit_broken_pipe(),
        Err(_) => OTHER,
    }
}

/// The child process's side of the cases below; does nothing in a normal test run.
#[test]
fn child() {
    let Ok(what) = std::env::var("KERN_WRITE_CHILD") else { return };
    let path = std::env::var_os("KERN_WRITE_PATH").map(PathBuf::from);
    let code = match what.as_str() {
        // A save that never ends on its own: 64 KiB every 5 ms until killed (or 60 s).
        "slow-save" => {
            let start = Instant::now();
            let r = write_file_with(&path.unwrap(), &WriteOptions::default(), |w| {
                while start.elapsed() < Duration::from_secs(60) {
                    w.write_all(&[b'x'; 1 << 16])?;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok(())
            });
            if r.is_ok() { 1 } else { 2 }
        }
        "stdout-write" => code_of(write_stdout(b"payload\n")),
        // Writes until the reader goes away (a reader that never does ends the child after ~640 MiB).
        "pipe-writer" => {
            let mut r = write_stdout(b"READY\n");
            for _ in 0..10_000 {
                if r.is_err() {
                    break;
                }
                r = write_stdout(&[b'y'; 1 << 16]);
            }
            code_of(r)
        }
        "output-then-summary" => {
            let r = write_atomic(Path::new("/dev/stdout"), b"OUTPUT\n");
            code_of(r.and_then(|()| write_stdout(b"SUMMARY\n")))
        }
        // Standard output is redirected (appending) to KERN_WRITE_PATH.
        "stdout-is-file" => {
            let p = path.unwrap();
            let seen = is_stdout(&p) && !is_stdout(&p.with_extension("other"));
            let refused =
                matches!(ensure_distinct(Path::new("/dev/stdout"), &[&p]), Err(CoreError::Clobber { .. }));
            if seen && refused { OK } else { OTHER }
        }
        other => panic!("unknown child case {other}"),
    };
    std::process::exit(code);
}

#[test]
fn replacing_a_file_keeps_its_mode_and_owner() {
    let d = dir("mode");
    let p = d.join("model.kern");
    std::fs::write(&p, b"old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    // As the superuser the file can belong to someone else; otherwise it stays ours.
    let _ = std::os::unix::fs::chown(&p, Some(12345), Some(12346));
    let before = std::fs::metadata(&p).unwrap();
    write_atomic(&p, b"new").unwrap();
    let after = std::fs::metadata(&p).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"new");
    assert_ne!(before.ino(), after.ino(), "replaced, not rewritten");
    assert_eq!(mode(&p), 0o640);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_eq!(listing(&d), ["model.kern"]);
}

#[test]
fn write_protected_files_are_refused_unless_forced() {
    let d = dir("protected");
    let p = d.join("model.kern");
    std::fs::write(&p, b"old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let link = d.join("link.kern");
    std::os::unix::fs::symlink("model.kern", &link).unwrap();
    for target in [&p, &link] {
        let err = write_atomic(target, b"new").unwrap_err();
        assert!(matches!(&err, CoreError::WriteProtected { path } if path == target), "{err}");
        let msg = err.to_string();
        assert!(msg.contains("write-protected") && msg.contains("with_force"), "{msg}");
    }
    assert_eq!(std::fs::read(&p).unwrap(), b"old");
    assert_eq!(listing(&d), ["link.kern", "model.kern"]);
    write_file(&link, b"forced", &WriteOptions::new().with_force(true)).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"forced");
    assert_eq!(mode(&p), 0o444, "forced replacement keeps the mode");
    assert_eq!(listing(&d), ["link.kern", "model.kern"]);
    // A new file and a writable one need no force.
    write_atomic(&d.join("new.kern"), b"x").unwrap();
    write_atomic(&d.join("new.kern"), b"y").unwrap();
}

#[test]
fn names_up_to_255_bytes_save_and_leave_no_temp() {
    let d = dir("long");
    for len in [200, 230, 250, 255] {
        let name = format!("{}.txt", "m".repeat(len - 4));
        let p = d.join(&name);
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two", "{len} bytes");
        assert_eq!(listing(&d), std::slice::from_ref(&name), "{len} bytes");
        std::fs::remove_file(&p).unwrap();
    }
}

/// SIGTERM, SIGINT or SIGHUP in the middle of a save: the process dies of the signal, the temporary
/// file is gone and the target keeps its old content.
#[test]
fn a_signal_during_a_save_removes_the_temp_file() {
    for (name, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let d = dir(&format!("signal-{name}"));
        let target = d.join("model.kern");
        std::fs::write(&target, b"original").unwrap();
        // Through `env --default-signal` (GNU coreutils): a test run started in the background of a
        // script inherits SIGINT ignored, which the save (rightly, as under `nohup`) leaves alone.
        let child = child_command("slow-save");
        let mut c = Command::new("env")
            .arg("--default-signal=INT,TERM,HUP")
            .arg(child.get_program())
            .args(child.get_args())
            .envs(child.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .env("KERN_WRITE_PATH", &target)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let temp_started = || {
            std::fs::read_dir(&d).unwrap().flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with(".model.kern.tmp")
                    && e.metadata().is_ok_and(|m| m.len() > 0)
            })
        };
        while !temp_started() {
            assert!(Instant::now() < deadline, "the child never started writing");
            assert!(c.try_wait().unwrap().is_none(), "the child ended before the signal");
            std::thread::sleep(Duration::from_millis(10));
        }
        let kill = Command::new("kill").args(["-s", name, &c.id().to_string()]).status().unwrap();
        assert!(kill.success());
        let status = c.wait().unwrap();
        assert_eq!(status.signal(), Some(number), "SIG{name}: {status}");
        assert_eq!(listing(&d), ["model.kern"], "SIG{name} left a temporary file");
        assert_eq!(std::fs::read(&target).unwrap(), b"original");
    }
}

#[test]
fn standard_output_is_recognized_under_its_names() {
    for name in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        assert!(is_stdout(Path::new(name)), "{name}");
    }
    if Path::new("/proc/self/fd/1").exists() {
        assert!(is_stdout(&PathBuf::from(format!("/proc/{}/fd/1", std::process::id()))));
    }
    let d = dir("stdout-names");
    let p = d.join("out.txt");
    std::fs::write(&p, b"x").unwrap();
    assert!(!is_stdout(&p));
    assert!(!is_stdout(Path::new("/dev/stderr-not-a-file")));
    assert!(!is_stdout(&d.join("missing")));
}

/// A file standard output is redirected to is standard output under its own name too, and
/// `/dev/stdout` is then that file for [`ensure_distinct`].
#[test]
fn a_file_standard_output_is_redirected_to_is_standard_output() {
    let d = dir("stdout-file");
    let data = d.join("data.svm");
    std::fs::write(&data, b"1 1:1\n").unwrap();
    let append = std::fs::OpenOptions::new().append(true).open(&data).unwrap();
    let status =
        child_command("stdout-is-file").env("KERN_WRITE_PATH", &data).stdout(append).status().unwrap();
    assert_eq!(status.code(), Some(OK), "{status}");
}

/// `--out /dev/stdout > file` then a summary line: the output comes first, the summary after it.
#[test]
fn output_to_dev_stdout_is_followed_by_what_is_printed_next() {
    let d = dir("stdout-order");
    let out = d.join("captured.txt");
    let f = std::fs::File::create(&out).unwrap();
    let status = child_command("output-then-summary").stdout(f).status().unwrap();
    assert_eq!(status.code(), Some(OK), "{status}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.ends_with("OUTPUT\nSUMMARY\n"), "{text:?}");
    assert_eq!(text.matches("OUTPUT").count(), 1, "{text:?}");
}

/// A reader that goes away (`... | head -1`): the writer gets `BrokenPipe` (no panic), and
/// `exit_broken_pipe` ends it by SIGPIPE.
#[test]
fn a_closed_reader_is_a_broken_pipe() {
    let mut c = child_command("pipe-writer").stdout(Stdio::piped()).spawn().unwrap();
    let mut out = c.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("READY") {
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "the child ended before writing: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    drop(out);
    let status = c.wait().unwrap();
    assert_eq!(status.signal(), Some(13), "ended by SIGPIPE: {status}");
}

/// A standard output closed by the shell (`>&-`) is an error, never a silent success; a redirection to
/// `/dev/null`, write-only or read-write (as Python's `subprocess.DEVNULL` opens it), is a normal output.
#[test]
fn a_closed_standard_output_is_an_error() {
    let exe = std::env::current_exe().unwrap();
    let run = |redirect: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("exec \"$0\" --exact write_safety::child --nocapture --test-threads=1 {redirect}"))
            .arg(&exe)
            .env("KERN_WRITE_CHILD", "stdout-write")
            .status()
            .unwrap()
    };
    let closed = run(">&-");
    assert_eq!(closed.code(), Some(CLOSED), "{closed}");
    for redirect in [">/dev/null", "1<>/dev/null"] {
        let null = run(redirect);
        assert_eq!(null.code(), Some(OK), "{redirect}: {null}");
    }
}

#[test]
fn hard_links_and_descriptor_aliases_of_an_input_are_refused() {
    let d = dir("aliases");
    let data = d.join("data.svm");
    std::fs::write(&data, b"1 1:1\n").unwrap();
    let hard = d.join("hard.svm");
    std::fs::hard_link(&data, &hard).unwrap();
    assert!(matches!(ensure_distinct(&hard, &[&data]), Err(CoreError::Clobber { .. })));
    // `/dev/fd/N` and `/proc/self/fd/N` of an open input lead to the input.
    let f = std::fs::File::open(&data).unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
    for alias in [format!("/dev/fd/{fd}"), format!("/proc/self/fd/{fd}")] {
        if Path::new(&alias).exists() {
            let r = ensure_distinct(Path::new(&alias), &[&data]);
            assert!(matches!(r, Err(CoreError::Clobber { .. })), "{alias}");
        }
    }
    // A copy is another file.
    let copy = d.join("copy.svm");
    std::fs::copy(&data, &copy).unwrap();
    assert!(ensure_distinct(&copy, &[&data]).is_ok());
}
