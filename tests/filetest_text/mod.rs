//! A filetest's text as CLIF for `cranelift_reader`, shared by the tests that compile the
//! filetests themselves.

/// `text` with the filetest header lines (`test`, `target`, `set`: ours, not CLIF) blanked,
/// keeping line numbers.
pub fn clif_of(text: &str) -> String {
    text.lines()
        .map(|l| {
            let t = l.trim_start();
            let header =
                t.starts_with("test ") || t.starts_with("target ") || t.starts_with("set ");
            if header { "" } else { l }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
