//! The documentation against the code and against itself: `docs/semantics.md` has one
//! section per entry of the semantic registry, named as the registry names it and in its
//! order; every relative link in `README.md` and `docs/*.md` names a file of the repository
//! (and, into a Markdown file, one of its headings). No GPU, no tools.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use glsem_spirv::semantics::SEMANTICS;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of a Markdown file outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            lines.push(line);
        }
    }
    lines
}

/// The name a `## ` heading gives in backticks first, as in "## `fragcolor`: gl_FragColor
/// broadcast"; headings without one (shared sections) name no semantic.
fn semantic_heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## `")?;
    Some(&rest[..rest.find('`')?])
}

#[test]
fn semantics_doc_has_a_section_per_registry_entry_in_order() {
    let text = read(&repo().join("docs/semantics.md"));
    let documented: Vec<&str> = prose_lines(&text)
        .into_iter()
        .filter_map(semantic_heading)
        .collect();
    let registry: Vec<&str> = SEMANTICS.iter().map(|s| s.name).collect();
    assert_eq!(
        documented, registry,
        "docs/semantics.md's \"## `name`\" headings must be crates/glsem-spirv/src/semantics/registry.rs's SEMANTICS names, \
         in its order"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose_lines(text)
        .into_iter()
        .filter_map(|line| {
            let hashes = line.len() - line.trim_start_matches('#').len();
            (1..=6).contains(&hashes).then(|| anchor(&line[hashes..]))
        })
        .collect()
}

/// The targets of the inline links and images of a line: `[text](target)`, outside code
/// spans (where `float[](1.0)` is GLSL, not a link).
fn link_targets(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    // Every other piece between backticks is code.
    for (i, prose) in line.split('`').enumerate() {
        if i % 2 == 0 {
            targets.extend(prose_link_targets(prose));
        }
    }
    targets
}

fn prose_link_targets(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].trim());
        rest = &after[end..];
    }
    targets
}

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn relative_links_in_readme_and_docs_resolve_inside_the_repository() {
    let root = repo().canonicalize().unwrap();
    let mut broken = Vec::new();
    for file in markdown_files(&root) {
        let text = read(&file);
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        if text.contains("../shared") {
            broken.push(format!("{name}: names ../shared, outside the repository"));
        }
        for target in prose_lines(&text).into_iter().flat_map(link_targets) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target, None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let Ok(resolved) = resolved.canonicalize() else {
                broken.push(format!("{name}: ({target}) names no file"));
                continue;
            };
            if !resolved.starts_with(&root) {
                broken.push(format!("{name}: ({target}) is outside the repository"));
                continue;
            }
            if let Some(fragment) = fragment {
                let is_markdown = resolved.extension().is_some_and(|e| e == "md");
                if is_markdown && !anchors(&read(&resolved)).contains(fragment) {
                    broken.push(format!("{name}: ({target}) names no heading there"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_githubs_rule() {
    assert_eq!(
        anchor(" `tcs`: tessellation without a control shader"),
        "tcs-tessellation-without-a-control-shader"
    );
    assert_eq!(
        anchor(" `VK_GLSEM_gl_state`: GL's state and conventions"),
        "vk_glsem_gl_state-gls-state-and-conventions"
    );
    assert_eq!(
        link_targets("see [a](docs/a.md#b) and ![c](d.png)."),
        ["docs/a.md#b", "d.png"]
    );
}
