#version 140
// gl_FragColor is read back after the first write (GL allows reading outputs).
uniform vec4 color;
void main()
{
    gl_FragColor = color;
    gl_FragColor += vec4(0.125);
    gl_FragColor.g = gl_FragColor.r;
}
