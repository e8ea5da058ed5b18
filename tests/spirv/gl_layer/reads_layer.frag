#version 450
layout(location = 0) in vec4 color;
layout(location = 4) flat in int later;
layout(location = 0) out vec4 frag;
void main() {
    frag = gl_Layer == 1 ? color : vec4(later);
}
