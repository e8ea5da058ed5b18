#version 450
// `color` has no attribute description: GL reads the current attribute there
// (glVertexAttrib4f, initially (0, 0, 0, 1)). Vertices 0-5 cover the left half of the 4x4
// target, vertices 6-11 (firstVertex 6) the right half.
layout(location = 0) in vec4 color;
layout(location = 0) out vec4 vcolor;
void main() {
    vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 0), vec2(1, 1), vec2(0, 1));
    vec2 c = corners[gl_VertexIndex % 6];
    gl_Position = vec4(-1.0 + float(gl_VertexIndex / 6) + c.x, -1.0 + 2.0 * c.y, 0.0, 1.0);
    vcolor = color;
}
