#version 140
// The colour is written by a called function that has its own early return: the return
// of a callee is not a program exit.
uniform vec4 color;
void paint(float x)
{
    gl_FragColor.rg = vec2(x, 0.0);
    if (x > 0.5)
        return;
    gl_FragColor.ba = vec2(1.0, 1.0);
}
void main()
{
    gl_FragColor = vec4(0.0);
    paint(color.x);
}
