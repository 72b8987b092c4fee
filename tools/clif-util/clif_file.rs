//! Reading `.clif` files: our own header lines (`test`, `target`, `set`, `feature`), the
//! functions (parsed by cranelift-reader), and the comment lines after each function that
//! hold a filetest's expectations.
//!
//! The header is ours because cranelift-reader's `parse_test` looks `target` lines up among
//! Cranelift's own ISAs, which know nothing of `amdgcn`. Header lines are blanked (not
//! removed) before the text goes to `cranelift_reader::parse_functions`, so the line
//! numbers in its errors are the file's.

use std::fmt;
use std::ops::Range;
use wavelift::OptLevel;
use wavelift::ir::Function;

/// What a header line declares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HeaderKind {
    /// `test <name> [options]`: what `clif-util test` checks.
    Test,
    /// `target <spec>`: a target to compile for (`wavelift::Target::parse` reads `spec`).
    Target,
    /// `set <setting>`: a Cranelift setting, checked by `clif-util test`.
    Set,
    /// `feature "<name>"`: accepted and ignored.
    Feature,
}

/// A header line before the first function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// 1-based line number.
    pub line: usize,
    pub kind: HeaderKind,
    /// The words after the keyword, trailing comment removed.
    pub args: String,
}

/// A full-line comment in the file: `; text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// 1-based line number.
    pub line: usize,
    /// The text after `; ` (or after `;` when no space follows).
    pub text: String,
}

/// One function of the file and where it sits in the text.
pub struct ClifFunction {
    pub func: Function,
    /// 1-based line of the `function` keyword.
    pub line: usize,
    /// 0-based indices of the function's own lines, `function` through the closing `}`.
    pub body: Range<usize>,
    /// 0-based indices of the lines after the closing `}`, up to the next function or the
    /// end of the file: where the expectations live.
    pub trailer: Range<usize>,
}

/// A malformed file: where (line 0 when no line is to blame) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClifError {
    pub line: usize,
    pub message: String,
}

impl ClifError {
    fn new(line: usize, message: impl Into<String>) -> Self {
        ClifError {
            line,
            message: message.into(),
        }
    }

    /// The error as users read it: `FILE:LINE: message` (`FILE: message` without a line).
    pub fn display_in<'a>(&'a self, file: &'a str) -> impl fmt::Display + 'a {
        struct InFile<'a>(&'a ClifError, &'a str);
        impl fmt::Display for InFile<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0.line {
                    0 => write!(f, "{}: {}", self.1, self.0.message),
                    line => write!(f, "{}:{}: {}", self.1, line, self.0.message),
                }
            }
        }
        InFile(self, file)
    }
}

/// A parsed `.clif` file.
pub struct ClifFile {
    /// The file's lines, without line endings.
    pub lines: Vec<String>,
    pub headers: Vec<Header>,
    pub functions: Vec<ClifFunction>,
}

impl ClifFile {
    pub fn parse(text: &str) -> Result<ClifFile, ClifError> {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let first_function = lines
            .iter()
            .position(|l| is_function_start(l))
            .unwrap_or(lines.len());

        let mut headers = Vec::new();
        let mut blanked = lines.clone();
        for (index, line) in lines[..first_function].iter().enumerate() {
            let code = strip_comment(line).trim();
            if code.is_empty() {
                continue;
            }
            let (keyword, args) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
            let kind = match keyword {
                "test" => HeaderKind::Test,
                "target" => HeaderKind::Target,
                "set" => HeaderKind::Set,
                "feature" => HeaderKind::Feature,
                _ => {
                    return Err(ClifError::new(
                        index + 1,
                        format!(
                            "unexpected `{keyword}` before the first function: expected a \
                             `test`, `target`, `set` or `feature` line, or `function`"
                        ),
                    ));
                }
            };
            let args = args.trim();
            if args.is_empty() && kind != HeaderKind::Set {
                return Err(ClifError::new(
                    index + 1,
                    format!("`{keyword}` needs an argument"),
                ));
            }
            headers.push(Header {
                line: index + 1,
                kind,
                args: args.to_string(),
            });
            blanked[index].clear();
        }

        let parsed = cranelift_reader::parse_functions(&blanked.join("\n"))
            .map_err(|e| ClifError::new(e.location.line_number, e.message))?;
        let bounds = function_bounds(&lines)?;
        if bounds.len() != parsed.len() {
            return Err(ClifError::new(
                0,
                format!(
                    "found {} `function` lines but cranelift-reader parsed {} functions: put \
                     each `function` keyword at the start of its own line",
                    bounds.len(),
                    parsed.len()
                ),
            ));
        }

        let functions = parsed
            .into_iter()
            .enumerate()
            .map(|(i, func)| {
                let body = bounds[i].clone();
                let trailer_end = bounds.get(i + 1).map_or(lines.len(), |next| next.start);
                ClifFunction {
                    func,
                    line: body.start + 1,
                    trailer: body.end..trailer_end,
                    body,
                }
            })
            .collect();
        Ok(ClifFile {
            lines,
            headers,
            functions,
        })
    }

