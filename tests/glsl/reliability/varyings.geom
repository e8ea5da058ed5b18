#version 450
// Passes each triangle on with the first and the last of COUNT float varyings (-DCOUNT=n)
// as two (-DCOUNT=2 for the fragment shader).
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in float v[][COUNT];
layout(location = 0) out float w[2];
void main() {
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position;
        w[0] = v[i][0];
        w[1] = v[i][COUNT - 1];
        EmitVertex();
    }
}
