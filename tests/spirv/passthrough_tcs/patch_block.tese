#version 450
// A patch input (no source without a TCS, as in GL) and an interface block with a flat
// member and a member Location.
layout(isolines) in;
layout(location = 0) in Data { vec3 a; flat ivec2 b; layout(location = 3) float c; } data_in[];
layout(location = 5) patch in vec4 p;
layout(location = 6, component = 1) in vec2 packed_yz[];
layout(location = 0) out vec4 color;
void main() {
  gl_Position = vec4(gl_TessCoord.xy, 0, 1);
  color = vec4(data_in[0].a, float(data_in[1].b.y) + data_in[1].c) + p + packed_yz[0].xyxy;
}
