#version 450
// A vertex shader GL draws quads with: smooth, flat and integer varyings, a struct, an
// array, clip distances and gl_PointSize.
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
struct Pair { vec2 a; float b; };
layout(location = 0) out vec4 smooth_color;
layout(location = 1) flat out vec4 flat_color;
layout(location = 2) flat out ivec2 ids;
layout(location = 3) out Pair pair;
layout(location = 5) out float weights[3];
out gl_PerVertex { vec4 gl_Position; float gl_PointSize; float gl_ClipDistance[2]; };
void main() {
    gl_Position = position;
    gl_PointSize = 4.0;
    gl_ClipDistance[0] = position.x;
    gl_ClipDistance[1] = position.y;
    smooth_color = color;
    flat_color = color;
    ids = ivec2(gl_VertexIndex, 7);
    pair = Pair(position.xy, 1.0);
    weights = float[3](0.0, 1.0, 2.0);
}
