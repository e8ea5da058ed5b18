#version 450
// A full-screen triangle, counter-clockwise in GL's window coordinates (y up), handing on
// its normalized y, which grows upward in GL's window.
layout(location = 0) out float up;
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2) * 2.0 - 1.0;
    up = p.y;
    gl_Position = vec4(p, 0.0, 1.0);
}
