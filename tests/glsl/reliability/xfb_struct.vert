#version 450
// A struct captured by transform feedback: the layer splits it member by member.
struct S {
    float f;
    vec4 v;
};
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out S s;
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
    s.f = float(gl_VertexIndex);
    s.v = vec4(p, 0.0, 1.0);
}
