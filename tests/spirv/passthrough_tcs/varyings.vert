#version 450
layout(location = 0) in vec4 piglit_vertex;
layout(location = 0) out float v_float;
layout(location = 1) out vec3 v_vec3;
layout(location = 2) flat out ivec2 v_ivec2;
layout(location = 3) flat out double v_double;
struct S { vec2 a; float b[2]; };
layout(location = 4) out S v_struct;
layout(location = 8) out vec4 v_array[2];
out gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[3]; };
void main() {
  gl_Position = piglit_vertex;
  v_float = 1.0; v_vec3 = vec3(2.0); v_ivec2 = ivec2(3, -4); v_double = 5.0lf;
  v_struct.a = vec2(6.0); v_struct.b[0] = 7.0; v_struct.b[1] = 8.0;
  v_array[0] = vec4(9.0); v_array[1] = vec4(10.0);
  gl_ClipDistance[0] = 1.0; gl_ClipDistance[1] = 1.0; gl_ClipDistance[2] = 1.0;
}