    /// The header lines of one kind, in file order.
    pub fn headers(&self, kind: HeaderKind) -> impl Iterator<Item = &Header> {
        self.headers.iter().filter(move |h| h.kind == kind)
    }

    /// The optimisation level the file's `set` lines choose (`speed` without one); a
    /// setting wavelift does not read is an error naming it (`name`: the file's name).
    pub fn opt_level(&self, name: &str) -> Result<OptLevel, String> {
        let mut opt_level = OptLevel::Speed;
        for header in self.headers(HeaderKind::Set) {
            if let Some(level) =
                check_setting(&header.args).map_err(|e| format!("{name}:{}: {e}", header.line))?
            {
                opt_level = level;
            }
        }
        Ok(opt_level)
    }

    /// The expectation lines after `function`'s closing brace: the `;` comments there,
    /// without `;;` comments (remarks, as in Cranelift) and run lines.
    pub fn expectations(&self, function: &ClifFunction) -> Vec<Comment> {
        self.comments(function.trailer.clone())
            .filter(|c| {
                !is_run_line(&c.text)
                    && !is_launch_line(&c.text)
                    && !crate::fragment::is_fragment_line(&c.text)
                    && !crate::vertex::is_vertex_line(&c.text)
            })
            .collect()
    }

    /// The comments in `function` (its body's full-line comments) and after it: where
    /// `test compile`'s filecheck directives (`check:`, `nextln:`, …) live.
    pub fn function_comments(&self, function: &ClifFunction) -> Vec<Comment> {
        self.comments(function.body.start..function.trailer.end)
            .collect()
    }

    /// The kernel-launch directives (`; buffer …`, `; launch: …`, `; expect …`) in
    /// `function` or after it.
    pub fn launch_lines(&self, function: &ClifFunction) -> Vec<Comment> {
        self.comments(function.body.start..function.trailer.end)
            .filter(|c| is_launch_line(&c.text))
            .collect()
    }

    /// The fragment-launch directives (`; primitive: …`, `; fragment: …`, `; pixel N: …`,
    /// see `fragment.rs`) in `function` or after it.
    pub fn fragment_lines(&self, function: &ClifFunction) -> Vec<Comment> {
        self.comments(function.body.start..function.trailer.end)
            .filter(|c| crate::fragment::is_fragment_line(&c.text))
            .collect()
    }

    /// The vertex-launch directives (`; vertex: …`, `; vertex N: …`, see `vertex.rs`) in
    /// `function` or after it, with the `; buffer` lines they name.
    pub fn vertex_lines(&self, function: &ClifFunction) -> Vec<Comment> {
        let lines: Vec<Comment> = self
            .comments(function.body.start..function.trailer.end)
            .filter(|c| crate::vertex::is_vertex_line(&c.text) || is_launch_line(&c.text))
            .collect();
        if lines.iter().any(|c| crate::vertex::is_vertex_line(&c.text)) {
            lines
        } else {
            Vec::new()
        }
    }

    /// The run lines (`; run: ...`, `; print: ...`) in `function` or after it.
    pub fn run_lines(&self, function: &ClifFunction) -> Vec<Comment> {
        self.comments(function.body.start..function.trailer.end)
            .filter(|c| is_run_line(&c.text))
            .collect()
    }

    fn comments(&self, range: Range<usize>) -> impl Iterator<Item = Comment> + '_ {
        range.filter_map(|index| {
            let line = self.lines[index].trim_start();
            let text = line.strip_prefix(';')?;
            if text.starts_with(';') {
                return None;
            }
            let text = text.strip_prefix(' ').unwrap_or(text);
            Some(Comment {
                line: index + 1,
                text: text.trim_end().to_string(),
            })
        })
    }

    /// The file's text with the expectations of some functions replaced, the way
    /// Cranelift's blessing writes them: a blank line, one `; ` line per output line, the
    /// run lines that were there, a blank line, then the remarks (`;;` lines) that were
    /// there. `updates` holds (index in `functions`, new expectation lines).
    pub fn with_expectations(&self, updates: &[(usize, Vec<String>)]) -> String {
        let mut out: Vec<String> = Vec::with_capacity(self.lines.len());
        let mut next_line = 0;
        for (index, expectation) in updates {
            let function = &self.functions[*index];
            out.extend_from_slice(&self.lines[next_line..function.trailer.start]);
            next_line = function.trailer.end;

            let mut kept_run_lines = Vec::new();
            let mut kept_other = Vec::new();
            for line in &self.lines[function.trailer.clone()] {
                let trimmed = line.trim_start();
                if trimmed.is_empty() {
                    continue;
                }
                match trimmed.strip_prefix(';') {
                    Some(rest) if !rest.starts_with(';') => {
                        let text = rest.strip_prefix(' ').unwrap_or(rest);
                        if is_run_line(text) {
                            kept_run_lines.push(line.clone());
                        }
                    }
                    _ => kept_other.push(line.clone()),
                }
            }

            out.push(String::new());
            for line in expectation {
                out.push(if line.is_empty() {
                    ";".to_string()
                } else {
                    format!("; {line}")
                });
            }
            out.extend(kept_run_lines);
            let at_end = function.trailer.end == self.lines.len();
            if !at_end || !kept_other.is_empty() {
                out.push(String::new());
            }
            out.extend(kept_other);
        }
        out.extend_from_slice(&self.lines[next_line..]);
        let mut text = out.join("\n");
        text.push('\n');
        text
    }
}

