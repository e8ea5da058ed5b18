#version 450
// A mat4 input takes Locations 1-4: no bound without the parse.
layout(location = 0) in vec4 position;
layout(location = 1) in mat4 transform;
void main() { gl_Position = transform * position; }
