#version 450
// A fragment shader with a push-constant block of its own: no room for the GL state.
layout(push_constant) uniform Own { vec4 tint; } own;
layout(location = 0) out vec4 frag;
void main() { frag = own.tint; }
