//! The emission buffer: code bytes, labels and the fixups that refer to them.

/// A position in the code, bound once its offset is known.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label(pub u32);

/// How a fixup patches the code once its label's offset is known. The target defines the
/// meaning of `kind`.
#[derive(Copy, Clone, Debug)]
pub struct Fixup {
    /// Offset of the instruction that refers to the label.
    pub at: usize,
    pub label: Label,
    pub kind: u8,
}

#[derive(Clone, Debug, Default)]
pub struct MachBuffer {
    pub data: Vec<u8>,
    label_offsets: Vec<Option<usize>>,
    fixups: Vec<Fixup>,
}

impl MachBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn offset(&self) -> usize {
        self.data.len()
    }

    pub fn new_label(&mut self) -> Label {
        self.label_offsets.push(None);
        Label(self.label_offsets.len() as u32 - 1)
    }

    pub fn bind_label(&mut self, label: Label) {
        self.label_offsets[label.0 as usize] = Some(self.data.len());
    }

    pub fn put_bytes(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
    }

    /// Records that the instruction at `at` refers to `label`.
    pub fn use_label(&mut self, at: usize, label: Label, kind: u8) {
        self.fixups.push(Fixup { at, label, kind });
    }

    /// Resolves every fixup with `patch(code, fixup, label_offset)` and returns the code.
    pub fn finish(
        mut self,
        mut patch: impl FnMut(&mut [u8], &Fixup, usize) -> Result<(), String>,
    ) -> Result<Vec<u8>, String> {
        for fixup in &self.fixups {
            let target = self.label_offsets[fixup.label.0 as usize]
                .ok_or_else(|| format!("label {} was never bound", fixup.label.0))?;
            patch(&mut self.data, fixup, target)?;
        }
        Ok(self.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixups_see_their_label_offsets() {
        let mut buf = MachBuffer::new();
        let l = buf.new_label();
        buf.use_label(0, l, 0);
        buf.put_bytes(&[0; 8]);
        buf.bind_label(l);
        let code = buf
            .finish(|code, fixup, target| {
                code[fixup.at] = (target - fixup.at) as u8;
                Ok(())
            })
            .unwrap();
        assert_eq!(code[0], 8);
    }
}
