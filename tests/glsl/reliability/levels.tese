#version 450
// Shows the default levels the generated TCS passed on: GL hands the TES the levels as set
// (unclamped), so a colour of levels / 9 tells which command buffer's levels were pushed.
// Nine, not eight: k * 255 / 9 is never a half, so UNORM8 rounding has no ties to break
// (4 / 8 * 255 = 127.5 rounds to 127 on NVIDIA, 128 on lavapipe; both are allowed).
layout(triangles, equal_spacing, ccw) in;
layout(location = 0) out vec3 color;
void main() {
    vec3 c = gl_TessCoord;
    gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position
                + c.z * gl_in[2].gl_Position;
    color = vec3(gl_TessLevelOuter[0], gl_TessLevelOuter[1], gl_TessLevelInner[0]) / 9.0;
}
