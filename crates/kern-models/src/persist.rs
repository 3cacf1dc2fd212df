//! Model persistence (docs/architecture.md, "Persistence"): a 40-byte header followed by a bincode 2
//! payload.
//!
//! Header layout (40 bytes, little endian): bytes 0..8 the magic `b"KERNMODL"`, 8..12 the format
//! version (`u32`), 12..24 the model kind (ASCII, zero padded), 24..32 the payload length (`u64`), 32..40
//! the FNV-1a 64-bit checksum of the payload. Files are written to a temporary
//! file and renamed ([`kern_core::io::write_atomic`]), so a failed save never leaves a half-written model;
//! loading checks every header field and returns [`ModelsError::Format`], never panics.
//!
//! ```
//! use kern_models::krr::{KernelRidge, KernelRidgeParams};
//! use kern_models::persist::{HEADER_LEN, from_bytes, load, peek_kind, read, save};
//! use kern_models::{Fit, RealTargets, Samples};
//! let x = Samples::from_rows(&[[0.0], [1.0], [2.0], [3.0]])?;
//! let y = RealTargets::new(vec![0.0, 1.0, 0.0, 1.0])?;
//! let m = KernelRidgeParams::new("gaussian:sigma=1".parse()?).lambda(0.1).fit(&x, &y)?;
//! let p = std::env::temp_dir().join(format!("kern-doc-persist-{}.kern", std::process::id()));
//! save(&p, &m)?;
//! assert_eq!(load::<KernelRidge>(&p)?, m); // the same model back
//! let mut bytes = read(&p)?;
//! # let _ = std::fs::remove_file(&p);
//! assert_eq!(peek_kind(&bytes, "m.kern")?, "krr");
//! bytes[HEADER_LEN] ^= 1; // one flipped payload bit: the checksum refuses it
//! assert!(from_bytes::<KernelRidge>(&bytes, "m.kern").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::borrowed_strings::Borrowing;
use crate::error::{ModelsError, Result};
use serde::{Serialize, de::DeserializeOwned};
use std::path::Path;

/// The magic bytes at the start of every kern model file.
///
/// ```
/// use kern_models::persist::{to_bytes, Persist, FORMAT_VERSION, HEADER_LEN, MAGIC};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// let bytes = to_bytes(&M { b: 1.0 })?;
/// assert_eq!(&bytes[..8], MAGIC);
/// assert_eq!(bytes[8..12], FORMAT_VERSION.to_le_bytes());
/// assert_eq!(bytes.len(), HEADER_LEN + 8); // the payload: one f64
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub const MAGIC: &[u8; 8] = b"KERNMODL";
/// The current format version (3: each SVM machine's figures carry its plan; 2: samples stored as
/// dense or sparse, tagged). Files of another version are refused with a message naming both.
///
/// ```
/// use kern_models::persist::{from_bytes, to_bytes, Persist, FORMAT_VERSION};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// let mut bytes = to_bytes(&M { b: 1.0 })?;
/// bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
/// assert!(from_bytes::<M>(&bytes, "m.kern").unwrap_err().to_string().contains("format version"));
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub const FORMAT_VERSION: u32 = 3;
/// Header length in bytes.
///
/// ```
/// use kern_models::persist::{peek_kind, HEADER_LEN};
/// assert!(peek_kind(&[0u8; HEADER_LEN - 1], "short.kern").is_err());
/// ```
pub const HEADER_LEN: usize = 40;

