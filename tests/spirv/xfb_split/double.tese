#version 440
// DESIGN.md §4.2 GL reference: {dmat3x4 a; double b; float c; dvec2 d;} captured from a
// TES at xfb_offset 0 puts a at 0, b at 96, c at 104, d at 112; 128 bytes per vertex.
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
    gl_Position = gl_in[0].gl_Position * gl_TessCoord.x
                + gl_in[1].gl_Position * gl_TessCoord.y
                + gl_in[2].gl_Position * gl_TessCoord.z;
    const double tiny = 1.0LF / 1099511627776.0LF; // 2^-40: lost if captured as float
    s.a = dmat3x4(1.0LF + tiny);
    s.a[2][3] = 12.0LF + tiny;
    s.b = 13.0LF + tiny;
    s.c = 14.0;
    s.d = dvec2(15.0LF + tiny, 16.0LF + tiny);
}
