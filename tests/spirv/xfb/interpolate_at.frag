#version 440
// interpolateAtOffset needs a pointer to the Input variable itself; a Private shadow
// cannot be interpolated, so the pass must refuse this shader rather than emit an
// invalid one.
struct Varying {
    vec4 color;
    float scale;
};
layout(location = 0) in Varying var_out;
layout(location = 0) out vec4 frag;
void main()
{
    frag = interpolateAtOffset(var_out.color, vec2(0.25));
}
