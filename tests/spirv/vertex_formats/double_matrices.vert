#version 450
// Double matrices and arrays as GL's glVertexAttribLPointer feeds them, one attribute per
// column or element: m (dmat2x3) at Location 0, its columns at 0 and 2 (a dvec3 takes two);
// a (dmat2[2]) at 4, its columns at 4, 5, 6, 7; d (double[3]) at 8, 9, 10.
layout(location = 0) in dmat2x3 m;
layout(location = 4) in dmat2 a[2];
layout(location = 8) in double d[3];
layout(location = 11) in vec4 position;
layout(location = 0) flat out int ok;
void main() {
    gl_Position = position;
    ok = int(m[1].z + a[1][1].y + d[2]);
}
