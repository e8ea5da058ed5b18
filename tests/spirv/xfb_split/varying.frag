#version 440
struct Varying {
    vec4 color;
    float scale;
    int tag;
};
layout(location = 0) flat in Varying var_out;
layout(location = 0) out vec4 frag;
void main()
{
    Varying v = var_out;
    frag = v.color * var_out.scale * float(v.tag);
}
