#version 450
// Three control points of one triangle patch, from gl_VertexIndex.
layout(location = 0) out vec3 tint;
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
    tint = vec3(p, 1.0);
}
