mod glsl;
mod scene;

fn main() {}
