#version 450
// Reads the captured nested struct: split on its own in a library or shader object.
struct Inner {
    float x;
    vec2 y;
};
struct Outer {
    vec3 p;
    Inner i;
    float z;
};
layout(location = 0) in Outer o;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(o.p.xy * 0.5, o.i.y.y, o.z);
}
