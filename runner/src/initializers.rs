//! Uniform initializers (`uniform vec4 c = vec4(0, 1, 0, 1);`). GL applies them when the
//! program links; glslang drops them ("Ignoring initializer for uniform") and cannot size
//! an unsized array from them. The runner takes them out of the source (keeping its line
//! count, and giving `uniform T a[] = …` its size), evaluates them (constructors, array
//! constructors and initializer lists of literals, and the global constants declared
//! before them: `const mat2 c = mat2(…); uniform mat2 m = c;`) and writes the values into
//! the uniform block once the program exists, before `[test]` runs.

use std::collections::{HashMap, HashSet};

/// What an initializer may name besides literals: the global constants declared before it
/// that evaluate, and the structures the source declares (their constructors).
#[derive(Default)]
struct Scope {
    consts: HashMap<String, Vec<f64>>,
    structs: HashSet<String>,
}

/// An initialized uniform: its name and its scalar values in GLSL component order
/// (members, array elements, matrix columns).
#[derive(Debug, Clone, PartialEq)]
pub struct Initializer {
    pub name: String,
    pub values: Vec<f64>,
}

/// The source without uniform initializers, and the initializers, or why one could not be
/// evaluated.
pub fn extract(source: &str) -> Result<(String, Vec<Initializer>), String> {
    let bytes = source.as_bytes();
    let plain = blank_comments_and_directives(source);
    let p = plain.as_bytes();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut found = Vec::new();
    let mut scope = Scope {
        structs: struct_names(&plain),
        ..Scope::default()
    };
    let (mut depth, mut start) = (0i32, 0usize);
    // A `{` opened at global scope after `=` is an initializer list, not a body.
    let mut list = false;
    for (i, &c) in p.iter().enumerate() {
        match c {
            b'{' | b'(' | b'[' => {
                if depth == 0 && c == b'{' {
                    list = plain[..i].trim_end().ends_with('=');
                }
                depth += 1;
            }
            b'}' | b')' | b']' => {
                depth -= 1;
                // The end of a function body, struct or block: a new statement starts.
                if depth == 0 && c == b'}' && !list {
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                let text = &plain[start..i];
                if let Some((edit, init)) = statement(text, start, &scope)? {
                    edits.extend(edit);
                    found.push(init);
                } else if let Some((name, values)) = constant(text, &scope) {
                    scope.consts.insert(name, values);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for (from, to, text) in edits {
        out.push_str(std::str::from_utf8(&bytes[at..from]).unwrap_or_default());
        out.push_str(&text);
        at = to;
    }
    out.push_str(std::str::from_utf8(&bytes[at..]).unwrap_or_default());
    Ok((out, found))
}

/// Comments and preprocessor lines as spaces (newlines kept), so offsets stay the same.
fn blank_comments_and_directives(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
        if line_start && c.is_whitespace() && c != '\n' {
            out.push(c);
            i += 1;
            continue;
        }
        if line_start && c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
            continue;
        }
        line_start = c == '\n';
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            out.push_str("  ");
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push_str("  ");
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    // Multi-byte characters: keep byte offsets by padding to the source's length.
    while out.len() < source.len() {
        out.push(' ');
    }
    out
}

/// A global `uniform … = …` statement (text `s` at byte `offset`, without its `;`): the
/// edit that removes the initializer, and the initializer.
type Edit = (usize, usize, String);

fn statement(
    s: &str,
    offset: usize,
    scope: &Scope,
) -> Result<Option<(Vec<Edit>, Initializer)>, String> {
    let words: Vec<&str> = s
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    if !words.contains(&"uniform") {
        return Ok(None);
    }
    let Some(eq) = top_level_eq(s) else {
        return Ok(None);
    };
    let (decl, init) = (&s[..eq], &s[eq + 1..]);
    let values = Parser::new(init, scope).expression_all()?;
    let name = declared_name(decl);
    let mut edits = Vec::new();
    let trimmed = decl.trim_end().len();
    if decl[..trimmed].ends_with("[]") {
        let count = Parser::new(init, scope).top_level_count()?;
        edits.push((offset + trimmed - 2, offset + trimmed, format!("[{count}]")));
    }
    // The removed initializer's newlines stay, so line numbers do not move.
    let newlines = init.matches('\n').count();
    edits.push((offset + eq, offset + s.len(), "\n".repeat(newlines)));
    Ok(Some((edits, Initializer { name, values })))
}

/// The name a declaration (`uniform T name[2]`, before its `=`) declares, after its array
/// sizes (`a[2][3]`, `a[]`) come off: only whole `[…]` suffixes, as a name may end in
/// digits (`ui2`).
fn declared_name(decl: &str) -> String {
    let mut declarator = decl.trim_end();
    while let Some(sized) = declarator.strip_suffix(']') {
        declarator = sized
            .rsplit_once('[')
            .map_or("", |(before, _)| before.trim_end());
    }
    declarator
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A global `const T name = …` statement whose value evaluates: its name and value. One
/// that does not evaluate (a built-in function, say) is left to the compiler; an
/// initializer naming it then fails to evaluate.
fn constant(s: &str, scope: &Scope) -> Option<(String, Vec<f64>)> {
    let words: Vec<&str> = s
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    if !words.contains(&"const") || words.contains(&"uniform") {
        return None;
    }
    let eq = top_level_eq(s)?;
    let values = Parser::new(&s[eq + 1..], scope).expression_all().ok()?;
    Some((declared_name(&s[..eq]), values))
}

/// The names after `struct` in `source`.
fn struct_names(source: &str) -> HashSet<String> {
    let words: Vec<&str> = source
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    (words.windows(2))
        .filter(|w| w[0] == "struct")
        .map(|w| w[1].to_string())
        .collect()
}

fn top_level_eq(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '=' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    scope: &'a Scope,
}

impl<'a> Parser<'a> {
    fn new(s: &'a str, scope: &'a Scope) -> Self {
        Parser {
            s: s.as_bytes(),
            at: 0,
            scope,
        }
    }

    fn skip(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip();
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> String {
        self.skip();
        let start = self.at;
        while self.at < self.s.len()
            && (self.s[self.at].is_ascii_alphanumeric() || matches!(self.s[self.at], b'_' | b'.'))
        {
            self.at += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.at]).into_owned()
    }

    fn error(&self, what: &str) -> String {
        format!(
            "uniform initializer `{}`: {what}",
            String::from_utf8_lossy(self.s).trim()
        )
    }

    fn expression_all(&mut self) -> Result<Vec<f64>, String> {
        let v = self.expression()?;
        if self.peek().is_some() {
            return Err(self.error("only constructors of literals are supported"));
        }
        Ok(v)
    }

    /// How many elements the outermost array constructor or initializer list has.
    fn top_level_count(&mut self) -> Result<usize, String> {
        if self.peek() != Some(b'{') {
            self.word();
            if self.eat(b'[') {
                while !self.eat(b']') {
                    if self.peek().is_none() {
                        return Err(self.error("unbalanced brackets"));
                    }
                    self.at += 1;
                }
            }
        }
        let close = if self.eat(b'{') {
            b'}'
        } else if self.eat(b'(') {
            b')'
        } else {
            return Err(self.error("an unsized array needs an array initializer"));
        };
        let mut count = 0;
        if self.eat(close) {
            return Ok(0);
        }
        loop {
            self.expression()?;
            count += 1;
            if self.eat(close) {
                return Ok(count);
            }
            if !self.eat(b',') {
                return Err(self.error("expected `,`"));
            }
        }
    }

    fn list(&mut self, close: u8) -> Result<Vec<Vec<f64>>, String> {
        let mut args = Vec::new();
        if self.eat(close) {
            return Ok(args);
        }
        loop {
            args.push(self.expression()?);
            if self.eat(close) {
                return Ok(args);
            }
            if !self.eat(b',') {
                return Err(self.error("expected `,`"));
            }
        }
    }

    fn expression(&mut self) -> Result<Vec<f64>, String> {
        match self.peek() {
            Some(b'{') => {
                self.at += 1;
                Ok(self.list(b'}')?.concat())
            }
            Some(b'-') => {
                self.at += 1;
                Ok(self.expression()?.into_iter().map(|v| -v).collect())
            }
            Some(b'+') => {
                self.at += 1;
                self.expression()
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let w = self.word();
                // `1.0e-3`: the exponent's sign.
                let w = if (w.ends_with('e') || w.ends_with('E'))
                    && matches!(self.peek(), Some(b'-' | b'+'))
                {
                    let sign = self.s[self.at] as char;
                    self.at += 1;
                    format!("{w}{sign}{}", self.word())
                } else {
                    w
                };
                Ok(vec![literal(&w).ok_or_else(|| self.error("bad literal"))?])
            }
            Some(_) => {
                let name = self.word();
                match name.as_str() {
                    "true" => return Ok(vec![1.0]),
                    "false" => return Ok(vec![0.0]),
                    "" => return Err(self.error("unexpected character")),
                    _ => {}
                }
                // A global constant's value, whole.
                if let Some(values) = self.scope.consts.get(&name) {
                    if !matches!(self.peek(), Some(b'(' | b'[' | b'.')) {
                        return Ok(values.clone());
                    }
                }
                let mut array = false;
                if self.eat(b'[') {
                    array = true;
                    while !self.eat(b']') {
                        if self.peek().is_none() {
                            return Err(self.error("unbalanced brackets"));
                        }
                        self.at += 1;
                    }
                }
                // A constructor: of a GLSL type or a declared structure (not a function).
                let constructor = components(&name).is_some() || self.scope.structs.contains(&name);
                if !constructor || !self.eat(b'(') {
                    return Err(self.error("only constructors of literals are supported"));
                }
                let args = self.list(b')')?;
                let flat: Vec<f64> = args.concat();
                Ok(match (array, components(&name)) {
                    (false, Some((columns, rows))) if flat.len() == 1 => {
                        if columns == 1 {
                            vec![flat[0]; rows]
                        } else {
                            // A matrix from one scalar: the diagonal.
                            (0..columns * rows)
                                .map(|i| if i / rows == i % rows { flat[0] } else { 0.0 })
                                .collect()
                        }
                    }
                    (false, Some((columns, rows))) if flat.len() > columns * rows => {
                        flat[..columns * rows].to_vec()
                    }
                    _ => flat,
                })
            }
            None => Err(self.error("empty initializer")),
        }
    }
}

/// (columns, rows) of GLSL's scalar, vector and matrix type names.
fn components(ty: &str) -> Option<(usize, usize)> {
    let base = ty.trim_start_matches(['d', 'i', 'u', 'b']);
    let n = |s: &str| s.parse::<usize>().ok().filter(|n| (2..=4).contains(n));
    if matches!(ty, "float" | "double" | "int" | "uint" | "bool") {
        return Some((1, 1));
    }
    if let Some(v) = base.strip_prefix("vec") {
        return Some((1, n(v)?));
    }
    let m = base.strip_prefix("mat")?;
    match m.split_once('x') {
        Some((c, r)) => Some((n(c)?, n(r)?)),
        None => Some((n(m)?, n(m)?)),
    }
}

fn literal(w: &str) -> Option<f64> {
    // A hex literal's `f`s are digits: only a `u` suffix goes.
    if let Some(hex) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        let hex = hex.trim_end_matches(['u', 'U']);
        return u64::from_str_radix(hex, 16).ok().map(|v| v as f64);
    }
    let w = w
        .strip_suffix("lf")
        .or_else(|| w.strip_suffix("LF"))
        .unwrap_or(w)
        .trim_end_matches(['f', 'F', 'u', 'U']);
    w.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initializers_are_evaluated_and_removed_keeping_lines() {
        let src = "#version 150\n// uniform float x = 2.0;\nuniform dvec4 color = dvec4(0.0lf, 1.0lf,\n  0.0lf, 1.0);\nuniform float f;\nvoid main() { float a = 1.0; }\n";
        let (out, inits) = extract(src).unwrap();
        assert_eq!(
            out,
            "#version 150\n// uniform float x = 2.0;\nuniform dvec4 color \n;\nuniform float f;\nvoid main() { float a = 1.0; }\n"
        );
        assert_eq!(
            inits,
            vec![Initializer {
                name: "color".into(),
                values: vec![0.0, 1.0, 0.0, 1.0]
            }]
        );
    }

    #[test]
    fn names_ending_in_digits_keep_them() {
        let (_, inits) = extract(
            "uniform int ui = int(28);\nuniform ivec2 ui2 = ivec2(39, -14);\n\
             uniform int[2] a3 = int[2](1, 2);\nuniform float m4[2] = float[2](1.0, 2.0);\n",
        )
        .unwrap();
        let names: Vec<&str> = inits.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["ui", "ui2", "a3", "m4"]);
        assert_eq!(inits[1].values, vec![39., -14.]);
    }

    #[test]
    fn initializers_may_name_the_global_constants_before_them() {
        let (out, inits) = extract(
            "const mat2x2 cm = mat2x2(1.5, 2, -3, 4);\nconst int ci = 7;\n\
             const float cf = sin(1.0);\nvoid f() { const int local = 9; }\n\
             uniform mat2x2 um = cm;\nuniform ivec2 uv = ivec2(ci, -ci);\nuniform int u[2] = int[2](ci, 1);\n",
        )
        .unwrap();
        assert!(
            out.starts_with("const mat2x2 cm = mat2x2(1.5, 2, -3, 4);\n"),
            "{out}"
        );
        assert!(out.contains("uniform mat2x2 um ;"), "{out}");
        let values: Vec<(&str, &[f64])> = (inits.iter())
            .map(|i| (i.name.as_str(), i.values.as_slice()))
            .collect();
        assert_eq!(
            values,
            [
                ("um", &[1.5, 2., -3., 4.][..]),
                ("uv", &[7., -7.][..]),
                ("u", &[7., 1.][..])
            ]
        );
        // A constant the runner cannot evaluate, or a local one, is not known.
        assert!(extract("const float cf = sin(1.0);\nuniform float u = cf;\n").is_err());
        assert!(extract("void f() { const int l = 9; }\nuniform int u = l;\n").is_err());
    }

    #[test]
    fn constructors_lists_arrays_and_structs() {
        let (out, inits) = extract(
            "uniform vec4 c[] = vec4[](vec4(1.0), vec4(0, 1, 0, 1));\nuniform dmat2 m = dmat2(2.0);\n\
             struct S { double a; dvec2 b; };\nuniform S s = S(2.0lf, dvec2(-0.5, 1e-1));\nuniform int i[2] = { 3, -4 };\n",
        )
        .unwrap();
        assert!(out.starts_with("uniform vec4 c[2] ;\n"), "{out}");
        assert_eq!(inits[0].values, vec![1., 1., 1., 1., 0., 1., 0., 1.]);
        assert_eq!(inits[1].values, vec![2., 0., 0., 2.]);
        assert_eq!(inits[2].name, "s");
        assert_eq!(inits[2].values, vec![2.0, -0.5, 0.1]);
        assert_eq!(inits[3].name, "i");
        assert_eq!(inits[3].values, vec![3.0, -4.0]);
    }

    #[test]
    fn non_constant_initializers_are_refused() {
        assert!(extract("uniform float f = g(1.0) + 2.0;\n").is_err());
        // A built-in function is no constructor.
        assert!(extract("uniform float f = sin(1.0);\n").is_err());
    }
}
