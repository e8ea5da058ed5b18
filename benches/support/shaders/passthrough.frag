#version 450
// An ordinary Vulkan-style fragment shader (explicit Location 0 output): the layer's fast
// path must pass it down untouched.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main()
{
    vec3 c = vec3(uv, 0.5);
    for (int i = 0; i < 4; i++) {
        c = abs(sin(c * 3.1 + float(i)));
    }
    color = vec4(c, 1.0);
}
