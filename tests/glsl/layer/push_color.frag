#version 450
// The colour comes from the application's own FRAGMENT push-constant range [0, 16).
layout(push_constant) uniform Color { vec4 color; } pc;
layout(location = 0) out vec4 frag;
void main() { frag = pc.color; }
