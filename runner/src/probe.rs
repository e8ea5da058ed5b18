//! Pixel probes on read-back attachments, with GL's window coordinates and piglit's rules.

use crate::scene::{Probe, Region};

/// One attachment as read back: `pixels` row by row from the top of the window.
pub struct Image<'a> {
    pub width: u32,
    pub height: u32,
    pub pixels: &'a [[f64; 4]],
    /// UINT/SINT formats compare raw integers exactly.
    pub integer: bool,
}

/// piglit's default: one step of an 8-bit channel.
pub const DEFAULT_TOLERANCE: [f64; 4] = [1.0 / 255.0; 4];

/// Slack for the floating-point arithmetic of the comparison itself, far below any step.
const EPSILON: f64 = 1e-9;

/// The probed rectangle in GL window coordinates (origin bottom left): x, y, w, h.
pub fn resolve(region: Region, width: u32, height: u32) -> (i64, i64, i64, i64) {
    let (w, h) = (width as f64, height as f64);
    match region {
        Region::All => (0, 0, width as i64, height as i64),
        Region::Rect { x, y, w, h } => (x, y, w, h),
        Region::Relative { x, y, w: rw, h: rh } => {
            let x0 = (x * w).round();
            let y0 = (y * h).round();
            (
                x0 as i64,
                y0 as i64,
                ((x + rw) * w).round() as i64 - x0 as i64,
                ((y + rh) * h).round() as i64 - y0 as i64,
            )
        }
        // As piglit: the fraction times the size, truncated, and (1, 1) is the last pixel.
        Region::RelativePoint { x, y } => (
            ((x * w) as i64).min(w as i64 - 1),
            ((y * h) as i64).min(h as i64 - 1),
            1,
            1,
        ),
    }
}

fn show(values: &[f64]) -> String {
    let parts: Vec<String> = values
        .iter()
        .map(|v| format!("{}", (v * 1e4).round() / 1e4))
        .collect();
    format!("({})", parts.join(", "))
}

/// Why a probe failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeFailure {
    #[error("probe region ({x0}, {y0}, {w}, {h}) is empty or outside the {width}x{height} window")]
    Region {
        x0: i64,
        y0: i64,
        w: i64,
        h: i64,
        width: u32,
        height: u32,
    },
    /// The first pixel off the expected value (`expected` and `observed` as `show` prints).
    #[error(
        "probe at ({x}, {y}) of attachment {attachment}: expected {expected}, observed {observed}"
    )]
    Pixel {
        x: i64,
        y: i64,
        attachment: usize,
        expected: String,
        observed: String,
    },
}

