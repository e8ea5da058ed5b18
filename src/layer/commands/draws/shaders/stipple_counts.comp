// GL's stipple counted on over a strip by the fragment line route
// (src/layer/commands/draws/line_passes.rs; glsem_spirv::stipple_counts). The vertex shader
// wrote each vertex's clip position to `clip`; one invocation per instance walks its strip
// (or loop) and writes, in the z and w of the vertex that provokes each segment, the stipple
// count at that vertex and the segment's length. As Mesa's GL counts: a strip's count starts at 0, and a
// segment of length L along its major axis in the window takes ceil(L) steps of one pixel
// each, testing count + 0, + 1, ... (glsem_spirv::line_fragment), the next segment going on
// from count + ceil(L).
//
// Compiled into stipple_counts.spv (tests/passes/layer_shaders.rs checks that they agree):
//   glslangValidator -V --target-env vulkan1.0 -o stipple_counts.spv stipple_counts.comp
#version 450

layout(local_size_x = 1) in;

const uint PROVOKING_LAST = 1u;
const uint CLOSED = 2u;

// glsem_spirv::stipple_counts::StippleCounts.
layout(std430, set = 0, binding = 0) buffer StippleCounts {
    uint vertices;
    uint first;
    uint slots;
    uint flags;
    vec2 viewport_scale;  // viewport 0: window = ndc * scale + offset
    vec2 viewport_offset;
    vec4 clip[];
};

vec2 window(vec4 position) {
    return position.xy / position.w * viewport_scale + viewport_offset;
}

void main() {
    uint n = vertices;
    uint base = gl_WorkGroupID.x * n;
    if (n < 2u || base + n > slots) {
        return;
    }
    bool last = (flags & PROVOKING_LAST) != 0u;
    uint segments = (flags & CLOSED) != 0u ? n : n - 1u;
    float count = 0.0;
    // Positions are read before the slots that held them are written.
    vec4 first = clip[base];
    vec4 pa = first;
    for (uint s = 0u; s < segments; s++) {
        uint b = base + (s + 1u) % n;
        vec4 pb = s + 1u == n ? first : clip[b];
        // A segment with an end behind the eye is clipped: counted only where both ends
        // lie in front.
        float length = 0.0;
        if (pa.w > 0.0 && pb.w > 0.0) {
            vec2 d = abs(window(pb) - window(pa));
            length = max(d.x, d.y);
        }
        // The provoking vertex gets the count at its end of the segment (its start, or its
        // end `length` steps on) and the segment's length.
        clip[last ? b : base + s].zw = vec2(last ? count + length : count, length);
        count += ceil(length);
        pa = pb;
    }
}
