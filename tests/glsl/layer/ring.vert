#version 450
// A square through window (0.6, 0.6) and (3.4, 3.4) of the 4x4 target, counter-clockwise:
// its four edges light the 12 border pixels by GL's diamond-exit rule, and nothing inside.
const vec2 corners[4] = vec2[4](vec2(-0.7, -0.7), vec2(0.7, -0.7), vec2(0.7, 0.7), vec2(-0.7, 0.7));
void main() {
    gl_Position = vec4(corners[gl_VertexIndex % 4], 0.0, 1.0);
}
