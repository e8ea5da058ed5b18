#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in ivec2 index;
layout(location = 3) in uvec4 flags;
layout(location = 4) in dvec3 accurate;
layout(location = 6) in dvec4 wide;
layout(location = 8) in double scale;
layout(location = 9) in vec2 half_pair;
layout(location = 0) out vec4 sum;
layout(location = 1) flat out dvec4 exact;
void main() {
    sum = position + vec4(normal, float(index.y) + float(flags.w)) + vec4(half_pair, 0.0, 0.0);
    exact = wide + dvec4(accurate, scale);
    gl_Position = position;
}
