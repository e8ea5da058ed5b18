#version 140
// Two exits from main: both must publish the colour.
uniform vec4 color;
void main()
{
    if (color.x > 0.5) {
        gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0);
        return;
    }
    gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);
}
