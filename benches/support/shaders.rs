//! The SPIR-V the benchmarks feed the layer: GLSL under `benches/support/shaders/`, and a
//! generated ≥ 1 MB fragment shader, compiled by glslang at bench time (as GL-style GLSL:
//! `-V -R --amb`, the way the runner compiles scenes).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::spirv_tools;

const SOURCES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/support/shaders");

/// A scratch directory for this process (compiled modules, spirv-opt input and output).
pub fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glsem-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// The little-endian bytes of `words` written to `path`.
pub fn write_words(path: &Path, words: &[u32]) {
    std::fs::write(path, spirv_tools::bytes(words))
        .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Compiles the GLSL file `path` (stage from its extension) to SPIR-V 1.0.
fn compile_path(path: &Path) -> Vec<u32> {
    spirv_tools::compile(path, &["-R", "--amb", "--target-env", "vulkan1.0"])
}

/// Compiles `benches/support/shaders/<file>`.
pub fn compile(file: &str) -> Vec<u32> {
    compile_path(&Path::new(SOURCES).join(file))
}

/// How the generated large fragment shader writes its colour.
#[derive(Clone, Copy)]
pub enum Output {
    /// GL style: `gl_FragColor` (glsem broadcasts it).
    FragColor,
    /// Vulkan style: `layout(location = 0) out vec4` (glsem's fast path passes it down).
    Located,
}

/// A fragment shader of `functions` chained functions with branches and loops, the shape
/// of a large real shader: almost all of its words are function bodies. 850 functions give
/// about 1.1 MB of SPIR-V.
pub fn large_fragment_shader(functions: usize, output: Output) -> Vec<u32> {
    let (header, target) = match output {
        Output::FragColor => ("#version 140\n", "gl_FragColor"),
        Output::Located => (
            "#version 450\nlayout(location = 0) out vec4 color;\n",
            "color",
        ),
    };
    let mut glsl = String::from(header);
    for k in 0..functions {
        let previous = match k {
            0 => "a".to_owned(),
            _ => format!("f{}(a.wzyx)", k - 1),
        };
        glsl.push_str(&format!(
            "vec4 f{k}(vec4 v)\n{{\n\
             \x20   vec4 a = v * {scale:.4} + vec4({bias:.3}, 0.5, 0.25, 1.0);\n\
             \x20   float s = dot(a, a.yzwx) * {weight:.5};\n\
             \x20   if (s > {threshold}.5) {{\n\
             \x20       a = sin(a) * s + a.yzwx;\n\
             \x20   }} else {{\n\
             \x20       a = abs(a) - vec4(s);\n\
             \x20   }}\n\
             \x20   for (int i = 0; i < 3; i++) {{\n\
             \x20       a += cos(a * float(i)) * 0.125;\n\
             \x20   }}\n\
             \x20   return {previous} * 0.5 + a;\n}}\n",
            scale = 1.0 + k as f64 * 0.001,
            bias = k as f64 * 0.01,
            weight = 0.5 + k as f64 * 0.0001,
            threshold = k % 7,
        ));
    }
    glsl.push_str(&format!(
        "void main()\n{{\n    {target} = f{}(gl_FragCoord);\n}}\n",
        functions - 1
    ));
    let name = match output {
        Output::FragColor => "large_fragcolor.frag",
        Output::Located => "large_located.frag",
    };
    let path = scratch_dir().join(name);
    std::fs::write(&path, glsl).expect("write the generated shader");
    compile_path(&path)
}

/// A copy of `words` that no earlier call returned, with the same meaning: the header's id
/// bound is raised (any bound above the highest id is valid). The rewrite cache and the
/// driver see a new module, so a rewrite of it is cold.
pub fn fresh(words: &[u32]) -> Vec<u32> {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let mut copy = words.to_vec();
    copy[3] += NEXT.fetch_add(1, Ordering::Relaxed);
    copy
}
