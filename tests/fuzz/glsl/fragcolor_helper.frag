#version 150
// gl_FragColor written from a helper function that returns a value (OpReturnValue), and
// the entry point leaves through a loop's early return.
in vec4 v;
float shade(vec4 c)
{
    gl_FragColor = c;
    if (c.x > 0.5)
        return 1.0;
    gl_FragColor.a = 0.25;
    return 0.0;
}
void main()
{
    for (int i = 0; i < 4; i++) {
        if (shade(v * float(i)) > 0.0)
            return;
    }
}
