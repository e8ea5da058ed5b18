#version 450
// XFB struct outputs in a geometry shader are flushed at every EmitVertex.
layout(triangles) in;
layout(points, max_vertices = 3) out;
struct S { float a; dvec3 b; float c; double d; };
layout(xfb_buffer = 1, xfb_offset = 0, location = 0) out S s;
void main()
{
    for (int i = 0; i < 3; i++) {
        s.a = float(i);
        s.b = dvec3(gl_in[i].gl_Position.xyz);
        s.c = 2.0;
        s.d = 3.0lf;
        gl_Position = gl_in[i].gl_Position;
        EmitVertex();
    }
}
