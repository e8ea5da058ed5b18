#version 440
// A struct captured from a geometry shader that emits three vertices per input point:
// every EmitVertex captures the values the struct holds at that moment.
layout(points) in;
layout(points, max_vertices = 3) out;
struct V {
    float id;
    vec2 pos;
};
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out V v;
void emit_one(float k)
{
    v.id = k;
    v.pos = vec2(k, -k);
    gl_Position = gl_in[0].gl_Position;
    EmitVertex();
}
void main()
{
    emit_one(1.0);
    emit_one(2.0);
    v.id = 3.0;
    EmitVertex();
    EndPrimitive();
}
