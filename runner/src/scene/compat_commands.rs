//! The `[test]` commands only a compatibility-profile scene (`GL COMPAT >= x.y`) has. They
//! are parsed here with the rest of the scene; `compat::lower` (GL emulation, one layer up)
//! replaces them with core commands.

use super::error::SceneError;

/// Commands of a compatibility context, replaced by `compat::lower`.
#[derive(Debug, Clone, PartialEq)]
pub enum CompatCommand {
    /// `ortho` (the window) or `ortho l r b t`: piglit's `glOrtho(l, r, b, t, -1, 1)`.
    Ortho(Option<[f64; 4]>),
    /// `frustum l r b t n f`: piglit's `glFrustum(l, r, b, t, n, f)` into the projection
    /// matrix with an identity modelview.
    Frustum([f64; 6]),
    /// `clip plane i a b c d`: `glClipPlane`.
    ClipPlane(u32, [f64; 4]),
    /// `newlist GL_COMPILE` (`execute` false) / `newlist GL_COMPILE_AND_EXECUTE`.
    NewList {
        execute: bool,
    },
    EndList,
    CallList,
    DeleteList,
    /// `color r g b a`: `glColor4f`, the current colour.
    Color([f32; 4]),
    /// `texparameter TARGET depth_mode luminance|intensity|alpha|red`: the active unit's
    /// texture's GL_DEPTH_TEXTURE_MODE, as [`DepthMode`].
    DepthMode(DepthMode),
    /// `enable|disable GL_VERTEX_PROGRAM_TWO_SIDE`: whether back-facing primitives'
    /// fragments read the back colours (`gl_BackColor`, `gl_BackSecondaryColor`) as
    /// `gl_Color` and `gl_SecondaryColor` (initially off).
    TwoSide(bool),
    /// `shade model flat|smooth`: `glShadeModel`, whether the colours that no interpolation
    /// qualifier names are flat (initially smooth).
    ShadeModel {
        flat: bool,
    },
}

/// GL_DEPTH_TEXTURE_MODE: how a `shadow*` function returns its comparison result r; the
/// discriminant is the value the shaders' `glsem_depth_mode` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DepthMode {
    /// (r, r, r, 1), GL's initial mode.
    #[default]
    Luminance = 0,
    /// (r, r, r, r).
    Intensity = 1,
    /// (0, 0, 0, r).
    Alpha = 2,
    /// (r, 0, 0, 1).
    Red = 3,
}

/// GL's clip planes (GL_MAX_CLIP_PLANES of the runner: the enables it maps).
pub const CLIP_PLANES: u32 = 8;
/// Parses a `[test]` line that only a compatibility scene has (the caller wraps it in
/// `Command::Compat`); `None` for other lines.
pub fn parse_command(
    line: &str,
    number: usize,
    compat: bool,
) -> Result<Option<CompatCommand>, SceneError> {
    if !compat {
        return Ok(None);
    }
    let t: Vec<&str> = line.split_whitespace().collect();
    let bad = |why: &str| SceneError::Fail(format!("line {number}: {why}: `{line}`"));
    let float = |s: &str| s.parse::<f64>().map_err(|_| bad("malformed number"));
    let uint = |s: &str| s.parse::<u32>().map_err(|_| bad("malformed number"));
    let command = match t.as_slice() {
        ["ortho"] => CompatCommand::Ortho(None),
        ["ortho", l, r, b, top] => {
            CompatCommand::Ortho(Some([float(l)?, float(r)?, float(b)?, float(top)?]))
        }
        ["frustum", l, r, b, top, n, f] => CompatCommand::Frustum([
            float(l)?,
            float(r)?,
            float(b)?,
            float(top)?,
            float(n)?,
            float(f)?,
        ]),
        ["clip", "plane", i, a, b, c, d] => {
            let i = uint(i)?;
            if i >= CLIP_PLANES {
                return Err(SceneError::Skip(format!(
                    "line {number}: clip plane beyond 7: `{line}`"
                )));
            }
            CompatCommand::ClipPlane(i, [float(a)?, float(b)?, float(c)?, float(d)?])
        }
        ["color", r, g, b, a] => CompatCommand::Color([
            float(r)? as f32,
            float(g)? as f32,
            float(b)? as f32,
            float(a)? as f32,
        ]),
        ["texparameter", _, "depth_mode", mode] => CompatCommand::DepthMode(match *mode {
            "luminance" => DepthMode::Luminance,
            "intensity" => DepthMode::Intensity,
            "alpha" => DepthMode::Alpha,
            "red" => DepthMode::Red,
            _ => return Err(bad("unknown depth texture mode")),
        }),
        [verb @ ("enable" | "disable"), "GL_VERTEX_PROGRAM_TWO_SIDE"] => {
            CompatCommand::TwoSide(*verb == "enable")
        }
        ["shade", "model", model] => CompatCommand::ShadeModel {
            flat: match *model {
                "flat" | "GL_FLAT" => true,
                "smooth" | "GL_SMOOTH" => false,
                _ => return Err(bad("expected flat or smooth")),
            },
        },
        ["newlist", "GL_COMPILE"] => CompatCommand::NewList { execute: false },
        ["newlist", "GL_COMPILE_AND_EXECUTE"] => CompatCommand::NewList { execute: true },
        ["endlist"] => CompatCommand::EndList,
        ["calllist"] => CompatCommand::CallList,
        ["deletelist"] => CompatCommand::DeleteList,
        _ => return Ok(None),
    };
    Ok(Some(command))
}
