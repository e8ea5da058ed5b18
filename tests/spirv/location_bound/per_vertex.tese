#version 450
// A per-vertex input (one element per control point, gl_MaxPatchVertices of them) takes
// the Locations of one element: Location 2 alone.
layout(triangles) in;
layout(location = 2) in float v_weight[];
layout(location = 1) out vec4 color;
void main() {
    color = vec4(v_weight[0], v_weight[1], v_weight[2], 1.0);
    gl_Position = gl_TessCoord.xyzz;
}
