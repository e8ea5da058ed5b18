#version 450
// A TES with no TCS: the generated TCS must pass through color, weight and gl_in[].
layout(triangles, equal_spacing, ccw) in;
layout(location = 0) in vec4 color[];
layout(location = 1) in float weight[][2];
layout(location = 0) out vec4 color_out;
void main()
{
    color_out = color[0] * gl_TessCoord.x + color[1] * gl_TessCoord.y
              + color[2] * gl_TessCoord.z + vec4(weight[0][1], gl_TessLevelOuter[0],
                                                  gl_TessLevelInner[0], 0.0);
    gl_Position = gl_in[0].gl_Position * gl_TessCoord.x
                + gl_in[1].gl_Position * gl_TessCoord.y
                + gl_in[2].gl_Position * gl_TessCoord.z;
}
