#version 450
layout(location = 0) in vec4 piglit_vertex;
void main() {
    gl_Position = piglit_vertex;
    gl_PointSize = 5.0;
}
