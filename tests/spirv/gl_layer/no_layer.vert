#version 450
// A vertex shader that writes no layer: made apart from its fragment shader, it still
// passes layer 0 at the last Location.
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 color;

void main()
{
    gl_Position = position;
    color = position;
}
