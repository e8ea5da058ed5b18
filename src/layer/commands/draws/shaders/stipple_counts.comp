// GL's stipple counted on over a strip by the fragment line route
// (src/layer/commands/draws/line_passes.rs; glsem_spirv::stipple_counts). The vertex shader
// wrote each vertex's clip position to `clip[slot]` (the slot of index, or vertex, v of
// instance i: v + i * vertices, both counted from the draw's first); one invocation per
// instance walks its strips
// (or loops) in the draw's order and writes, for the vertex that provokes each segment, the
// stipple count at that vertex and the segment's length, at `clip[slots + its slot].xy`.
// As Mesa's GL counts: a strip's count starts at 0, and a segment of length L along its
// major axis in the window takes ceil(L) steps of one pixel, testing count + 0, + 1, ...
// (glsem_spirv::line_fragment), the next segment going on from count + ceil(L). An indexed
// draw's strips are read from the application's indices, a restart index ending one.
//
// Compiled into stipple_counts.spv (tests/passes/layer_shaders.rs checks that they agree):
//   glslangValidator -V --target-env vulkan1.0 -o stipple_counts.spv stipple_counts.comp
#version 450

layout(local_size_x = 1) in;

const uint PROVOKING_LAST = 1u;
const uint CLOSED = 2u;
const uint INDEXED = 4u;
const uint RESTART = 8u;

// glsem_spirv::stipple_counts::StippleCounts.
layout(std430, set = 0, binding = 0) buffer StippleCounts {
    uint vertices;        // slots per instance: the vertex count, or the indices' span
    uint first_vertex;    // the vertex shader's (firstVertex, or vertexOffset)
    uint slots;
    uint flags;
    vec2 viewport_scale;  // viewport 0: window = ndc * scale + offset
    vec2 viewport_offset;
    uint first_instance;  // the vertex shader's
    uint index_count;     // INDEXED: the draw's indexCount,
    uint first_index;     // firstIndex,
    uint index_bytes;     // 1, 2 or 4,
    uint index_offset;    // and the bound index buffer's offset in `app_indices`, in bytes
    uint pad[3];
    vec4 clip[];
};
layout(std430, set = 0, binding = 1) readonly buffer AppIndices { uint words[]; } app_indices;

vec2 window(vec4 position) {
    return position.xy / position.w * viewport_scale + viewport_offset;
}

// The draw's element `element`: its index, or the vertex itself.
uint element_vertex(uint element) {
    if ((flags & INDEXED) == 0u) {
        return element;
    }
    uint byte_at = index_offset + (first_index + element) * index_bytes;
    uint word = app_indices.words[byte_at >> 2];
    if (index_bytes == 4u) {
        return word;
    }
    uint bits = index_bytes * 8u;
    return (word >> ((byte_at & 3u) * 8u)) & ((1u << bits) - 1u);
}

bool is_restart(uint v) {
    uint all_ones = index_bytes == 4u ? 0xFFFFFFFFu : (1u << (index_bytes * 8u)) - 1u;
    return (flags & (INDEXED | RESTART)) == (INDEXED | RESTART) && v == all_ones;
}

// Counts the strip (or loop) of the draw's elements [start, end) of instance `base`.
void count_strip(uint start, uint end, uint base, bool last, bool closed) {
    uint n = end - start;
    if (n < 2u) {
        return;
    }
    uint segments = closed ? n : n - 1u;
    float count = 0.0;
    for (uint s = 0u; s < segments; s++) {
        uint va = element_vertex(start + s);
        uint vb = element_vertex(start + (s + 1u) % n);
        // An index past the slots' span is not counted (the vertex shader left it out).
        if (va >= vertices || vb >= vertices) {
            return;
        }
        vec4 pa = clip[base + va];
        vec4 pb = clip[base + vb];
        // A segment with an end behind the eye is clipped: counted only where both ends
        // lie in front.
        float length = 0.0;
        if (pa.w > 0.0 && pb.w > 0.0) {
            vec2 d = abs(window(pb) - window(pa));
            length = max(d.x, d.y);
        }
        // The provoking vertex gets the count at its end of the segment (its start, or its
        // end `length` steps on) and the segment's length.
        uint provoking = base + (last ? vb : va);
        clip[slots + provoking].xy = vec2(last ? count + length : count, length);
        count += ceil(length);
    }
}

void main() {
    uint base = gl_WorkGroupID.x * vertices;
    if (base + vertices > slots) {
        return;
    }
    bool last = (flags & PROVOKING_LAST) != 0u;
    bool closed = (flags & CLOSED) != 0u;
    uint elements = (flags & INDEXED) != 0u ? index_count : vertices;
    uint start = 0u;
    for (uint e = 0u; e < elements; e++) {
        if (is_restart(element_vertex(e))) {
            count_strip(start, e, base, last, closed);
            start = e + 1u;
        }
    }
    count_strip(start, elements, base, last, closed);
}
