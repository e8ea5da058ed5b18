#version 440
// interpolateAt* needs a pointer to the Input variable itself, not to the Private shadow:
// the pass points it at the split input that holds the member (and, for `.y`, at the
// component inside it).
struct Varying {
    vec4 color;
    vec2 offset;
};
layout(location = 0) in Varying var_out;
layout(location = 0) out vec4 frag;
void main()
{
    frag = interpolateAtOffset(var_out.color, vec2(0.25))
         + interpolateAtCentroid(var_out.offset.y);
}
