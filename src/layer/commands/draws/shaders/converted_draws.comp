// Draws the layer converts on the GPU (src/layer/commands/draws/converted_draws.rs): from the
// application's indices or indirect commands, read here after whatever wrote them earlier
// in the command stream, it writes per draw the indices the layer draws instead and the
// VkDrawIndexedIndirectCommand that draws them. One invocation per draw, each writing its
// own region of `capacity` indices. Two modes:
//   MODE_LOOPS       GL's line loops: a line strip with every loop closed (its first index
//                    again) and a restart after each, so that nothing joins two loops;
//   MODE_PRIMITIVES  GL_QUADS, GL_QUAD_STRIP, GL_POLYGON: a triangle, line or point list,
//                    `pattern` repeated per period of each run between restarts (the
//                    layer's glsem_spirv::semantics::IndexedPrimitive), GL's
//                    incomplete primitives dropped.
//
// Compiled into converted_draws.spv (tests/passes/layer_shaders.rs checks that they agree):
//   glslangValidator -V --target-env vulkan1.0 -o converted_draws.spv converted_draws.comp
#version 450

layout(local_size_x = 1) in;

const uint KIND_INDEXED = 0u;          // vkCmdDrawIndexed: `direct` holds the draw
const uint KIND_INDIRECT = 1u;         // vkCmdDrawIndirect: non-indexed commands
const uint KIND_INDEXED_INDIRECT = 2u; // vkCmdDrawIndexedIndirect
const uint MODE_LOOPS = 0u;
const uint MODE_PRIMITIVES = 1u;
const uint QUADS = 0u;
const uint QUAD_STRIP = 1u;
const uint POLYGON = 2u;
const uint FILL = 0u;
const uint LINES = 1u;
const uint RESTART = 0xFFFFFFFFu;      // the restart index of the UINT32 output

