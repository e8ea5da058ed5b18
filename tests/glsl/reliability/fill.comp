#version 450
// Writes 3i + 1 into element i.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out {
    uint v[];
};
void main() {
    v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u + 1u;
}
