#version 450
// An array input takes a Location per element: no bound without the parse.
layout(location = 0) in vec4 colours[3];
layout(location = 0) out vec4 colour;
void main() { colour = colours[0] + colours[1] + colours[2]; }
