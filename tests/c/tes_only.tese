#version 450
// The left half is drawn with outer 2, 3, 4, 5 / inner 6, 7, the right half with
// outer 1.5, 2.5, 3.5, 4.5 / inner 0.5, 6.5 (GL returns the levels unclamped). Green when
// the patch sees its half's levels exactly, red otherwise.
layout(triangles, equal_spacing, ccw) in;
layout(location = 0) in float v_half[];
layout(location = 0) out vec4 color;

void main()
{
    gl_Position = gl_in[0].gl_Position * gl_TessCoord.x
                + gl_in[1].gl_Position * gl_TessCoord.y
                + gl_in[2].gl_Position * gl_TessCoord.z;
    bool left = v_half[0] == 0.0 && v_half[1] == 0.0 && v_half[2] == 0.0;
    bool right = v_half[0] == 1.0 && v_half[1] == 1.0 && v_half[2] == 1.0;
    float outer[4] = left ? float[4](2.0, 3.0, 4.0, 5.0) : float[4](1.5, 2.5, 3.5, 4.5);
    float inner[2] = left ? float[2](6.0, 7.0) : float[2](0.5, 6.5);
    bool ok = (left || right) && gl_TessLevelOuter == outer && gl_TessLevelInner == inner;
    color = ok ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}
