#version 450
// GL_QUAD_STRIP test geometry for the 4x4 target: vertex v at x = -1 + v / 2 (bottom for
// even v, top for odd), so vertices 0-3 are the left half's quad and 2-5 the right half's.
// Each vertex's flat colour says which vertex it is (red = index / 8).
layout(location = 0) flat out vec4 color;
void main() {
    int v = gl_VertexIndex;
    gl_Position = vec4(-1.0 + float(v / 2), (v % 2 == 0) ? -1.0 : 1.0, 0.0, 1.0);
    color = vec4(float(v) * 32.0 / 255.0, 0.0, 0.0, 1.0);
}
