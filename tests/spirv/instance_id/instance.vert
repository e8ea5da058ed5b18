#version 450
// glslang's relaxed mode compiles GL's gl_InstanceID to InstanceIndex, as this does.
layout(location = 0) out float id;
void main() {
    id = float(gl_InstanceIndex);
    gl_Position = vec4(float(gl_InstanceIndex), 0.0, 0.0, 1.0);
}
