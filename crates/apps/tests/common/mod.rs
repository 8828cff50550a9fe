//! What the applications' integration tests share.

/// A reader of `prefix` and then of `byte` without end, counting the bytes
/// it gives.
pub(crate) struct Endless {
    /// What it gives first.
    pub(crate) prefix: &'static [u8],
    /// What it gives then, without end.
    pub(crate) byte: u8,
    /// The bytes given so far.
    pub(crate) given: u64,
}

impl std::io::Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = if self.prefix.is_empty() {
            buf.fill(self.byte);
            buf.len()
        } else {
            let n = self.prefix.len().min(buf.len());
            buf[..n].copy_from_slice(&self.prefix[..n]);
            self.prefix = &self.prefix[n..];
            n
        };
        self.given += n as u64;
        Ok(n)
    }
}
