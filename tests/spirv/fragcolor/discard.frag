#version 140
// discard ends the fragment without a colour: no copy belongs on that path.
void main()
{
    if (gl_FragCoord.x < 125.0)
        discard;
    gl_FragColor = vec4(0.0, 0.0, 1.0, 1.0);
}
