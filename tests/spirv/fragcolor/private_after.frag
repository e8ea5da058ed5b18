#version 140
// A global (Private) vec4 whose pointer type glslang declares after gl_FragColor: the
// shadow needs a Private vec4 pointer type declared before the variable.
vec4 g;
void main()
{
    gl_FragColor = vec4(0.25);
    g = gl_FragColor * 2.0;
    gl_FragColor = g;
}
