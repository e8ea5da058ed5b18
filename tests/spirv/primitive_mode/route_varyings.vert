#version 450
// A vertex shader of a pre-rasterization library on the fragment line route: besides its
// own varying, the route's two at the device's last Locations but one (29 and 30 where
// the interface has 32), past what a geometry shader may read on some devices (lavapipe:
// 16 Locations).
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 color;
layout(location = 29) noperspective out vec4 line_point;
layout(location = 30) flat out vec4 line_end;
void main() {
    gl_Position = position;
    color = position;
    line_point = position;
    line_end = position;
}
