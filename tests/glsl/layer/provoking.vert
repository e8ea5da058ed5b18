#version 450
// One triangle over the whole 4x4 target at clip-space z = -0.5 (inside GL's clip volume,
// -w <= z <= w; outside Vulkan's, 0 <= z <= w), red, green, blue at its three vertices:
// flat, it is the colour of its provoking vertex (GL's last: blue).
const vec2 corners[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
const vec4 colors[3] = vec4[3](vec4(1, 0, 0, 1), vec4(0, 1, 0, 1), vec4(0, 0, 1, 1));
layout(location = 0) flat out vec4 color;
void main() {
    gl_Position = vec4(corners[gl_VertexIndex], -0.5, 1.0);
    color = colors[gl_VertexIndex];
}
