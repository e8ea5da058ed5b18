#version 450
// The vertex half of a VS/TES pair with four varyings (no TCS: glsem generates one).
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 v_color;
layout(location = 1) out vec3 v_normal;
layout(location = 2) out vec2 v_uv;
layout(location = 3) out float v_fog;

void main()
{
    v_color = position.zyxw;
    v_normal = normalize(position.xyz + 1.0);
    v_uv = position.xy;
    v_fog = position.w * 0.5;
    gl_Position = position;
}
