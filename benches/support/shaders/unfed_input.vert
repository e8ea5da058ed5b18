#version 450
// A vertex shader with an input the benchmark's pipelines never feed (no vertex-input
// state): on a VK_GLSEM_gl_state device it reads GL's current value of attribute 0
// (vkCmdSetVertexAttribGLSEM) from the layer's stride-0 binding.
layout(location = 0) in vec4 color;
layout(location = 0) out vec2 uv;

void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    uv = p * color.xy;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
