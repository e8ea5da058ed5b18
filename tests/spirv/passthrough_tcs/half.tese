#version 450
// 16-bit inputs need StorageInputOutput16 in the TCS too.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(triangles) in;
layout(location = 0) in f16vec2 h[];
layout(location = 1) in dvec3 d[];
layout(location = 3) in mat2x3 m[];
layout(location = 0) out vec4 color;
void main() {
  gl_Position = vec4(gl_TessCoord, 1);
  color = vec4(vec2(h[0]), float(d[1].z), m[2][1].x);
}
