#version 450
// Shows the default levels the generated TCS passed on: GL hands the TES the levels as set
// (unclamped), so a colour of levels / 8 tells which command buffer's levels were pushed.
layout(triangles, equal_spacing, ccw) in;
layout(location = 0) out vec3 color;
void main() {
    vec3 c = gl_TessCoord;
    gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position
                + c.z * gl_in[2].gl_Position;
    color = vec3(gl_TessLevelOuter[0], gl_TessLevelOuter[1], gl_TessLevelInner[0]) / 8.0;
}
