#version 450
// Reads the captured struct: the layer splits this input to match the split outputs.
struct S {
    float f;
    vec4 v;
};
layout(location = 0) in S s;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(s.v.xy, s.f, 1.0);
}
