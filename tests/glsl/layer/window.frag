#version 450
// GL's window y, the sign of dFdy of a value growing upward, and gl_FrontFacing.
layout(location = 0) in float up;
layout(location = 0) out vec4 colour;
void main() {
    colour = vec4(gl_FragCoord.y / 4.0, dFdy(up) > 0.0 ? 1.0 : 0.0, 0.0,
                  gl_FrontFacing ? 1.0 : 0.5);
}
