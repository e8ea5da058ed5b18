#version 450
layout(location = 0) out vec4 colour;
void main() {
    gl_SampleMask[0] = 0;
    colour = vec4(1.0);
}
