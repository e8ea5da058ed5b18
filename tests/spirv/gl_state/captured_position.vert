#version 450
layout(location = 0) in vec4 piglit_vertex;
layout(xfb_buffer = 0, xfb_stride = 16) out gl_PerVertex {
    layout(xfb_offset = 0) vec4 gl_Position;
};
void main() { gl_Position = piglit_vertex; }
