//! GL's implicitly sized arrays (GLSL 4.30 §4.1.9): an array declared without a size and
//! indexed only with integral constant expressions gets its size when the program is
//! linked, one more than the largest index used — over all the compilation units of the
//! stage for a global array — and `.length()` on it returns that size. glslang refuses
//! `.length()` on such an array ("array must be declared with a size before using this
//! method"), so where a stage calls it, each declaration `T name[];` of that array outside
//! any block or structure gets GL's size written in ([`size_implicit_arrays`]). An array
//! that is indexed with anything but an integer literal, or never indexed, is left as it
//! is (glslang reports it). An unsized last member of a storage block is a runtime-sized
//! array, not an implicitly sized one: declarations inside blocks are never touched.

use std::ops::Range;

use crate::fixes::{without_comments, word_positions};

/// `T name[];` outside any block or structure.
struct UnsizedDeclaration {
    name: String,
    /// The bytes of `[]`.
    brackets: Range<usize>,
    /// At file scope (else in a function body).
    global: bool,
}

/// Over the compilation units of one stage: sizes each implicitly sized array the stage
/// calls `.length()` on; true when a unit changed.
pub fn size_implicit_arrays(units: &mut [String]) -> bool {
    let codes: Vec<String> = units.iter().map(|u| without_comments(u)).collect();
    let mut edits: Vec<(usize, Range<usize>, String)> = Vec::new();
    for (unit, code) in codes.iter().enumerate() {
        for declaration in unsized_declarations(code) {
            let name = declaration.name.as_str();
            if !codes.iter().any(|c| calls_length(c, name)) {
                continue;
            }
            // A global array is one array in every unit that declares it; a local one
            // lives in its own unit.
            let scope = if declaration.global {
                &codes[..]
            } else {
                std::slice::from_ref(code)
            };
            let Some(largest) = largest_constant_index(scope, name) else {
                continue;
            };
            edits.push((unit, declaration.brackets, format!("[{}]", largest + 1)));
        }
    }
    // Back to front within a unit, so that the earlier ranges stay valid.
    edits.sort_by_key(|(unit, range, _)| (*unit, std::cmp::Reverse(range.start)));
    for (unit, range, sized) in &edits {
        units[*unit].replace_range(range.clone(), sized);
    }
    !edits.is_empty()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier that `text` ends with (after trailing spaces), if any.
fn last_word(text: &str) -> Option<&str> {
    let text = text.trim_end();
    let start = text
        .bytes()
        .rposition(|c| !is_ident(c))
        .map_or(0, |at| at + 1);
    Some(&text[start..]).filter(|w| !w.is_empty())
}

/// The declarations `T name[];` of a comment-free unit that lie at file scope or in
/// function bodies (not in a block or structure).
fn unsized_declarations(code: &str) -> Vec<UnsizedDeclaration> {
    let bytes = code.as_bytes();
    // Per open brace: whether it opens code (a function body or a statement block).
    let mut braces: Vec<bool> = Vec::new();
    let mut found = Vec::new();
    for (at, &c) in bytes.iter().enumerate() {
        match c {
            b'{' => braces.push(opens_code(&code[..at])),
            b'}' => {
                braces.pop();
            }
            b'[' if braces.iter().all(|&code_brace| code_brace) => {
                let rest = code[at + 1..].trim_start();
                let Some(after) = rest.strip_prefix(']') else {
                    continue;
                };
                if !after.trim_start().starts_with(';') {
                    continue;
                }
                let before = &code[..at];
                let Some(name) = last_word(before) else {
                    continue;
                };
                // A type must precede the name (not `,`: one of several declarators).
                let before_name = &before.trim_end()[..before.trim_end().len() - name.len()];
                if last_word(before_name).is_none() || name.as_bytes()[0].is_ascii_digit() {
                    continue;
                }
                found.push(UnsizedDeclaration {
                    name: name.to_string(),
                    brackets: at..code.len() - after.len(),
                    global: braces.is_empty(),
                });
            }
            _ => {}
        }
    }
    found
}

/// Whether a `{` after `before` opens code: after `)` (a function body, `if (…) {`),
/// `else`, `do`, or another statement; not a block's or structure's member list, nor an
/// initializer list.
fn opens_code(before: &str) -> bool {
    let trimmed = before.trim_end();
    match trimmed.bytes().next_back() {
        None => false,
        Some(b')' | b'{' | b'}' | b';') => true,
        Some(c) if is_ident(c) => matches!(last_word(trimmed), Some("else" | "do")),
        Some(_) => false,
    }
}

/// Whether a comment-free unit calls `name.length()`.
fn calls_length(code: &str, name: &str) -> bool {
    word_positions(code, name).any(|at| {
        let rest = code[at + name.len()..].trim_start();
        rest.strip_prefix('.')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("length"))
            .map(str::trim_start)
            .is_some_and(|r| r.starts_with('('))
    })
}

/// The largest index `name[N]` is used with in `codes`, if every index given is an integer
/// literal and there is one.
fn largest_constant_index(codes: &[String], name: &str) -> Option<u64> {
    let mut largest = None;
    for code in codes {
        for at in word_positions(code, name) {
            let Some(rest) = code[at + name.len()..].trim_start().strip_prefix('[') else {
                continue;
            };
            let index = rest[..rest.find(']')?].trim();
            if index.is_empty() {
                continue; // the declaration itself
            }
            let digits = index.trim_end_matches(['u', 'U']);
            let value = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                u64::from_str_radix(hex, 16).ok()?
            } else if digits.len() > 1 && digits.starts_with('0') {
                u64::from_str_radix(&digits[1..], 8).ok()?
            } else {
                digits.parse().ok()?
            };
            largest = largest.max(Some(value));
        }
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(units: &[&str]) -> Vec<String> {
        let mut units: Vec<String> = units.iter().map(|u| u.to_string()).collect();
        size_implicit_arrays(&mut units);
        units
    }

    #[test]
    fn a_local_array_takes_its_largest_constant_index_plus_one() {
        let src = "void main() {\n float a[]; // a[9]\n a[4] = 1.0; a[ 2 ] = a.length();\n}\n";
        assert_eq!(
            sized(&[src])[0],
            src.replacen("a[];", "a[5];", 1),
            "the commented-out index does not count"
        );
    }

    #[test]
    fn a_global_array_is_sized_over_all_units() {
        let main = "float u[];\nvoid f();\nvoid main() { f(); int n = u.length(); }\n";
        let other = "float u[];\nvoid f() { u[6u] = 1.0; }\n";
        let units = sized(&[main, other]);
        assert_eq!(units[0], main.replace("u[];", "u[7];"));
        assert_eq!(units[1], other.replace("u[];", "u[7];"));
    }

    #[test]
    fn left_alone_without_length_in_blocks_or_with_a_variable_index() {
        for src in [
            "float a[];\nvoid main() { a[3] = 1.0; }\n",
            "buffer B { float d[]; };\nvoid main() { d[3] = float(d.length()); }\n",
            "float a[];\nvoid main() { int i = 1; a[3] = 1.0; a[i] = float(a.length()); }\n",
            "float a[];\nvoid main() { int n = a.length(); }\n",
        ] {
            assert_eq!(sized(&[src])[0], src);
        }
    }
}
