#version 450
// A vertex shader of GL's lines: the route's varyings go past its own Location.
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 colour;
void main() {
    gl_Position = position;
    colour = position * 0.5 + 0.5;
}
