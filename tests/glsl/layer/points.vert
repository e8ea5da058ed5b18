#version 450
// Points at the centres of the first row's pixels of a 4x4 viewport; no gl_PointSize
// write: GL draws them 1 pixel wide.
void main() {
    vec2 p = (vec2(gl_VertexIndex, 0.0) + 0.5) / 4.0;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
