#version 450
// Reads the first and the last of COUNT float varyings (-DCOUNT=n).
layout(location = 0) in float v[COUNT];
layout(location = 0) out vec4 color;
void main() {
    color = vec4(v[0], v[COUNT - 1], 0.0, 1.0);
}
