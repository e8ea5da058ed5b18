#version 140
// GL: gl_FragColor goes to every draw buffer.
void main() {
    gl_FragColor = vec4(0.25, 0.4, 0.75, 1.0);
}
