//! What a GL linker knows from the GLSL text that the SPIR-V does not say: the names
//! declared with an explicit `location`, the uniforms' explicit locations and bindings,
//! and the binding points of named blocks.

use std::collections::HashSet;

/// Names declared with an explicit `layout(... location ...)` in GLSL: the linker keeps those.
/// For interface blocks this is the block name, as GL matches blocks by block name.
pub(super) fn explicit_location_names(source: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut rest = source;
    while let Some(pos) = rest.find("layout") {
        rest = &rest[pos + "layout".len()..];
        let Some(open) = rest.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(close) = open.find(')') else { break };
        let qualifiers = &open[..close];
        let decl_end = open[close..]
            .find(';')
            .map(|e| close + e)
            .unwrap_or(open.len());
        let decl = &open[close + 1..decl_end];
        if !qualifiers
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "location")
        {
            continue;
        }
        let head = decl.split('{').next().unwrap_or("");
        let is_word = |text: &str, word: &str| {
            text.split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == word)
        };
        // `layout(location = N) out struct S { … } name;` declares the variable `name`,
        // which GL matches (a block, `out B { … } b;`, matches by its block name `B`).
        let struct_declarator = (decl.contains('{') && is_word(head, "struct"))
            .then(|| {
                let body_end = close + open[close..].find('}')?;
                let end = body_end + open[body_end..].find(';')?;
                Some(&open[body_end + 1..end])
            })
            .flatten();
        let name_source = match struct_declarator {
            Some(declarator) => declarator,
            None if decl.contains('{') => head,
            None => decl,
        };
        let without_arrays: String = strip_brackets(name_source);
        if let Some(name) = without_arrays
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .rfind(|w| !w.is_empty())
        {
            names.insert(name.to_string());
        }
    }
    names
}

/// The uniforms declared with `layout(… location = N …) uniform TYPE NAME` (TYPE may be
/// an inline `struct { … }`): (N, NAME).
pub(super) fn uniform_locations(source: &str) -> Vec<(u32, String)> {
    explicit_uniforms(source)
        .into_iter()
        .filter_map(|(location, _, name)| Some((location?, name)))
        .collect()
}

/// The uniforms declared with `layout(…) uniform TYPE NAME` (TYPE may be an inline
/// `struct { … }`): (`location = N`, `binding = N`, NAME).
pub(super) fn explicit_uniforms(source: &str) -> Vec<(Option<u32>, Option<u32>, String)> {
    // Tokens: identifiers and numbers, and single punctuation characters; no comments.
    let mut text = String::new();
    for line in source.lines() {
        text.push_str(line.split("//").next().unwrap_or(""));
        text.push('\n');
    }
    while let Some(start) = text.find("/*") {
        let end = text[start..]
            .find("*/")
            .map_or(text.len(), |e| start + e + 2);
        text.replace_range(start..end, " ");
    }
    let mut tokens: Vec<&str> = Vec::new();
    let mut at = 0;
    let bytes = text.as_bytes();
    while at < bytes.len() {
        let c = bytes[at] as char;
        if c.is_whitespace() {
            at += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let end = text[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(text.len(), |e| at + e);
            tokens.push(&text[at..end]);
            at = end;
        } else {
            let len = c.len_utf8();
            tokens.push(&text[at..at + len]);
            at += len;
        }
    }
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] != "layout" || tokens.get(i + 1) != Some(&"(") {
            i += 1;
            continue;
        }
        let Some(close) = tokens[i..].iter().position(|t| *t == ")").map(|p| i + p) else {
            break;
        };
        let qualifier = |q: &str| {
            tokens[i + 2..close]
                .windows(3)
                .find(|w| w[0] == q && w[1] == "=")
                .and_then(|w| w[2].parse::<u32>().ok())
        };
        let (location, binding) = (qualifier("location"), qualifier("binding"));
        i = close + 1;
        // Further qualifiers up to `uniform`.
        let mut j = i;
        while j < tokens.len()
            && !matches!(tokens[j], "uniform" | "in" | "out" | "buffer" | ";" | "{")
        {
            j += 1;
        }
        if tokens.get(j) != Some(&"uniform") {
            continue;
        }
        j += 1;
        // Precision qualifiers, then the type.
        while matches!(tokens.get(j), Some(&("highp" | "mediump" | "lowp"))) {
            j += 1;
        }
        if tokens.get(j) == Some(&"struct") {
            let Some(open) = tokens[j..].iter().position(|t| *t == "{").map(|p| j + p) else {
                continue;
            };
            let mut depth = 0;
            j = open;
            while j < tokens.len() {
                match tokens[j] {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        j += 1;
        if let Some(name) = tokens.get(j) {
            if name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                found.push((location, binding, name.to_string()));
            }
        }
        i = j;
    }
    found
}

fn strip_brackets(s: &str) -> String {
    let mut depth = 0;
    s.chars()
        .filter(|c| {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}

/// GL's binding point of the block `name` declared with `keyword` (`buffer`, `uniform`):
/// the `binding = N` among the qualifiers before `keyword name` (back to the previous `;`
/// or `}`), else 0.
pub(super) fn gl_block_binding(source: &str, keyword: &str, name: &str) -> u32 {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut search = 0;
    while let Some(found) = source[search..].find(keyword) {
        let at = search + found;
        search = at + keyword.len();
        let before_ok = source[..at].chars().next_back().is_none_or(|c| !is_word(c));
        let rest = source[search..].trim_start();
        let after_ok = rest.starts_with(name)
            && rest[name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !is_word(c));
        if !(before_ok && after_ok) {
            continue;
        }
        let start = source[..at].rfind([';', '}']).map_or(0, |p| p + 1);
        let qualifiers: String = source[start..at]
            .chars()
            .map(|c| if is_word(c) || c == '=' { c } else { ' ' })
            .collect();
        let words: Vec<&str> = qualifiers
            .split(|c: char| c.is_whitespace() || c == '=')
            .filter(|w| !w.is_empty())
            .collect();
        return words
            .windows(2)
            .find(|w| w[0] == "binding")
            .and_then(|w| w[1].parse().ok())
            .unwrap_or(0);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_locations_are_found_by_name() {
        let names = explicit_location_names(
            "layout(location = 2) out vec4 a;\nlayout(std140) uniform U { vec4 x; };\n\
             layout(location=1) out B { vec4 m; } inst;\nlayout(location=4) in float arr[3];\nout vec4 c;\n\
             layout(location = 6) out struct S { vec4 a; } s[2];",
        );
        let mut v: Vec<_> = names.into_iter().collect();
        v.sort();
        assert_eq!(v, vec!["B", "a", "arr", "s"]);
    }

    #[test]
    fn buffer_bindings_come_from_the_source() {
        let src = "layout(std430, binding = 3) buffer Out { float x; } o;\nbuffer Def { int y; };\n\
                   layout(binding=1) uniform U { float u; };\nlayout(std430 , binding= 5 ) readonly buffer In2 { float z; };";
        assert_eq!(gl_block_binding(src, "buffer", "Out"), 3);
        assert_eq!(gl_block_binding(src, "buffer", "Def"), 0);
        assert_eq!(gl_block_binding(src, "buffer", "In2"), 5);
        assert_eq!(gl_block_binding(src, "buffer", "Missing"), 0);
        assert_eq!(gl_block_binding(src, "uniform", "U"), 1);
    }
}
