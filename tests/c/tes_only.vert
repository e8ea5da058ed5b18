#version 450
// Two halves of the window, two triangle patches each: vertices 0..5 cover the left half,
// 6..11 the right half. No vertex buffer: positions come from gl_VertexIndex.
layout(location = 0) out float v_half;

void main()
{
    const vec2 corners[6] = vec2[](vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
                                   vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0));
    int half_index = gl_VertexIndex / 6;
    vec2 corner = corners[gl_VertexIndex % 6];
    gl_Position = vec4(float(half_index - 1) + corner.x, corner.y * 2.0 - 1.0, 0.0, 1.0);
    v_half = float(half_index);
}