/// Whether a comment's text is a Cranelift run command (`run: ...`, `print: ...`, or
/// `run`/`print` alone for functions without parameters).
pub fn is_run_line(text: &str) -> bool {
    ["run", "print"].iter().any(|keyword| {
        text.trim_start()
            .strip_prefix(keyword)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', ' ', '\t']))
    })
}

/// Whether a comment's text is a kernel-launch directive: `buffer NAME: …`,
/// `launch: …` or `expect NAME: …` (see `launch.rs`).
pub fn is_launch_line(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("launch:")
        || ["buffer ", "expect "].iter().any(|keyword| {
            text.strip_prefix(keyword)
                .is_some_and(|rest| rest.contains(':'))
        })
}

/// The line without its comment: CLIF comments run from `;` to the end of the line.
fn strip_comment(line: &str) -> &str {
    line.split_once(';').map_or(line, |(code, _)| code)
}

fn is_function_start(line: &str) -> bool {
    strip_comment(line)
        .trim_start()
        .strip_prefix("function")
        .is_some_and(|rest| rest.starts_with(char::is_whitespace))
}

/// The 0-based line ranges of the functions, `function` through the closing brace, found
/// by counting braces outside comments.
fn function_bounds(lines: &[String]) -> Result<Vec<Range<usize>>, ClifError> {
    let mut bounds = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if !is_function_start(&lines[index]) {
            index += 1;
            continue;
        }
        let start = index;
        let mut depth = 0usize;
        let mut opened = false;
        let end = loop {
            let Some(line) = lines.get(index) else {
                return Err(ClifError::new(start + 1, "function has no closing `}`"));
            };
            for c in strip_comment(line).chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            index += 1;
            if opened && depth == 0 {
                break index;
            }
        };
        bounds.push(start..end);
    }
    Ok(bounds)
}

