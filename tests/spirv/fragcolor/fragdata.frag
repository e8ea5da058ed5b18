#version 140
// gl_FragData[0] is not broadcast: GL writes only draw buffer 0.
void main()
{
    gl_FragData[0] = vec4(0.25, 0.4, 0.75, 1.0);
}
