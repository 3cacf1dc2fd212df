//! Byte encoding of the values ranks send each other (little-endian, length-prefixed strings).

use crate::error::{DistError, Result};

/// Appends values to a message.
#[derive(Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn f64(&mut self, v: f64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn str(&mut self, s: &str) -> &mut Self {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    pub(crate) fn f64s(&mut self, v: &[f64]) -> &mut Self {
        self.u64(v.len() as u64);
        v.iter().for_each(|&x| {
            self.f64(x);
        });
        self
    }
}

/// Reads values back in the order they were written.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        if self.0.len() < n {
            return Err(DistError::Message(format!("{} bytes left, {n} expected", self.0.len())));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    pub(crate) fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    pub(crate) fn str(&mut self) -> Result<String> {
        let n = self.u64()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| DistError::Message("string not UTF-8".into()))
    }
    pub(crate) fn f64s(&mut self) -> Result<Vec<f64>> {
        let n = self.u64()? as usize;
        if n > self.0.len() / 8 {
            return Err(DistError::Message(format!("{n} values announced, {} bytes left", self.0.len())));
        }
        (0..n).map(|_| self.f64()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let mut w = Writer::default();
        w.u64(7).f64(-0.5).str("héllo").f64s(&[1.0, f64::NAN]);
        let mut r = Reader(&w.0);
        assert_eq!((r.u64().unwrap(), r.f64().unwrap(), r.str().unwrap()), (7, -0.5, "héllo".to_string()));
        let v = r.f64s().unwrap();
        assert!(v[0] == 1.0 && v[1].is_nan() && r.is_empty());
        assert!(Reader(&w.0[..5]).u64().is_err());
    }
}
