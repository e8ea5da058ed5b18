#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) out vec4 color;
layout(location = 1) out mat2 rotation;
layout(location = 3) out Extra { flat ivec2 pair; } extra;
void main() {
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position;
        gl_Layer = 1;
        color = vec4(1.0);
        rotation = mat2(1.0);
        extra.pair = ivec2(i);
        EmitVertex();
    }
}
