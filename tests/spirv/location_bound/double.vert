#version 450
// A dvec4 input takes Locations 0-1: no bound without the parse.
layout(location = 0) in dvec4 position;
void main() { gl_Position = vec4(position); }
