#version 450
// DESIGN.md §4.2's GL reference: a struct with a dmat3x4 captured from a TES at
// xfb_offset 0 (GL: a@0, b@96, c@104, d@112, 128 bytes per vertex).
layout(triangles) in;

struct TestStruct {
    dmat3x4 a;
    double b;
    float c;
    dvec2 d;
};

layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out TestStruct s;

void main()
{
    vec3 w = gl_TessCoord;
    s.a = dmat3x4(w.x);
    s.b = double(w.y);
    s.c = w.z;
    s.d = dvec2(w.xy);
    gl_Position = gl_in[0].gl_Position * w.x + gl_in[1].gl_Position * w.y
        + gl_in[2].gl_Position * w.z;
}
