#version 140
#extension GL_ARB_shading_language_420pack : require
// GL broadcasts gl_FragColor to every draw buffer; a partial write and an early return
// exercise the copy-at-every-return rewrite.
layout(std140, binding = 0) uniform Colors { vec4 color; float cut; };
void main()
{
    gl_FragColor = color;
    if (color.a < cut) {
        gl_FragColor.rgb = vec3(1.0, 0.0, 0.5);
        return;
    }
    if (color.r > 2.0)
        discard;
}
