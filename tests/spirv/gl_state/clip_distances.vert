#version 450
layout(location = 0) in vec4 piglit_vertex;
out float gl_ClipDistance[2];
void main() {
    gl_Position = piglit_vertex;
    gl_ClipDistance[0] = piglit_vertex.x;
    gl_ClipDistance[1] = -piglit_vertex.x;
}
