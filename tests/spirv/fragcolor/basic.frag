#version 140
// The whole colour written once: every draw buffer gets it.
void main()
{
    gl_FragColor = vec4(0.25, 0.4, 0.75, 1.0);
}
