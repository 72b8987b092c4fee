//! The NVIDIA Tesla (NV50: G80, G84–G98, GT200) target. So far its machine-code layer:
//! encodings, decoder and envydis-syntax printer.

pub mod mc;
