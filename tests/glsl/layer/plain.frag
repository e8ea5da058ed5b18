#version 450
layout(location = 0) out vec4 color;
void main() {
    color = vec4(0.25, 0.4, 0.75, 1.0);
}
