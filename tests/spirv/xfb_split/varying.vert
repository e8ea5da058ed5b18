#version 440
// A captured struct that the fragment shader (varying.frag) also reads: both sides split
// the same way, so the interface still matches Location by Location.
layout(location = 0) in vec4 piglit_vertex;
struct Varying {
    vec4 color;
    float scale;
    int tag;
};
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) flat out Varying var_out;
void main()
{
    gl_Position = piglit_vertex;
    var_out.color = vec4(0.0, 1.0, 0.0, 1.0);
    var_out.scale = 0.5;
    var_out.tag = 3;
}