/// The `set` lines wavelift reads: Cranelift's settings that mean something here, the
/// optimisation level (`opt_level`: `none`, or `speed`/`speed_and_size`, which wavelift's
/// one mid-end serves alike) and the verifier (always on). Returns the level a line sets.
fn check_setting(setting: &str) -> Result<Option<OptLevel>, String> {
    let (name, value) = setting.split_once('=').unwrap_or((setting, "true"));
    match (name.trim(), value.trim()) {
        ("opt_level", "none") => Ok(Some(OptLevel::None)),
        ("opt_level", "speed" | "speed_and_size") => Ok(Some(OptLevel::Speed)),
        ("enable_verifier", "true") => Ok(None),
        ("opt_level", other) => Err(format!(
            "`set opt_level={other}`: the levels are `none`, `speed` and `speed_and_size`"
        )),
        ("enable_verifier", _) => Err("the verifier cannot be turned off".into()),
        (other, _) => Err(format!(
            "`set {other}` is not a setting wavelift reads (known: `opt_level`, \
             `enable_verifier`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_FUNCTIONS: &str = "\
test compile precise-output
set opt_level=speed
target amdgcn gfx803 ; the only target

;; a remark before the first function
function %add(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iadd v0, v1 ; a comment in the body
    return v2
}

; v_add_u32_e32 v0, vcc, v0, v1
;
; s_setpc_b64 s[0:1]

;; the next function is empty
function %nop() {
block0:
    return
}
; run
; old expectation
";

    #[test]
    fn headers_are_ours_and_functions_are_cranelifts() {
        let file = ClifFile::parse(TWO_FUNCTIONS).unwrap();
        let kinds: Vec<_> = file.headers.iter().map(|h| (h.line, h.kind)).collect();
        assert_eq!(
            kinds,
            [
                (1, HeaderKind::Test),
                (2, HeaderKind::Set),
                (3, HeaderKind::Target)
            ]
        );
        let target = file.headers(HeaderKind::Target).next().unwrap();
        assert_eq!(target.args, "amdgcn gfx803");
        assert_eq!(file.functions.len(), 2);
        assert_eq!(file.functions[0].func.name.to_string(), "%add");
        assert_eq!(file.functions[0].line, 6);
        assert_eq!(file.functions[1].line, 17);
    }

    #[test]
    fn set_lines_choose_the_optimisation_level() {
        let level = |text: &str| ClifFile::parse(text).unwrap().opt_level("f.clif");
        assert_eq!(level(TWO_FUNCTIONS), Ok(OptLevel::Speed));
        let none = TWO_FUNCTIONS.replace("opt_level=speed", "opt_level=none");
        assert_eq!(level(&none), Ok(OptLevel::None));
        let unknown = TWO_FUNCTIONS.replace("opt_level=speed", "enable_simd=true");
        let error = level(&unknown).unwrap_err();
        assert!(error.starts_with("f.clif:2: `set enable_simd`"), "{error}");
    }

    #[test]
    fn expectations_are_the_comments_after_the_closing_brace() {
        let file = ClifFile::parse(TWO_FUNCTIONS).unwrap();
        let texts = |f| {
            file.expectations(&file.functions[f])
                .into_iter()
                .map(|c| c.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            texts(0),
            ["v_add_u32_e32 v0, vcc, v0, v1", "", "s_setpc_b64 s[0:1]"]
        );
        assert_eq!(texts(1), ["old expectation"]);
        let run: Vec<_> = file
            .run_lines(&file.functions[1])
            .into_iter()
            .map(|c| c.line)
            .collect();
        assert_eq!(run, [21]);
    }

    #[test]
    fn blessing_replaces_only_the_expectations() {
        let file = ClifFile::parse(TWO_FUNCTIONS).unwrap();
        let text = file.with_expectations(&[
            (0, vec!["v_nop".to_string()]),
            (1, vec!["s_setpc_b64 s[0:1]".to_string()]),
        ]);
        let expected = TWO_FUNCTIONS
            .replace(
                "; v_add_u32_e32 v0, vcc, v0, v1\n;\n; s_setpc_b64 s[0:1]\n",
                "; v_nop\n",
            )
            .replace(
                "}\n; run\n; old expectation\n",
                "}\n\n; s_setpc_b64 s[0:1]\n; run\n",
            );
        assert_eq!(text, expected);
        // Blessing the new text with the same output changes nothing.
        let again = ClifFile::parse(&text).unwrap();
        assert_eq!(
            again.with_expectations(&[
                (0, vec!["v_nop".to_string()]),
                (1, vec!["s_setpc_b64 s[0:1]".to_string()]),
            ]),
            text
        );
    }

    #[test]
    fn blessing_a_function_without_expectations_adds_them() {
        let text =
            "function %f() {\nblock0:\n    return\n}\nfunction %g() {\nblock0:\n    return\n}\n";
        let file = ClifFile::parse(text).unwrap();
        let blessed = file.with_expectations(&[(0, vec!["a".into()]), (1, vec!["b".into()])]);
        assert_eq!(
            blessed,
            "function %f() {\nblock0:\n    return\n}\n\n; a\n\nfunction %g() {\nblock0:\n    return\n}\n\n; b\n"
        );
    }

    #[test]
    fn parse_errors_carry_the_files_line_numbers() {
        let text = "test compile\ntarget gfx803\n\nfunction %f() {\nblock0:\n    v0 = bogus_op\n    return\n}\n";
        let err = ClifFile::parse(text).err().unwrap();
        assert_eq!(err.line, 6, "{err:?}");
        assert_eq!(
            err.display_in("f.clif").to_string(),
            format!("f.clif:6: {}", err.message)
        );
    }

    #[test]
    fn unknown_header_lines_are_errors() {
        let err = ClifFile::parse("test compile\nisa x86_64\n").err().unwrap();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("`isa`"), "{}", err.message);
    }

    #[test]
    fn run_lines_are_recognised() {
        assert!(is_run_line("run: %f(1) == 2"));
        assert!(is_run_line("run"));
        assert!(is_run_line("print: %f(1)"));
        assert!(!is_run_line("runs fine"));
        assert!(!is_run_line("v_add_f32 v0, v1, v2"));
        assert!(is_launch_line("launch: %k(1) size=64 groups=1"));
        assert!(is_launch_line("buffer x: f32 = zero 4"));
        assert!(is_launch_line("expect x: f32 = [1.0]"));
        assert!(!is_launch_line("buffer_load_dword v0, off"));
        assert!(!is_launch_line("expected to fail"));
    }
}
