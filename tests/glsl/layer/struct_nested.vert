#version 450
// The nested struct of xfb_nested.vert, not captured: libraries split it on both sides
// all the same (neither can tell), so the interfaces still match.
struct Inner {
    float x;
    vec2 y;
};
struct Outer {
    vec3 p;
    Inner i;
    float z;
};
layout(location = 0) out Outer o;
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
    o.p = vec3(p, 1.0);
    o.i = Inner(float(gl_VertexIndex), vec2(0.25, 0.5));
    o.z = 0.75;
}
