#version 450
#extension GL_ARB_shader_viewport_layer_array : require
// A vertex shader writing gl_Layer, which a geometry shader cannot read back.
layout(location = 0) in vec4 position;
void main() { gl_Position = position; gl_Layer = 1; }
