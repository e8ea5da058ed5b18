//! Colour attachment formats the runner can render to, clear and read back.

use ash::vk;

/// How a format's texels are read back and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Unorm8,
    Snorm8,
    Float16,
    Float32,
    Uint,
    Sint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub vk: vk::Format,
    pub kind: Kind,
    /// Bytes per channel; every format here has four channels.
    pub channel_bytes: u32,
    /// Stored as BGRA (channels swizzled on readback).
    pub bgra: bool,
}

const TABLE: &[(&str, vk::Format, Kind, u32, bool)] = &[
    (
        "R8G8B8A8_UNORM",
        vk::Format::R8G8B8A8_UNORM,
        Kind::Unorm8,
        1,
        false,
    ),
    (
        "B8G8R8A8_UNORM",
        vk::Format::B8G8R8A8_UNORM,
        Kind::Unorm8,
        1,
        true,
    ),
    (
        "R8G8B8A8_SNORM",
        vk::Format::R8G8B8A8_SNORM,
        Kind::Snorm8,
        1,
        false,
    ),
    (
        "R8G8B8A8_UINT",
        vk::Format::R8G8B8A8_UINT,
        Kind::Uint,
        1,
        false,
    ),
    (
        "R8G8B8A8_SINT",
        vk::Format::R8G8B8A8_SINT,
        Kind::Sint,
        1,
        false,
    ),
    (
        "R16G16B16A16_SFLOAT",
        vk::Format::R16G16B16A16_SFLOAT,
        Kind::Float16,
        2,
        false,
    ),
    (
        "R16G16B16A16_UINT",
        vk::Format::R16G16B16A16_UINT,
        Kind::Uint,
        2,
        false,
    ),
    (
        "R16G16B16A16_SINT",
        vk::Format::R16G16B16A16_SINT,
        Kind::Sint,
        2,
        false,
    ),
    (
        "R32G32B32A32_SFLOAT",
        vk::Format::R32G32B32A32_SFLOAT,
        Kind::Float32,
        4,
        false,
    ),
    (
        "R32G32B32A32_UINT",
        vk::Format::R32G32B32A32_UINT,
        Kind::Uint,
        4,
        false,
    ),
    (
        "R32G32B32A32_SINT",
        vk::Format::R32G32B32A32_SINT,
        Kind::Sint,
        4,
        false,
    ),
];

impl Format {
    pub const DEFAULT: Format = Format {
        vk: vk::Format::R8G8B8A8_UNORM,
        kind: Kind::Unorm8,
        channel_bytes: 1,
        bgra: false,
    };

    /// Looks up a VkFormat name without its `VK_FORMAT_` prefix.
    pub fn by_name(name: &str) -> Option<Format> {
        TABLE
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|&(_, vk, kind, channel_bytes, bgra)| Format {
                vk,
                kind,
                channel_bytes,
                bgra,
            })
    }

    /// The VkFormat name without its `VK_FORMAT_` prefix.
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(_, vk, ..)| *vk == self.vk)
            .map_or("?", |(n, ..)| n)
    }

    pub fn names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().map(|(n, ..)| *n)
    }

    pub fn texel_bytes(self) -> u32 {
        4 * self.channel_bytes
    }

    pub fn is_integer(self) -> bool {
        matches!(self.kind, Kind::Uint | Kind::Sint)
    }

    /// The clear value for `color`: integer formats get the colour converted to integers.
    pub fn clear_value(self, color: [f32; 4]) -> vk::ClearColorValue {
        match self.kind {
            Kind::Uint => vk::ClearColorValue {
                uint32: color.map(|c| c as u32),
            },
            Kind::Sint => vk::ClearColorValue {
                int32: color.map(|c| c as i32),
            },
            _ => vk::ClearColorValue { float32: color },
        }
    }

    /// Decodes one texel into RGBA: normalized values for UNORM/SNORM, the stored value for
    /// float and integer formats.
    pub fn decode(self, texel: &[u8]) -> [f64; 4] {
        let n = self.channel_bytes as usize;
        let mut out = [0.0; 4];
        for (c, value) in out.iter_mut().enumerate() {
            let b = &texel[c * n..(c + 1) * n];
            *value = match (self.kind, n) {
                (Kind::Unorm8, _) => b[0] as f64 / 255.0,
                (Kind::Snorm8, _) => ((b[0] as i8) as f64 / 127.0).max(-1.0),
                (Kind::Float16, _) => half_to_f32(u16::from_le_bytes([b[0], b[1]])) as f64,
                (Kind::Float32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                (Kind::Uint, 1) => b[0] as f64,
                (Kind::Uint, 2) => u16::from_le_bytes([b[0], b[1]]) as f64,
                (Kind::Uint, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                (Kind::Sint, 1) => (b[0] as i8) as f64,
                (Kind::Sint, 2) => i16::from_le_bytes([b[0], b[1]]) as f64,
                (Kind::Sint, _) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            };
        }
        if self.bgra {
            out.swap(0, 2);
        }
        out
    }
}

/// IEEE 754 binary16 → binary32.
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let mant = (h & 0x3ff) as f32;
    sign * match exp {
        0 => mant * 2f32.powi(-24),
        31 if mant == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + mant / 1024.0) * 2f32.powi(exp - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_kind() {
        let unorm = Format::by_name("R8G8B8A8_UNORM").unwrap();
        assert_eq!(unorm.decode(&[255, 0, 51, 255]), [1.0, 0.0, 0.2, 1.0]);
        let bgra = Format::by_name("B8G8R8A8_UNORM").unwrap();
        assert_eq!(bgra.decode(&[255, 0, 0, 255]), [0.0, 0.0, 1.0, 1.0]);
        let sint = Format::by_name("R32G32B32A32_SINT").unwrap();
        let bytes: Vec<u8> = [-3i32, 7, 0, i32::MIN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(sint.decode(&bytes), [-3.0, 7.0, 0.0, i32::MIN as f64]);
        let half = Format::by_name("R16G16B16A16_SFLOAT").unwrap();
        // 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, 65504 = 0x7bff
        let bytes: Vec<u8> = [0x3c00u16, 0xc000, 0x3800, 0x7bff]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(half.decode(&bytes), [1.0, -2.0, 0.5, 65504.0]);
    }

    #[test]
    fn integer_clears_convert_the_colour() {
        let uint = Format::by_name("R32G32B32A32_UINT").unwrap();
        let v = uint.clear_value([1.0, 0.0, 3.0, 1.0]);
        // SAFETY: every member of `ClearColorValue` is 16 bytes of plain data, so reading
        // `uint32` is defined whichever member was written.
        assert_eq!(unsafe { v.uint32 }, [1, 0, 3, 1]);
        assert!(Format::by_name("R5G6B5_UNORM_PACK16").is_none());
    }
}
