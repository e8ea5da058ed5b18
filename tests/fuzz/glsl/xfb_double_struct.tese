#version 450
// DESIGN.md 4.2: a at 0, b at 96, c at 104, d at 112, 128 bytes per struct.
layout(triangles) in;
struct TestStruct { dmat3x4 a; double b; float c; dvec2 d; };
layout(xfb_buffer = 0, xfb_offset = 0, location = 0) out TestStruct t;
void main()
{
    t.a = dmat3x4(gl_TessCoord.x);
    t.b = 1.0lf;
    t.c = gl_TessCoord.y;
    t.d = dvec2(gl_TessCoord.z);
    gl_Position = gl_in[0].gl_Position * gl_TessCoord.x
                + gl_in[1].gl_Position * gl_TessCoord.y
                + gl_in[2].gl_Position * gl_TessCoord.z;
}
