#version 140
// Partial writes through swizzles: glslang emits access chains into gl_FragColor.
uniform vec4 color;
void main()
{
    gl_FragColor.rgb = color.rgb;
    gl_FragColor.a = color.a * 0.5;
}
