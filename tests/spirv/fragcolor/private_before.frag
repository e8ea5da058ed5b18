#version 140
// A global (Private) vec4 whose pointer type glslang declares before gl_FragColor: the
// shadow reuses it.
vec4 g;
void main()
{
    g = vec4(0.5);
    gl_FragColor = g;
}
