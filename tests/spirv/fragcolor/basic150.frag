#version 150
// The same as basic.frag in GLSL 1.50 (gl_FragColor is deprecated there, still valid).
void main()
{
    gl_FragColor = vec4(0.25, 0.4, 0.75, 1.0);
}
