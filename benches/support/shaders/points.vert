#version 450
// A typical vertex shader of a GL application drawing points: a transform block,
// three attributes, a little lighting, three varyings, and no gl_PointSize write (GL's
// point size comes from glPointSize, which glsem writes in).
layout(set = 0, binding = 0) uniform Transform {
    mat4 model_view_projection;
    mat4 model_view;
    mat3 normal_matrix;
    vec4 light_direction;
    vec4 fog;
};
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(location = 1) out vec3 v_eye_normal;
layout(location = 2) out float v_fog;

void main()
{
    vec3 n = normalize(normal_matrix * normal);
    float diffuse = max(dot(n, light_direction.xyz), 0.0);
    v_color = vec4(color.rgb * (0.2 + 0.8 * diffuse), color.a);
    v_eye_normal = n;
    vec4 eye = model_view * position;
    v_fog = clamp((fog.y - length(eye.xyz)) * fog.z, 0.0, 1.0);
    gl_Position = model_view_projection * position;
}
