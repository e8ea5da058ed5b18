#version 450
// gl_FragCoord whole and by component, the three dFdy, interpolateAtOffset.
layout(location = 0) in vec2 v;
layout(location = 0) out vec4 colour;
void main() {
    vec4 whole = gl_FragCoord;
    float y = gl_FragCoord.y;
    float d = dFdy(v.x) + dFdyFine(v.y) + dFdyCoarse(y);
    vec2 at = interpolateAtOffset(v, vec2(0.25, 0.5));
    colour = vec4(whole.y, y, d, at.y);
}
