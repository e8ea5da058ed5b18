//! Probes of what the draws left: colour attachments (compared by `crate::probe`), the
//! depth buffer, transform-feedback buffers.

use super::state::{fail, Player};
use crate::probe::{self, Image};
use crate::scene::{Probe, SceneError, XfbKind};

impl Player {
    /// `probe …`: pixels of a colour attachment.
    pub(super) fn probe(&mut self, p: &Probe) -> Result<(), SceneError> {
        self.refresh_readback().map_err(fail)?;
        let a = self
            .targets
            .attachments
            .get(p.attachment)
            .ok_or_else(|| fail(format!("there is no attachment {}", p.attachment)))?;
        let pixels = self.targets.pixels(p.attachment);
        let image = Image {
            width: self.targets.width,
            height: self.targets.height,
            pixels: &pixels,
            integer: a.format.is_integer(),
        };
        probe::check(p, &image, self.tolerance).map_err(fail)?;
        Ok(())
    }

    /// `probe depth x y d`: the depth buffer at one pixel, within the colour tolerance.
    pub(super) fn probe_depth(&mut self, x: i64, y: i64, depth: f64) -> Result<(), SceneError> {
        let (x, y) = (&x, &y);
        self.refresh_readback().map_err(fail)?;
        let (w, h) = (self.targets.width as i64, self.targets.height as i64);
        if !(0..w).contains(x) || !(0..h).contains(y) {
            return Err(fail(format!(
                "probe depth ({x}, {y}) is outside the window"
            )));
        }
        let depths = self
            .targets
            .depths()
            .ok_or_else(|| fail("there is no depth buffer"))?;
        // Rows from the top of the framebuffer; GL's y counts from the bottom.
        let got = depths[((h - 1 - y) * w + x) as usize] as f64;
        if (got - depth).abs() > self.tolerance[0] {
            return Err(fail(format!(
                "probe depth at ({x}, {y}): expected {depth}, observed {got}"
            )));
        }
        Ok(())
    }

    pub(super) fn probe_xfb(
        &self,
        kind: XfbKind,
        index: u32,
        element: u64,
        value: f64,
    ) -> Result<(), SceneError> {
        let buffer = self
            .xfb_buffers
            .get(&index)
            .ok_or_else(|| fail(format!("no xfb buffer object {index}")))?;
        let size = if kind == XfbKind::Float { 4 } else { 8 };
        let start = (element * size) as usize;
        let bytes = buffer
            .bytes()
            .get(start..start + size as usize)
            .ok_or_else(|| {
                fail(format!(
                    "element {element} is beyond xfb buffer {index} ({} bytes)",
                    buffer.size
                ))
            })?;
        let (got, ok) = match kind {
            XfbKind::Float => {
                let got = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64;
                (got, (got - value).abs() <= 1e-6 * value.abs())
            }
            XfbKind::Double => {
                let got = f64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
                (got, got == value)
            }
        };
        if ok {
            Ok(())
        } else {
            Err(fail(format!(
                "xfb buffer {index} element {element}: expected {value:?}, observed {got:?}"
            )))
        }
    }
}
