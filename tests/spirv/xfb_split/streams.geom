#version 440
// Two structs on two vertex streams: an emission on stream 1 captures only the stream-1
// struct, so only its leaves are flushed there.
layout(points) in;
layout(points, max_vertices = 2) out;
struct A {
    float a;
    vec3 b;
};
layout(stream = 0, location = 0, xfb_buffer = 0, xfb_offset = 0) out A s0;
layout(stream = 1, location = 2, xfb_buffer = 1, xfb_offset = 0) out A s1;
void main()
{
    s0 = A(1.0, vec3(2.0));
    gl_Position = gl_in[0].gl_Position;
    EmitStreamVertex(0);
    s1 = A(3.0, vec3(4.0));
    EmitStreamVertex(1);
}
