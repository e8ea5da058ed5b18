#version 450
// COUNT float varyings (-DCOUNT=n): n Locations, one each. 40 is past every limit seen
// (maxVertexOutputComponents / 4 = 32 on lavapipe and NVIDIA).
layout(location = 0) out float v[COUNT];
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
    for (int i = 0; i < COUNT; i++) {
        v[i] = float(i + 1) / 64.0;
    }
}