/// A model that can be stored: its kind tag (at most 12 ASCII bytes) names the payload type.
///
/// ```
/// use kern_models::persist::{from_bytes, to_bytes, Persist};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Mean { value: f64 }
/// impl Persist for Mean {
///     const KIND: &'static str = "mean";
///     fn validate(&self) -> Result<(), String> {
///         if self.value.is_finite() { Ok(()) } else { Err("mean is not finite".into()) }
///     }
/// }
/// let ok = to_bytes(&Mean { value: 2.5 })?;
/// assert_eq!(from_bytes::<Mean>(&ok, "<bytes>")?, Mean { value: 2.5 });
/// let bad = to_bytes(&Mean { value: f64::NAN })?;
/// assert!(from_bytes::<Mean>(&bad, "<bytes>").is_err()); // validate refuses it
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub trait Persist: Serialize + DeserializeOwned {
    /// The kind tag written into the header, e.g. `"svc"`.
    const KIND: &'static str;

    /// Checks a decoded model before use: lengths consistent, indices in range, numbers finite, and
    /// the payload what [`Persist::KIND`] says it is. [`from_bytes`] calls it and turns a failure into
    /// [`ModelsError::Format`], so a crafted file is an error, never a panic.
    fn validate(&self) -> std::result::Result<(), String>;
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn kind_bytes(kind: &str) -> [u8; 12] {
    let mut k = [0u8; 12];
    // Kind tags are compile-time constants of at most 12 ASCII bytes; longer ones are cut.
    let b = kind.as_bytes();
    let n = b.len().min(12);
    k[..n].copy_from_slice(&b[..n]);
    k
}

/// Encodes a model (header + payload) into bytes.
///
/// ```
/// use kern_models::persist::{to_bytes, from_bytes, Persist};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { w: Vec<f64> }
/// impl Persist for M {
///     const KIND: &'static str = "demo";
///     fn validate(&self) -> Result<(), String> {
///         if self.w.iter().all(|v| v.is_finite()) { Ok(()) } else { Err("non-finite weight".into()) }
///     }
/// }
/// let bytes = to_bytes(&M { w: vec![1.5, -2.0] })?;
/// assert_eq!(from_bytes::<M>(&bytes, "<bytes>")?, M { w: vec![1.5, -2.0] });
/// assert!(from_bytes::<M>(&bytes[..bytes.len() - 1], "<bytes>").is_err()); // truncated
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn to_bytes<M: Persist>(model: &M) -> Result<Vec<u8>> {
    let payload = bincode::serde::encode_to_vec(model, bincode::config::standard()).map_err(|e| {
        ModelsError::Format { path: "<bytes>".into(), reason: format!("encoding failed: {e}") }
    })?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&kind_bytes(M::KIND));
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Reads the kind tag of a model file's bytes after checking magic and version (to dispatch on it).
///
/// ```
/// use kern_models::persist::{peek_kind, to_bytes, Persist};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// assert_eq!(peek_kind(&to_bytes(&M { b: 0.0 })?, "<bytes>")?, "demo");
/// assert!(peek_kind(b"not a model file, just some text", "<bytes>").is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn peek_kind(bytes: &[u8], path: &str) -> Result<String> {
    let err = |reason: String| ModelsError::Format { path: path.into(), reason };
    if bytes.len() < HEADER_LEN {
        return Err(err(format!("{} bytes is shorter than the {HEADER_LEN}-byte header", bytes.len())));
    }
    if &bytes[..8] != MAGIC {
        return Err(err("bad magic (not a kern model file)".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(err(format!("format version {version}, this build reads {FORMAT_VERSION}")));
    }
    let kind = &bytes[12..24];
    let end = kind.iter().position(|&b| b == 0).unwrap_or(12);
    if kind[end..].iter().any(|&b| b != 0) {
        return Err(err("kind tag padding is not zero (corrupted header)".into()));
    }
    std::str::from_utf8(&kind[..end]).map(str::to_string).map_err(|_| err("kind tag is not ASCII".into()))
}

/// Decodes a model from bytes, checking magic, version, kind, length and checksum.
///
/// ```
/// use kern_models::persist::{from_bytes, to_bytes, Persist, HEADER_LEN};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// let mut bytes = to_bytes(&M { b: 0.5 })?;
/// assert_eq!(from_bytes::<M>(&bytes, "<bytes>")?, M { b: 0.5 });
/// bytes[HEADER_LEN] ^= 1; // one flipped payload bit fails the checksum
/// assert!(from_bytes::<M>(&bytes, "<bytes>").is_err());
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn from_bytes<M: Persist>(bytes: &[u8], path: &str) -> Result<M> {
    let err = |reason: String| ModelsError::Format { path: path.into(), reason };
    let kind = peek_kind(bytes, path)?;
    if kind != M::KIND {
        return Err(err(format!("holds a {kind:?} model, expected {:?}", M::KIND)));
    }
    let len = u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
    let sum = u64::from_le_bytes(bytes[32..40].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(err(format!(
            "payload is {} bytes, header says {len} (truncated or padded)",
            payload.len()
        )));
    }
    if fnv1a64(payload) != sum {
        return Err(err("checksum mismatch (corrupted)".into()));
    }
    decode_payload(payload, path)
}

/// Decodes and checks a payload without its header (also the format the Python package gave a
/// pickled FVS feature map before that map had a kind of its own).
pub(crate) fn decode_payload<M: Persist>(payload: &[u8], path: &str) -> Result<M> {
    let err = |reason: String| ModelsError::Format { path: path.into(), reason };
    let (m, used): (M, usize) =
        decode_bincode(payload).map_err(|e| err(format!("payload does not decode: {e}")))?;
    if used != payload.len() {
        return Err(err(format!("{} trailing payload bytes", payload.len() - used)));
    }
    m.validate().map_err(|reason| err(format!("inconsistent {} model: {reason}", M::KIND)))?;
    Ok(m)
}

/// Decodes a payload. Strings and byte buffers are read by borrowing them from the payload
/// ([`Borrowing`]), so a crafted length field (a string or vector claiming 10¹⁸ bytes) is a decoding
/// error instead of an allocation abort, without a byte limit.
fn decode_bincode<M: serde::de::DeserializeOwned>(
    payload: &[u8],
) -> std::result::Result<(M, usize), bincode::error::DecodeError> {
    bincode::serde::seed_decode_from_slice(
        Borrowing(std::marker::PhantomData::<M>),
        payload,
        bincode::config::standard(),
    )
}

/// Saves a model atomically (temporary file + rename).
///
/// ```
/// use kern_models::persist::{save, load, Persist};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// let p = std::env::temp_dir().join("kern-doc-model.kern");
/// save(&p, &M { b: 0.25 })?;
/// assert_eq!(load::<M>(&p)?, M { b: 0.25 });
/// # let _ = std::fs::remove_file(&p);
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn save<M: Persist>(path: &Path, model: &M) -> Result<()> {
    write_bytes(path, &to_bytes(model)?)
}

/// Writes a model file's bytes atomically (temporary file + rename).
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    kern_core::io::write_atomic(path, bytes).map_err(|e| match e {
        kern_core::CoreError::Io { path, source } => {
            ModelsError::Io { path: path.display().to_string(), source }
        }
        other => ModelsError::Core(other),
    })
}

/// Loads a model saved by [`save`].
///
/// ```
/// use kern_models::persist::{load, save, Persist};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// let p = std::env::temp_dir().join(format!("kern-doc-load-{}.kern", std::process::id()));
/// save(&p, &M { b: -1.5 })?;
/// let m: M = load(&p)?;
/// # let _ = std::fs::remove_file(&p);
/// assert_eq!(m, M { b: -1.5 });
/// assert!(load::<M>(&p).is_err()); // gone: an I/O error, not a panic
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn load<M: Persist>(path: &Path) -> Result<M> {
    let bytes = read(path)?;
    from_bytes(&bytes, &path.display().to_string())
}

/// Reads a model file's bytes (for [`peek_kind`] dispatch).
///
/// ```
/// use kern_models::persist::{peek_kind, read, save, Persist};
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct M { b: f64 }
/// impl Persist for M { const KIND: &'static str = "demo"; fn validate(&self) -> Result<(), String> { Ok(()) } }
/// let p = std::env::temp_dir().join(format!("kern-doc-read-{}.kern", std::process::id()));
/// save(&p, &M { b: 3.0 })?;
/// let bytes = read(&p)?;
/// # let _ = std::fs::remove_file(&p);
/// assert_eq!(peek_kind(&bytes, "m.kern")?, "demo");
/// # Ok::<(), kern_models::ModelsError>(())
/// ```
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| ModelsError::Io { path: path.display().to_string(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crafted_length_field_is_an_error_not_an_allocation_abort() {
        // bincode's varint 0xFD prefix then a u64: a string claiming 2^63 - 1 bytes in a 9-byte payload
        // (found by the fuzz driver through a model's kernel spec; it aborted allocating 7e18 bytes).
        let mut payload = vec![0xFD];
        payload.extend_from_slice(&(u64::MAX >> 1).to_le_bytes());
        assert!(decode_bincode::<String>(&payload).is_err());
        let mut v = vec![0xFD];
        v.extend_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(decode_bincode::<Vec<f64>>(&v).is_err());
        // Small indices are one byte each on disk and eight in memory: 100,000 of them still decode.
        let small =
            bincode::serde::encode_to_vec(vec![3usize; 100_000], bincode::config::standard()).unwrap();
        assert!(small.len() < 100_010);
        assert_eq!(decode_bincode::<Vec<usize>>(&small).unwrap().0.len(), 100_000);
        // A payload that is what it claims still decodes.
        let ok = bincode::serde::encode_to_vec("gaussian:sigma=1", bincode::config::standard()).unwrap();
        assert_eq!(decode_bincode::<String>(&ok).unwrap().0, "gaussian:sigma=1");
    }

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct M {
        w: Vec<f64>,
        name: String,
    }
    impl Persist for M {
        const KIND: &'static str = "test";
        fn validate(&self) -> std::result::Result<(), String> {
            crate::validate::finite("w", &self.w)
        }
    }

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Other(u8);
    impl Persist for Other {
        const KIND: &'static str = "other";
        fn validate(&self) -> std::result::Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn invalid_payloads_are_format_errors() {
        let bytes = to_bytes(&M { w: vec![1.0, f64::NAN], name: "x".into() }).unwrap();
        let e = from_bytes::<M>(&bytes, "t").unwrap_err();
        assert!(e.to_string().contains("w[1] = NaN is not finite"), "{e}");
    }

    #[test]
    fn every_corruption_is_an_error() {
        let m = M { w: vec![1.0, 2.0, 3.0], name: "x".into() };
        let bytes = to_bytes(&m).unwrap();
        assert_eq!(from_bytes::<M>(&bytes, "t").unwrap(), m);
        for cut in 0..bytes.len() {
            assert!(from_bytes::<M>(&bytes[..cut], "t").is_err(), "truncated at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(from_bytes::<M>(&b, "t").is_err(), "flipped byte {i}");
        }
        assert!(from_bytes::<Other>(&bytes, "t").is_err());
        assert!(from_bytes::<M>(b"hello world, this is not a model at all....", "t").is_err());
    }

    #[test]
    fn failed_save_leaves_nothing() {
        let dir = std::env::temp_dir().join("kern-persist-test-missing-dir/deeper");
        let p = dir.join("m.kern");
        assert!(save(&p, &Other(1)).is_err());
        assert!(!p.exists());
    }
}
