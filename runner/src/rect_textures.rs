//! GL's rectangle textures (`sampler2DRect`, `sampler2DRectShadow`) for a shader that reads
//! them only through their own lookups (`texture2DRect`, `texture2DRectProj`,
//! `shadow2DRect`, `shadow2DRectProj`). SPIR-V for Vulkan has no rectangle images (no
//! `SampledRect` capability), and a Vulkan sampler with unnormalized coordinates cannot
//! compare depth, so the samplers become 2D ones and each lookup divides its texel
//! coordinates by the texture's size ([`rectangle_lookups`]): the same texels, as GL's
//! rectangle textures have one level and clamp. A shader that passes a rectangle sampler
//! to the generic lookups (`texture`, `texelFetch`, …) is left as it is.

use crate::fixes::{after_extensions, declared_version, without_comments, word_positions};

/// The lookups this fix rewrites: GLSL 1.40's rectangle functions.
const RECT_LOOKUPS: [&str; 4] = [
    "texture2DRect",
    "texture2DRectProj",
    "shadow2DRect",
    "shadow2DRectProj",
];

/// Lookups that could take a rectangle sampler besides [`RECT_LOOKUPS`]: where a shader
/// has one, the fix does not apply.
const GENERIC_LOOKUPS: [&str; 15] = [
    "texture",
    "textureProj",
    "textureLod",
    "textureOffset",
    "textureProjOffset",
    "textureGrad",
    "textureGradOffset",
    "textureProjGrad",
    "textureProjGradOffset",
    "texelFetch",
    "texelFetchOffset",
    "textureSize",
    "textureGather",
    "textureGatherOffset",
    "textureGatherOffsets",
];

/// The declarations that replace the rectangle types and lookups. A shadow lookup returns
/// (r, 0, 0, 1): GL reads a depth texture as RED (GL 3.2 core §3.8.15; GL's own result for
/// piglit's GLSL 1.40 scenes).
const PRELUDE: [&str; 12] = [
    "#define sampler2DRect sampler2D",
    "#define sampler2DRectShadow sampler2DShadow",
    "vec2 glsem_rect(vec2 p, ivec2 size) { return p / vec2(size); }",
    "vec4 glsem_texture2DRect(sampler2D s, vec2 p) { return texture(s, glsem_rect(p, textureSize(s, 0))); }",
    "vec4 glsem_texture2DRectProj(sampler2D s, vec3 p) { return textureProj(s, vec3(glsem_rect(p.xy, textureSize(s, 0)), p.z)); }",
    "vec4 glsem_texture2DRectProj(sampler2D s, vec4 p) { return textureProj(s, vec4(glsem_rect(p.xy, textureSize(s, 0)), p.zw)); }",
    "vec4 glsem_shadow2DRect(sampler2DShadow s, vec3 p) { return vec4(texture(s, vec3(glsem_rect(p.xy, textureSize(s, 0)), p.z)), 0.0, 0.0, 1.0); }",
    "vec4 glsem_shadow2DRectProj(sampler2DShadow s, vec4 p) { return vec4(textureProj(s, vec4(glsem_rect(p.xy, textureSize(s, 0)), p.zw)), 0.0, 0.0, 1.0); }",
    "#define texture2DRect glsem_texture2DRect",
    "#define texture2DRectProj glsem_texture2DRectProj",
    "#define shadow2DRect glsem_shadow2DRect",
    "#define shadow2DRectProj glsem_shadow2DRectProj",
];

/// The unit with its rectangle samplers made 2D ones and its rectangle lookups taking
/// normalized coordinates, if it has rectangle samplers (GLSL 1.30+) and no other lookup
/// could read them; else `None`.
pub fn rectangle_lookups(source: &str) -> Option<String> {
    let code = without_comments(source);
    let has = |word: &str| word_positions(&code, word).next().is_some();
    let rectangles = has("sampler2DRect") || has("sampler2DRectShadow");
    if !rectangles
        || declared_version(source).unwrap_or(110) < 130
        || GENERIC_LOOKUPS.iter().any(|w| has(w))
        || !RECT_LOOKUPS.iter().any(|w| has(w))
    {
        return None;
    }
    let lines: Vec<String> = PRELUDE.iter().map(|l| l.to_string()).collect();
    Some(after_extensions(source, &lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_shader_reading_rectangles_through_their_own_lookups() {
        let rect = "#version 140\nuniform sampler2DRectShadow s;\nout vec4 c;\n\
                    void main() { c = shadow2DRect(s, vec3(1.0)); }\n";
        let fixed = rectangle_lookups(rect).unwrap();
        assert!(fixed.contains("#define shadow2DRect glsem_shadow2DRect"));
        assert!(fixed.ends_with("void main() { c = shadow2DRect(s, vec3(1.0)); }\n"));
        for untouched in [
            rect.replace("shadow2DRect(", "texture("),
            rect.replace("#version 140", "#version 120"),
            rect.replace("sampler2DRectShadow", "sampler2DShadow"),
        ] {
            assert_eq!(rectangle_lookups(&untouched), None, "{untouched}");
        }
    }
}
