#version 440
// Transform feedback captures gl_PointSize and gl_ClipDistance as the shader writes them
// (GL 4.6 §13.3), whatever glPointSize and the plane enables say.
layout(location = 0) in vec4 piglit_vertex;
out gl_PerVertex {
    vec4 gl_Position;
    layout(xfb_buffer = 0, xfb_offset = 0) float gl_PointSize;
    layout(xfb_buffer = 0, xfb_offset = 4) float gl_ClipDistance[2];
};
layout(location = 0) out vec4 color;
void main()
{
    gl_Position = piglit_vertex;
    gl_PointSize = piglit_vertex.x;
    gl_ClipDistance[0] = piglit_vertex.y;
    gl_ClipDistance[1] = -piglit_vertex.y;
    color = vec4(1.0);
}
