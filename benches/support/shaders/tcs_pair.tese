#version 450
// The evaluation half of the pair: reads the four varyings and gl_in[].gl_Position.
layout(triangles, equal_spacing, ccw) in;
layout(location = 0) in vec4 v_color[];
layout(location = 1) in vec3 v_normal[];
layout(location = 2) in vec2 v_uv[];
layout(location = 3) in float v_fog[];
layout(location = 0) out vec4 color;

void main()
{
    vec3 w = gl_TessCoord;
    vec4 c = v_color[0] * w.x + v_color[1] * w.y + v_color[2] * w.z;
    vec3 n = v_normal[0] * w.x + v_normal[1] * w.y + v_normal[2] * w.z;
    vec2 uv = v_uv[0] * w.x + v_uv[1] * w.y + v_uv[2] * w.z;
    float fog = v_fog[0] * w.x + v_fog[1] * w.y + v_fog[2] * w.z;
    color = vec4(c.rgb * max(n.z, 0.0) + vec3(uv, 0.0) * fog, c.a);
    gl_Position = gl_in[0].gl_Position * w.x + gl_in[1].gl_Position * w.y
        + gl_in[2].gl_Position * w.z;
}
