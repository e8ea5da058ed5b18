#version 450
// GL's window y read only through a derivative: no y-valued built-in, no interpolateAt*.
layout(location = 0) in vec2 v;
layout(location = 0) out vec4 colour;
void main() {
    colour = vec4(v, dFdy(v.x), 1.0);
}
