// GL's line loops of indexed and indirect draws (src/layer/commands/converted_draws.rs):
// writes, per draw, the index list of a line strip that closes every loop, and the
// VkDrawIndexedIndirectCommand that draws it. One invocation per draw, each in its own
// region of `capacity` indices: the application's indices or parameters are read here, on
// the GPU, after whatever wrote them earlier in the command stream.
//
// Compiled into close_loops.spv (tests/converted_draw_shaders.rs checks that the two agree):
//   glslangValidator -V --target-env vulkan1.0 -o close_loops.spv close_loops.comp
#version 450

layout(local_size_x = 1) in;

const uint KIND_INDEXED = 0u;          // vkCmdDrawIndexed: `direct` holds the draw
const uint KIND_INDIRECT = 1u;         // vkCmdDrawIndirect: non-indexed commands
const uint KIND_INDEXED_INDIRECT = 2u; // vkCmdDrawIndexedIndirect
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
} params;
layout(std430, set = 0, binding = 1) readonly buffer AppIndices { uint words[]; } app_indices;
layout(std430, set = 0, binding = 2) readonly buffer AppCommands { uint words[]; } app_commands;
layout(std430, set = 0, binding = 3) writeonly buffer Indices { uint indices[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Commands { uint commands[]; };

uint app_index(uint element) {
    uint byte_at = params.index_offset + element * params.index_bytes;
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

void main() {
    uint draw = gl_GlobalInvocationID.x;
    bool indexed = params.kind != KIND_INDIRECT;
    uint count, instances, first, vertex_offset, first_instance;
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
    uint base = draw * params.capacity;
    // A loop of n vertices takes n + 2 indices (its first again, a restart): at most two
    // per vertex. What would not fit is left out, as the layer's setting documents.
    count = min(count, params.capacity / 2u);
    bool restarts = indexed && params.restart != 0u;
    uint restart_value = all_ones();
    uint written = 0u;
    uint loop_first = 0u;
    uint loop_length = 0u;
    for (uint i = 0u; i <= count; i++) {
        bool end = i == count;
        uint index = 0u;
        if (!end) {
            index = indexed ? app_index(first + i) : first + i;
            end = restarts && index == restart_value;
        }
        if (end) {
            // Close the loop that ends here: back to its first vertex, then a restart so
            // that nothing joins it to the next. A single vertex draws nothing in GL.
            if (loop_length >= 2u) {
                indices[base + written] = loop_first;
                written += 1u;
                if (restarts) {
                    indices[base + written] = RESTART;
                    written += 1u;
                }
            } else if (loop_length == 1u) {
                written -= 1u;
            }
            loop_length = 0u;
            continue;
        }
        if (loop_length == 0u) {
            loop_first = index;
        }
        indices[base + written] = index;
        written += 1u;
        loop_length += 1u;
    }
    uint at = draw * 5u;
    commands[at + 0u] = written;
    commands[at + 1u] = instances;
    commands[at + 2u] = params.index_base + base;
    commands[at + 3u] = vertex_offset;
    commands[at + 4u] = first_instance;
}
