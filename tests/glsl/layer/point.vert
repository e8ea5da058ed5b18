#version 450
// One point at the centre of pixel (1, 1) of the 4x4 target; gl_PointSize is never
// written, as in GL programs that size points with glPointSize.
void main() { gl_Position = vec4(-0.25, -0.25, 0.0, 1.0); }
