#version 450
// A struct output captured with xfb_offset: GL captures it member by member.
layout(location = 0) in vec4 pos;
struct S { vec3 a; float b; vec2 c[2]; };
layout(xfb_buffer = 0, xfb_offset = 0, location = 1) out S s;
layout(location = 0) out vec4 other;
void main()
{
    s.a = pos.xyz;
    s.b = pos.w;
    s.c[0] = pos.xy;
    s.c[1] = pos.zw;
    other = pos;
    gl_Position = pos;
}
