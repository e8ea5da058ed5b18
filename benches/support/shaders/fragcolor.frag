#version 140
// GL-style fragment shader writing gl_FragColor: with 8 colour attachments glsem
// broadcasts it to all of them.
void main()
{
    vec3 c = vec3(gl_FragCoord.xy * 0.01, 0.5);
    for (int i = 0; i < 4; i++) {
        c = abs(sin(c * 3.1 + float(i)));
    }
    gl_FragColor = vec4(c, 1.0);
}
