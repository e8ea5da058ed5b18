#version 450
layout(location = 0) in vec4 vcolor;
layout(location = 0) out vec4 frag;
void main() { frag = vcolor; }
