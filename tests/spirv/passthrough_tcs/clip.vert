#version 450
// Writes three clip distances: the TCS's gl_in must have the VS's size (3), its gl_out the
// TES's (2), and copy the two elements both have.
layout(location = 0) in vec4 piglit_vertex;
out gl_PerVertex { vec4 gl_Position; float gl_PointSize; float gl_ClipDistance[3]; };
void main() {
  gl_Position = piglit_vertex;
  gl_PointSize = 1.0;
  gl_ClipDistance[0] = 0.5; gl_ClipDistance[1] = 0.25; gl_ClipDistance[2] = 1.0;
}