/// Checks every pixel of the probe's region; the error names the first bad pixel.
pub fn check(probe: &Probe, image: &Image, tolerance: [f64; 4]) -> Result<(), ProbeFailure> {
    let (x0, y0, w, h) = resolve(probe.region, image.width, image.height);
    if w <= 0
        || h <= 0
        || x0 < 0
        || y0 < 0
        || x0 + w > image.width as i64
        || y0 + h > image.height as i64
    {
        return Err(ProbeFailure::Region {
            x0,
            y0,
            w,
            h,
            width: image.width,
            height: image.height,
        });
    }
    let channels = probe.expected.len();
    for y in y0..y0 + h {
        let row = (image.height as i64 - 1 - y) as usize;
        for x in x0..x0 + w {
            let got = &image.pixels[row * image.width as usize + x as usize][..channels];
            let bad = got
                .iter()
                .zip(&probe.expected)
                .enumerate()
                .any(|(c, (g, e))| {
                    if image.integer {
                        g != e
                    } else {
                        (g - e).abs() > tolerance[c] + EPSILON || g.is_nan()
                    }
                });
            if bad {
                return Err(ProbeFailure::Pixel {
                    x,
                    y,
                    attachment: probe.attachment,
                    expected: show(&probe.expected),
                    observed: show(got),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x2 image: the top row (GL y = 1) red, the bottom row (GL y = 0) green.
    fn image() -> Vec<[f64; 4]> {
        let mut p = vec![[1.0, 0.0, 0.0, 1.0]; 4];
        p.extend(vec![[0.0, 1.0, 0.0, 1.0]; 4]);
        p
    }

    /// A float image of `pixels`, `width` wide.
    fn float_image(width: u32, pixels: &[[f64; 4]]) -> Image<'_> {
        Image {
            width,
            height: pixels.len() as u32 / width,
            pixels,
            integer: false,
        }
    }

    fn rect(x: i64, y: i64, w: i64, h: i64) -> Region {
        Region::Rect { x, y, w, h }
    }

    fn probe(region: Region, expected: &[f64]) -> Probe {
        Probe {
            attachment: 0,
            region,
            expected: expected.to_vec(),
        }
    }

    #[test]
    fn gl_window_origin_is_bottom_left() {
        let px = image();
        let img = float_image(4, &px);
        let bottom = probe(rect(0, 0, 4, 1), &[0.0, 1.0, 0.0, 1.0]);
        assert!(check(&bottom, &img, DEFAULT_TOLERANCE).is_ok());
        let top = probe(rect(2, 1, 1, 1), &[0.0, 1.0, 0.0]);
        let err = check(&top, &img, DEFAULT_TOLERANCE).unwrap_err();
        assert_eq!(
            err.to_string(),
            "probe at (2, 1) of attachment 0: expected (0, 1, 0), observed (1, 0, 0)"
        );
    }

    #[test]
    fn tolerance_is_per_channel_and_inclusive() {
        let px = vec![[0.5, 0.5, 0.5, 0.5]];
        let img = float_image(1, &px);
        let p = probe(Region::All, &[0.6, 0.5, 0.5, 0.5]);
        assert!(check(&p, &img, DEFAULT_TOLERANCE).is_err());
        assert!(check(&p, &img, [0.1, 0.0, 0.0, 0.0]).is_ok());
        assert!(check(&p, &img, [0.09, 1.0, 1.0, 1.0]).is_err());
        // One 8-bit step (128/255 read back for 0.5) passes with the default tolerance.
        let px = vec![[128.0 / 255.0, 0.0, 0.0, 1.0]];
        let img = float_image(1, &px);
        assert!(check(
            &probe(Region::All, &[0.5, 0.0, 0.0, 1.0]),
            &img,
            DEFAULT_TOLERANCE
        )
        .is_ok());
    }

    #[test]
    fn integer_attachments_compare_exactly() {
        let px = vec![[3.0, 0.0, 0.0, 1.0]];
        let img = Image {
            width: 1,
            height: 1,
            pixels: &px,
            integer: true,
        };
        assert!(check(&probe(Region::All, &[3.0, 0.0, 0.0, 1.0]), &img, [10.0; 4]).is_ok());
        assert!(check(
            &probe(Region::All, &[3.001, 0.0, 0.0, 1.0]),
            &img,
            [10.0; 4]
        )
        .is_err());
    }

    #[test]
    fn relative_regions_round_as_specified() {
        // x: round(0.25*250)=63 (62.5 rounds away from zero), w: round(0.75*250)-63 = 188-63.
        assert_eq!(
            resolve(
                Region::Relative {
                    x: 0.25,
                    y: 0.5,
                    w: 0.5,
                    h: 0.5
                },
                250,
                250
            ),
            (63, 125, 125, 125)
        );
        assert_eq!(
            resolve(Region::RelativePoint { x: 0.5, y: 0.1 }, 100, 50),
            (50, 5, 1, 1)
        );
        assert_eq!(
            resolve(Region::RelativePoint { x: 1.0, y: 0.999 }, 100, 50),
            (99, 49, 1, 1)
        );
    }

    #[test]
    fn regions_outside_the_window_fail() {
        let px = image();
        let img = float_image(4, &px);
        let p = probe(rect(3, 0, 2, 1), &[0.0, 0.0, 0.0]);
        assert!(check(&p, &img, DEFAULT_TOLERANCE)
            .unwrap_err()
            .to_string()
            .contains("outside"));
    }
}
