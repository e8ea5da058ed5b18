#version 450
// A fragment shader that already declares the GL-state block as an earlier step did
// (point_size, flags, window_height, base_instance at +24..+36): the line fields join it.
layout(push_constant) uniform GlsemGlState {
    layout(offset = 24) float point_size;
    layout(offset = 28) uint flags;
    layout(offset = 32) float window_height;
    layout(offset = 36) uint base_instance;
} glsem_gl_state;
layout(location = 0) out vec4 frag;
void main() {
    frag = vec4(glsem_gl_state.window_height);
}
