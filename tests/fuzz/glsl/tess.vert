#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 color;
layout(location = 1) out float weight[2];
out gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[2]; };
void main()
{
    color = pos * 0.5;
    weight[0] = pos.x;
    weight[1] = pos.y;
    gl_ClipDistance[0] = pos.z;
    gl_ClipDistance[1] = pos.w;
    gl_Position = pos;
}
