#version 450
// GL_QUADS test geometry for the 4x4 target: vertices 0-3 are the left half, 4-7 the right
// half, each quad counter-clockwise from its lower-left corner; an instance moves a quad one
// half to the right. Each vertex's flat colour says which vertex it is (red = index / 8), so
// the picture shows which vertex provoked each quad.
layout(location = 0) flat out vec4 color;
const vec2 corners[4] = vec2[4](vec2(-1.0, -1.0), vec2(0.0, -1.0), vec2(0.0, 1.0), vec2(-1.0, 1.0));
void main() {
    int quad = gl_VertexIndex / 4 + gl_InstanceIndex;
    gl_Position = vec4(corners[gl_VertexIndex % 4] + vec2(float(quad), 0.0), 0.0, 1.0);
    color = vec4(float(gl_VertexIndex) * 32.0 / 255.0, 0.0, 0.0, 1.0);
}
