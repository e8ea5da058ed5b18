#version 450
// A per-vertex input of a triangle's three vertices takes the Locations of one element:
// Location 3 alone.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 3) in vec2 v_uv[];
layout(location = 0) out vec2 uv;
void main() {
    for (int i = 0; i < 3; i++) {
        uv = v_uv[i];
        gl_Position = gl_in[i].gl_Position;
        EmitVertex();
    }
}
