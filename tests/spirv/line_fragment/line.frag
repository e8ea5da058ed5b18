#version 450
// A fragment shader of GL's lines that reads gl_FragCoord and discards on its own.
layout(location = 0) in vec4 colour;
layout(location = 0) out vec4 frag;
void main() {
    if (colour.a < 0.0)
        discard;
    frag = vec4(colour.rgb, gl_FragCoord.x);
}
