#version 450
layout(location = 0) in vec4 fed;
layout(location = 1) in vec3 unfed;
layout(location = 2) in ivec2 unfed_int;
layout(location = 3) in mat2 unfed_matrix;
layout(location = 5) in vec4 unfed_vec4;
layout(location = 0) out vec4 sum;
void main() {
    sum = fed + vec4(unfed, float(unfed_int.y)) + vec4(unfed_matrix[0], unfed_matrix[1]) + unfed_vec4;
    gl_Position = fed;
}
