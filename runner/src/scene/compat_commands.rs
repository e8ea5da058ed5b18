//! The `[test]` commands only a compatibility-profile scene (`GL COMPAT >= x.y`) has. They
//! are parsed here with the rest of the scene; `compat::lower` (GL emulation, one layer up)
//! replaces them with core commands.

use super::error::SceneError;

/// Commands of a compatibility context, replaced by `compat::lower`.
#[derive(Debug, Clone, PartialEq)]
pub enum CompatCommand {
    /// `ortho` (the window) or `ortho l r b t`: piglit's `glOrtho(l, r, b, t, -1, 1)`.
    Ortho(Option<[f64; 4]>),
    /// `clip plane i a b c d`: `glClipPlane`.
    ClipPlane(u32, [f64; 4]),
    /// `newlist GL_COMPILE` (`execute` false) / `newlist GL_COMPILE_AND_EXECUTE`.
    NewList {
        execute: bool,
    },
    EndList,
    CallList,
    DeleteList,
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
        ["clip", "plane", i, a, b, c, d] => {
            let i = uint(i)?;
            if i >= CLIP_PLANES {
                return Err(SceneError::Skip(format!(
                    "line {number}: clip plane beyond 7: `{line}`"
                )));
            }
            CompatCommand::ClipPlane(i, [float(a)?, float(b)?, float(c)?, float(d)?])
        }
        ["newlist", "GL_COMPILE"] => CompatCommand::NewList { execute: false },
        ["newlist", "GL_COMPILE_AND_EXECUTE"] => CompatCommand::NewList { execute: true },
        ["endlist"] => CompatCommand::EndList,
        ["calllist"] => CompatCommand::CallList,
        ["deletelist"] => CompatCommand::DeleteList,
        _ => return Ok(None),
    };
    Ok(Some(command))
}
