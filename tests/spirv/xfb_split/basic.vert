#version 440
// DESIGN.md/issue 5: {float f; vec4 v; float f2[2];} captured at xfb_offset 0 is f@0,
// v@4, f2@20/24 (28 bytes). Written through constant and dynamic indices and a
// whole-struct store, so every kind of access goes through the shadow.
layout(location = 0) in vec4 piglit_vertex;
struct S {
    float f;
    vec4 v;
    float f2[2];
};
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out S s;
void main()
{
    gl_Position = piglit_vertex;
    S t;
    t.f = 1.0;
    t.v = vec4(2.0, 3.0, 4.0, 5.0);
    t.f2[0] = 6.0;
    t.f2[1] = 0.0;
    s = t;
    s.f2[gl_VertexIndex & 1] += 7.0;
}
