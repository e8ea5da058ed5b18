#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 6) out;
void main() {
    for (int copy = 0; copy < 2; copy++) {
        for (int i = 0; i < 3; i++) {
            gl_Layer = copy;
            gl_Position = gl_in[i].gl_Position;
            EmitVertex();
        }
        EndPrimitive();
    }
}
