#version 440
// A struct output without xfb_offset next to a captured float: the module has the Xfb
// execution mode, but the struct is not captured, so there is nothing to split.
layout(location = 0) in vec4 piglit_vertex;
struct S {
    float f;
    vec4 v;
};
layout(location = 0) out S s;
layout(location = 2, xfb_buffer = 0, xfb_offset = 0) out float captured;
void main()
{
    gl_Position = piglit_vertex;
    s.f = 1.0;
    s.v = vec4(2.0);
    captured = 3.0;
}
