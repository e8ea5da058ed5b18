#version 450
// Reads the struct the XFB vertex shader writes, at the same Location.
struct S { vec3 a; float b; vec2 c[2]; };
layout(location = 1) in S s;
layout(location = 0) in vec4 other;
layout(location = 0) out vec4 color;
void main()
{
    color = vec4(s.a, s.b) + vec4(s.c[0], s.c[1]) + other;
}
