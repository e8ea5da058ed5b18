#version 450
layout(quads) in;
in gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[2]; } gl_in[];
layout(location = 0) out vec4 color;
void main() {
  vec4 a = mix(gl_in[0].gl_Position, gl_in[1].gl_Position, gl_TessCoord.x);
  vec4 b = mix(gl_in[3].gl_Position, gl_in[2].gl_Position, gl_TessCoord.x);
  gl_Position = mix(a, b, gl_TessCoord.y);
  color = vec4(gl_in[0].gl_ClipDistance[0], gl_in[1].gl_ClipDistance[1], 0, 1);
}
