#version 450
// quads.vert's left quad, each vertex captured by transform feedback as its index.
layout(location = 0) flat out vec4 color;
layout(location = 1, xfb_buffer = 0, xfb_offset = 0) out float id;
const vec2 corners[4] = vec2[4](vec2(-1.0, -1.0), vec2(0.0, -1.0), vec2(0.0, 1.0), vec2(-1.0, 1.0));
void main() {
    gl_Position = vec4(corners[gl_VertexIndex % 4], 0.0, 1.0);
    color = vec4(float(gl_VertexIndex) * 32.0 / 255.0, 0.0, 0.0, 1.0);
    id = float(gl_VertexIndex);
}
