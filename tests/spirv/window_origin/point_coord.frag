#version 450
layout(location = 0) out vec4 colour;
void main() {
    colour = vec4(gl_PointCoord.x, gl_PointCoord.y, 0.0, 1.0);
}
