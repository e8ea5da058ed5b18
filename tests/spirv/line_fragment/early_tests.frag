#version 450
// A fragment shader of lines that asks for early fragment tests: depth is written before
// any discard, so GL's lines by the fragment route cannot run in it.
layout(early_fragment_tests) in;
layout(location = 0) in vec4 colour;
layout(location = 0) out vec4 frag;
void main() {
    frag = colour;
}
