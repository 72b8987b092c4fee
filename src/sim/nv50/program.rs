//! The code being run: its words, and each program counter decoded once with the MC
//! layer's decoder (the same table as the encoder and the printer).

use crate::isa::nv50::mc::{self, DecodeError, McInst, Variant, decode_one, print};
use crate::sim::{SimError, Violation};

pub(crate) struct Program {
    words: Vec<u32>,
    variant: Variant,
    /// The program type the words are decoded as.
    kind: mc::Program,
    /// Per word: the instruction starting there and its size in words, once decoded.
    cache: Vec<Option<(McInst, usize)>>,
}

impl Program {
    /// The code of `bytes` (a partial last word is ignored: executing it is an error).
    pub fn new(bytes: &[u8], variant: Variant, kind: mc::Program) -> Program {
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let cache = vec![None; words.len()];
        Program {
            words,
            variant,
            kind,
            cache,
        }
    }

    /// The instruction at byte address `pc` and its size in words.
    pub fn fetch(&mut self, pc: u32) -> Result<(McInst, usize), SimError> {
        let i = pc as usize / 4;
        if !pc.is_multiple_of(4) || i >= self.words.len() {
            return Err(SimError {
                pc,
                inst: None,
                violation: Violation::BadPc(format!(
                    "{pc:#x} is outside the code ({:#x} bytes) or not a word address",
                    4 * self.words.len()
                )),
            });
        }
        if let Some(hit) = &self.cache[i] {
            return Ok(hit.clone());
        }
        let decoded = decode_one(&self.words[i..], self.variant, self.kind).map_err(|e| {
            let message = match e {
                DecodeError::Unknown { words, .. } => {
                    let hex: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
                    format!("unknown instruction {} at {pc:#x}", hex.join(" "))
                }
                DecodeError::Truncated { .. } => {
                    format!("the instruction at {pc:#x} runs past the end of the code")
                }
                e => format!("{e} (at {pc:#x})"),
            };
            SimError {
                pc,
                inst: None,
                violation: Violation::Decode(message),
            }
        })?;
        if decoded.1 == 2 && i % 2 == 1 {
            return Err(SimError {
                pc,
                inst: Some(print(&decoded.0)),
                violation: Violation::Decode(format!(
                    "long instruction at {pc:#x}, not 8-byte aligned (UNALIGNED_LONG_INSTRUCTION)"
                )),
            });
        }
        self.cache[i] = Some(decoded.clone());
        Ok(decoded)
    }

    /// An error at `pc`, with the instruction's text when it decodes.
    pub fn error(&self, pc: u32, violation: Violation) -> SimError {
        let i = pc as usize / 4;
        let inst = self
            .cache
            .get(i)
            .and_then(|c| c.as_ref())
            .map(|(inst, _)| print(inst));
        SimError {
            pc,
            inst,
            violation,
        }
    }
}
