#version 450
layout(location = 0) in vec4 piglit_vertex;
void main() {
    gl_Position = piglit_vertex;
    if (piglit_vertex.x > 0.5)
        return;
    gl_Position.y += 1.0;
}
