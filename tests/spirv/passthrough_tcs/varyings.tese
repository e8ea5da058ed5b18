#version 450
layout(triangles) in;
layout(location = 0) in float v_float[];
layout(location = 1) in vec3 v_vec3[];
layout(location = 2) flat in ivec2 v_ivec2[];
layout(location = 3) flat in double v_double[];
struct S { vec2 a; float b[2]; };
layout(location = 4) in S v_struct[];
layout(location = 8) in vec4 v_array[][2];
layout(location = 0) out vec4 color;
void main() {
  gl_Position = gl_in[0].gl_Position * gl_TessCoord.x + gl_in[1].gl_Position * gl_TessCoord.y
              + gl_in[2].gl_Position * gl_TessCoord.z;
  bool ok = v_float[1] == 1.0 && v_vec3[2] == vec3(2.0) && v_ivec2[0] == ivec2(3, -4)
         && v_double[1] == 5.0lf && v_struct[2].a == vec2(6.0) && v_struct[0].b[1] == 8.0
         && v_array[1][1] == vec4(10.0) && gl_in[1].gl_ClipDistance[2] == 1.0
         && gl_PatchVerticesIn == 3 && gl_TessLevelOuter[3] == 1.0 && gl_TessLevelInner[1] == 1.0;
  color = ok ? vec4(0, 1, 0, 1) : vec4(1, 0, 0, 1);
}