layout(std430, set = 0, binding = 0) readonly buffer Params {
    uint kind;
    uint index_bytes;     // 1, 2 or 4
    uint index_offset;    // byte offset of the bound index buffer in `app_indices`
    uint restart;         // primitive restart enabled
    uint command_offset;  // byte offset of the first command in `app_commands`
    uint command_stride;  // bytes between commands
    uint capacity;        // output indices per draw
    uint direct[5];       // KIND_INDEXED: indexCount, instanceCount, firstIndex,
                          // vertexOffset, firstInstance
    uint index_base;      // where `indices` begins in the layer's buffer, in indices
                          // (it is bound at offset 0: lavapipe's indirect draws did not
                          // honour the offset of a bound index buffer)
    uint mode;
    uint primitive;       // MODE_PRIMITIVES: QUADS, QUAD_STRIP or POLYGON
    uint rasterized;      // FILL, LINES or points
    uint pattern_length;
    uint pattern[8];      // a period's indices, from its first vertex (a polygon's fill:
                          // 0 is the polygon's first vertex)
    uint period_stride;   // vertices from one period to the next
    uint zero_first_instance; // the vertex shader takes the base instance from the
                          // GL-state block, where an indirect draw pushes 0
} params;
layout(std430, set = 0, binding = 1) readonly buffer AppIndices { uint words[]; } app_indices;
layout(std430, set = 0, binding = 2) readonly buffer AppCommands { uint words[]; } app_commands;
layout(std430, set = 0, binding = 3) writeonly buffer Indices { uint indices[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Commands { uint commands[]; };

bool indexed;
uint first;

// The vertex index of the draw's element `element` (an index, or the vertex itself).
uint vertex(uint element) {
    if (!indexed) {
        return first + element;
    }
    uint byte_at = params.index_offset + (first + element) * params.index_bytes;
    uint word = app_indices.words[byte_at >> 2];
    if (params.index_bytes == 4u) {
        return word;
    }
    uint bits = params.index_bytes * 8u;
    return (word >> ((byte_at & 3u) * 8u)) & ((1u << bits) - 1u);
}

uint all_ones() {
    return params.index_bytes == 4u ? 0xFFFFFFFFu : (1u << (params.index_bytes * 8u)) - 1u;
}

uint command_word(uint draw, uint word) {
    return app_commands.words[(params.command_offset + draw * params.command_stride) / 4u + word];
}

// GL's complete primitives in a run of `n` vertices (glsem_spirv's `periods`).
uint periods(uint n) {
    if (params.primitive == QUADS) {
        return n / 4u;
    }
    if (params.primitive == QUAD_STRIP) {
        return n >= 4u ? (n - 2u) / 2u : 0u;
    }
    if (n < 3u) {
        return 0u;
    }
    return params.rasterized == FILL ? n - 2u : (params.rasterized == LINES ? n - 1u : n);
}

uint base;
uint written;

void emit(uint index) {
    indices[base + written] = index;
    written += 1u;
}

// The run of elements [start, start + n): GL's primitives of it.
void primitives(uint start, uint n) {
    bool fan = params.primitive == POLYGON && params.rasterized == FILL;
    uint count = periods(n);
    for (uint p = 0u; p < count; p++) {
        for (uint j = 0u; j < params.pattern_length; j++) {
            uint k = params.pattern[j];
            emit(vertex(start + ((fan && k == 0u) ? 0u : p * params.period_stride + k)));
        }
    }
    // A polygon's edges: the closing one, from its last vertex back to its first.
    if (params.primitive == POLYGON && params.rasterized == LINES && n >= 3u) {
        emit(vertex(start + n - 1u));
        emit(vertex(start));
    }
}

void main() {
    uint draw = gl_GlobalInvocationID.x;
    indexed = params.kind != KIND_INDIRECT;
    uint count, instances, vertex_offset, first_instance;
    if (params.kind == KIND_INDEXED) {
        count = params.direct[0];
        instances = params.direct[1];
        first = params.direct[2];
        vertex_offset = params.direct[3];
        first_instance = params.direct[4];
    } else if (params.kind == KIND_INDEXED_INDIRECT) {
        count = command_word(draw, 0u);
        instances = command_word(draw, 1u);
        first = command_word(draw, 2u);
        vertex_offset = command_word(draw, 3u);
        first_instance = command_word(draw, 4u);
    } else {
        count = command_word(draw, 0u);
        instances = command_word(draw, 1u);
        first = command_word(draw, 2u);
        vertex_offset = 0u;
        first_instance = command_word(draw, 3u);
    }
    base = draw * params.capacity;
    written = 0u;
    // What would not fit is left out, as the layer documents: a loop of n vertices takes
    // at most 2n indices, GL's primitives at most 4n + 4.
    count = min(count, params.mode == MODE_LOOPS ? params.capacity / 2u
                                                 : (params.capacity - 4u) / 4u);
    bool restarts = indexed && params.restart != 0u;
    uint restart_value = all_ones();
    uint run_start = 0u;
    for (uint i = 0u; i <= count; i++) {
        bool end = i == count || (restarts && vertex(i) == restart_value);
        if (!end) {
            continue;
        }
        uint n = i - run_start;
        if (params.mode == MODE_PRIMITIVES) {
            primitives(run_start, n);
        } else if (n >= 2u) {
            // A loop: its vertices, its first again, and a restart so that nothing joins
            // it to the next. A single vertex draws nothing in GL.
            for (uint k = 0u; k < n; k++) {
                emit(vertex(run_start + k));
            }
            emit(vertex(run_start));
            if (restarts) {
                emit(RESTART);
            }
        }
        run_start = i + 1u;
    }
    uint at = draw * 5u;
    commands[at + 0u] = written;
    commands[at + 1u] = instances;
    commands[at + 2u] = params.index_base + base;
    commands[at + 3u] = vertex_offset;
    commands[at + 4u] = params.zero_first_instance != 0u ? 0u : first_instance;
}
