#version 440
// Nested structs and an array of structs, written from a helper function and with an
// early return: the shadow is flushed before both returns of main.
layout(location = 0) in vec4 piglit_vertex;
struct Inner {
    float x;
    vec2 y;
};
struct Outer {
    vec3 p;
    Inner i;
    float z;
};
struct Pair {
    float a;
    ivec2 b;
};
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out Outer o;
layout(location = 4, xfb_buffer = 1, xfb_offset = 0) flat out Pair pairs[2];

void fill_inner(float base)
{
    o.i.x = base;
    o.i.y = vec2(base + 1.0, base + 2.0);
}

void main()
{
    gl_Position = piglit_vertex;
    o.p = vec3(1.0, 2.0, 3.0);
    fill_inner(4.0);
    o.z = 7.0;
    for (int k = 0; k < 2; k++) {
        pairs[k].a = float(10 * k);
        pairs[k].b = ivec2(k, -k);
    }
    if (gl_VertexIndex > 100)
        return;
    o.z = 8.0;
}
