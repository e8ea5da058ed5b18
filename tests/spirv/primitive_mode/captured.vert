#version 450
// A vertex shader whose outputs transform feedback captures (gl_Position and a varying):
// after quads are drawn through the layer's geometry shader, it captures their triangles.
layout(location = 0) in vec4 position;
layout(location = 0, xfb_buffer = 0, xfb_offset = 16) out float id;
out gl_PerVertex { layout(xfb_buffer = 0, xfb_offset = 0) vec4 gl_Position; };
void main() {
    gl_Position = position;
    id = float(gl_VertexIndex);
}
