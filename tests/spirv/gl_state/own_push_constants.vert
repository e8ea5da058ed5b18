#version 450
layout(location = 0) in vec4 piglit_vertex;
layout(push_constant) uniform Offsets { vec4 offset; } pc;
void main() { gl_Position = piglit_vertex + pc.offset; }
