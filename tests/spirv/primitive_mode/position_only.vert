#version 140
#extension GL_ARB_explicit_attrib_location : require
// GL 3.1's vertex shader: gl_Position alone.
layout(location = 0) in vec4 piglit_vertex;
void main() { gl_Position = piglit_vertex; }
