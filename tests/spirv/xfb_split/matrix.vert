#version 440
// A matrix output on its own is captured column by column too (NVIDIA garbles a captured
// dmat3x4 even alone, DESIGN.md §4.2): dmat2x3 is two dvec3 columns of 24 bytes and two
// Locations each, at offsets 8 and 32 after a leading float (doubles start at a multiple
// of 8). Stride 56.
layout(location = 0) in vec4 piglit_vertex;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out float head;
layout(location = 1, xfb_buffer = 0, xfb_offset = 8) out dmat2x3 m;
void main()
{
    gl_Position = piglit_vertex;
    head = 1.0;
    m = dmat2x3(2.0LF);
}
