#version 140
// gl_FragColor is read but never written: GL leaves every draw buffer undefined, so any
// rewrite must still be valid (the copies carry the undefined shadow).
uniform vec4 color;
void main()
{
    if (gl_FragColor.x > color.x)
        discard;
}
