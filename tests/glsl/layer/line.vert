#version 450
// One line of the 4x4 target, from window (0.3, 0.7) to (3.3, 3.7): GL's diamond-exit rule
// lights (0, 0), (1, 1) and (2, 2) (Mesa llvmpipe's GL agrees).
void main() {
	vec2 p = gl_VertexIndex == 0 ? vec2(-0.85, -0.65) : vec2(0.65, 0.85);
	gl_Position = vec4(p, 0.0, 1.0);
}
