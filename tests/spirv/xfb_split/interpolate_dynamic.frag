#version 440
// interpolateAt* on a member of an element picked at run time: the split input to
// interpolate is not known statically, so the pass refuses the shader (the layer then
// leaves the pipeline alone) rather than emitting an invalid one.
struct Varying {
    vec4 color;
    vec2 offset;
};
layout(location = 0) in Varying vars[2];
layout(location = 4) flat in int pick;
layout(location = 0) out vec4 frag;
void main()
{
    frag = interpolateAtCentroid(vars[pick].color);
}
