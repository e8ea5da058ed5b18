#version 450
// One Location per interface variable (gl_Position in the built-in block takes none): the
// scan's bound is one past the highest Location, 3.
layout(location = 0) in vec4 position;
layout(location = 2) in ivec2 index;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec4 shade;
layout(location = 1) flat out int which;
void main() {
    shade = vec4(normal, 1.0);
    which = index.x;
    gl_Position = position;
}
