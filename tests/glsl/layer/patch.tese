#version 450
// Reads the VS varying and gl_in[]: the generated TCS must pass both through.
layout(triangles, equal_spacing, ccw) in;
layout(location = 0) in vec3 tint[];
layout(location = 0) out vec3 color;
void main() {
    vec3 c = gl_TessCoord;
    gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position
                + c.z * gl_in[2].gl_Position;
    color = c.x * tint[0] + c.y * tint[1] + c.z * tint[2];
}
