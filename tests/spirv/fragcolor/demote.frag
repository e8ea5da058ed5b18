#version 140
#extension GL_EXT_demote_to_helper_invocation : require
// demote makes the invocation a helper: its colour is discarded, yet it runs on to the
// return. Copying there is harmless (GL discards the fragment's outputs anyway).
void main()
{
    if (gl_FragCoord.x < 125.0)
        demote;
    gl_FragColor = vec4(0.0, 0.0, 1.0, 1.0);
}
