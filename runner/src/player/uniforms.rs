//! `uniform` commands: values written into the uniform blocks (the default blocks and
//! named blocks) at their std140 offsets, members found by their GL names.

use super::state::{fail, BlockData, Player};
use crate::glsl::{Scalar, UniformMember};
use crate::initializers::Initializer;
use crate::scene::{BlockField, SceneError, Uniform, UniformData};

/// The integers an f64 holds exactly: up to 2^53 in magnitude.
const F64_EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// Writes a `uniform` command's values into a default-block member at its std140 offsets.
fn write_uniform(member: &UniformMember, u: &Uniform, bytes: &mut [u8]) -> Result<(), String> {
    let type_ok = matches!(
        (&u.data, member.scalar),
        (UniformData::F32(_), Scalar::Float)
            | (UniformData::F64(_), Scalar::Double)
            | (UniformData::I32(_), Scalar::Int | Scalar::Bool)
            | (UniformData::U32(_), Scalar::Uint | Scalar::Bool)
            | (UniformData::I64(_), Scalar::Int64)
            | (UniformData::U64(_), Scalar::Uint64)
    );
    if !type_ok || member.columns != u.columns || member.rows != u.rows {
        return Err(format!(
            "uniform `{}` is not a {} in the shader",
            u.name, u.type_name
        ));
    }
    let mut base = member.offset as usize;
    match (member.array, u.index) {
        (Some((len, stride)), Some(i)) if i < len => base += (i * stride) as usize,
        (_, Some(i)) => return Err(format!("uniform `{}[{i}]` is out of range", u.name)),
        _ => {}
    }
    let scalar_bytes: Vec<Vec<u8>> = match &u.data {
        UniformData::F32(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
        UniformData::F64(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
        UniformData::I32(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
        UniformData::U32(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
        UniformData::I64(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
        UniformData::U64(v) => v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
    };
    let size = member.scalar.size() as usize;
    for col in 0..u.columns as usize {
        for row in 0..u.rows as usize {
            let stride = member.matrix_stride as usize;
            let at = if member.row_major {
                base + row * stride + col * size
            } else {
                base + col * stride + row * size
            };
            let src = &scalar_bytes[col * u.rows as usize + row];
            bytes
                .get_mut(at..at + size)
                .ok_or_else(|| format!("uniform `{}` lies beyond its block", u.name))?
                .copy_from_slice(src);
        }
    }
    Ok(())
}

impl BlockData {
    pub fn set(&mut self, field: BlockField) {
        match field {
            BlockField::Binding(b) => self.binding = Some(b),
            BlockField::Offset(o) => self.offset = o,
            BlockField::ArrayIndex(i) => self.array_index = i,
            BlockField::MatrixStride(s) => self.matrix_stride = s,
            BlockField::RowMajor(r) => self.row_major = r,
        }
    }
}

impl Player {
    /// A SPIR-V program's `uniform` command after `block binding N`: the value goes at the
    /// `block offset` of the uniform block at that binding point, as piglit writes it.
    fn set_block_uniform(&mut self, u: &Uniform, binding: u32) -> Result<(), SceneError> {
        let d = self.block_data;
        let target = binding + d.array_index;
        let (_, buffer) = self
            .uniforms
            .iter_mut()
            .find(|(b, _)| b.name.is_some() && b.gl_binding == target)
            .ok_or_else(|| fail(format!("no uniform block at binding {target}")))?;
        let scalar = match u.data {
            UniformData::F32(_) => Scalar::Float,
            UniformData::F64(_) => Scalar::Double,
            UniformData::I32(_) => Scalar::Int,
            UniformData::U32(_) => Scalar::Uint,
            UniformData::I64(_) => Scalar::Int64,
            UniformData::U64(_) => Scalar::Uint64,
        };
        let member = UniformMember {
            name: u.name.clone(),
            offset: d.offset,
            scalar,
            columns: u.columns,
            rows: u.rows,
            matrix_stride: d.matrix_stride,
            array: None,
            row_major: d.row_major && u.columns > 1,
        };
        let u = Uniform {
            index: None,
            ..u.clone()
        };
        write_uniform(&member, &u, buffer.bytes_mut()).map_err(fail)
    }

    /// Writes GL's link-time values of initialized uniforms into the default blocks: the
    /// leaves under the uniform's name take its values in order.
    pub(super) fn apply_initializers(&mut self, inits: &[Initializer]) -> Result<(), String> {
        for init in inits {
            let mut written = false;
            for (block, buffer) in &mut self.uniforms {
                if block.name.is_some() {
                    continue;
                }
                let leaves: Vec<&UniformMember> = block
                    .members
                    .iter()
                    .filter(|m| {
                        m.name == init.name
                            || m.name.starts_with(&format!("{}.", init.name))
                            || m.name.starts_with(&format!("{}[", init.name))
                    })
                    .collect();
                if leaves.is_empty() {
                    continue;
                }
                let mut values = init.values.iter();
                for leaf in leaves {
                    let n = (leaf.columns * leaf.rows) as usize;
                    for element in 0..leaf.array.map_or(1, |(len, _)| len) {
                        let v: Vec<f64> = values.by_ref().take(n).copied().collect();
                        if v.len() < n {
                            return Err(format!(
                                "the initializer of `{}` has too few values",
                                init.name
                            ));
                        }
                        let data = match leaf.scalar {
                            Scalar::Float => {
                                UniformData::F32(v.iter().map(|x| *x as f32).collect())
                            }
                            Scalar::Double => UniformData::F64(v),
                            // `0xffffffff` is the int −1: the bits wrap.
                            Scalar::Int => {
                                UniformData::I32(v.iter().map(|x| *x as i64 as i32).collect())
                            }
                            Scalar::Uint | Scalar::Bool => {
                                UniformData::U32(v.iter().map(|x| *x as u32).collect())
                            }
                            // The values went through f64: past 2^53 they may have lost
                            // bits, which a 64-bit integer would keep.
                            Scalar::Int64 | Scalar::Uint64
                                if v.iter().any(|x| x.abs() > F64_EXACT_INTEGERS) =>
                            {
                                return Err(format!(
                                    "the initializer of `{}` holds a 64-bit integer beyond \
                                     2^53, which the runner does not carry exactly",
                                    init.name
                                ));
                            }
                            Scalar::Int64 => {
                                UniformData::I64(v.iter().map(|x| *x as i64).collect())
                            }
                            Scalar::Uint64 => {
                                UniformData::U64(v.iter().map(|x| *x as u64).collect())
                            }
                        };
                        let u = Uniform {
                            type_name: "initializer".into(),
                            name: leaf.name.clone(),
                            index: leaf.array.map(|_| element),
                            columns: leaf.columns,
                            rows: leaf.rows,
                            data,
                        };
                        write_uniform(leaf, &u, buffer.bytes_mut())?;
                    }
                }
                written = true;
            }
            if !written {
                // An initialized uniform the program does not use: GL has nothing to set.
                continue;
            }
        }
        Ok(())
    }

    pub(super) fn set_uniform(&mut self, u: &Uniform) -> Result<(), SceneError> {
        if let Ok(location) = u.name.parse::<u32>() {
            // A SPIR-V program's uniform, named by its location (piglit's glUniform*(loc)).
            let Some((name, index)) = self
                .program
                .uniform_at(location + u.index.unwrap_or(0), self.active_stage)
            else {
                // piglit's tests name only active uniforms' locations.
                return Err(fail(format!("no active uniform at location {location}")));
            };
            return self.set_named_uniform(&Uniform {
                name,
                index,
                ..u.clone()
            });
        }
        if let Some(binding) = self.block_data.binding {
            return self.set_block_uniform(u, binding);
        }
        self.set_named_uniform(u)
    }

    /// A uniform by its GL name.
    fn set_named_uniform(&mut self, u: &Uniform) -> Result<(), SceneError> {
        // A sampler's value is its texture unit.
        if let UniformData::I32(v) = &u.data {
            if v.len() == 1 && self.textures.set_unit(&u.name, u.index, v[0])? {
                return Ok(());
            }
        }
        // `a[2]` is element 2 of the array member `a`, or the leaf named `a[2]` (an element
        // of an array of arrays or of structs, flattened).
        let whole = u.index.map(|i| format!("{}[{i}]", u.name));
        let mut found = false;
        // `active shader program STAGE`: only that stage's default block (its binding is
        // the stage's index in the program).
        let default_binding = self
            .active_stage
            .and_then(|st| self.program.stages.iter().position(|s| s.stage == st))
            .map(|i| i as u32);
        for (block, buffer) in &mut self.uniforms {
            if block.name.is_none() && default_binding.is_some_and(|b| b != block.binding) {
                continue;
            }
            // GL names the members of every element of an array of blocks `Block.member`:
            // piglit writes the element `ubo array index` chose (0 until then).
            if block.name.as_ref().is_some_and(|n| n.ends_with(']'))
                && block.element != self.ubo_array_index
            {
                continue;
            }
            let member = block
                .members
                .iter()
                .find(|m| m.name == u.name)
                .map(|m| (m, u.clone()));
            let member = member.or_else(|| {
                let whole = whole.as_ref()?;
                let m = block.members.iter().find(|m| &m.name == whole)?;
                Some((
                    m,
                    Uniform {
                        name: whole.clone(),
                        index: None,
                        ..u.clone()
                    },
                ))
            });
            if let Some((member, u)) = member {
                write_uniform(member, &u, buffer.bytes_mut()).map_err(|e| {
                    let block = block.name.as_deref().unwrap_or("the default uniform block");
                    fail(format!("{e} (in {block})"))
                })?;
                found = true;
            }
        }
        if found {
            Ok(())
        } else {
            Err(fail(format!("no active uniform named `{}`", u.name)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{self, Command};

    fn member(
        scalar: Scalar,
        columns: u32,
        rows: u32,
        matrix_stride: u32,
        array: Option<(u32, u32)>,
    ) -> UniformMember {
        UniformMember {
            name: "u".into(),
            offset: 16,
            scalar,
            columns,
            rows,
            matrix_stride,
            array,
            row_major: false,
        }
    }

    fn uniform(line: &str) -> Uniform {
        match scene::parse(&format!("[test]\n{line}")).unwrap().commands[0]
            .command
            .clone()
        {
            Command::Uniform(u) => u,
            _ => unreachable!(),
        }
    }

    #[test]
    fn matrices_are_written_column_by_column_at_the_matrix_stride() {
        let mut bytes = vec![0u8; 96];
        write_uniform(
            &member(Scalar::Float, 2, 3, 16, None),
            &uniform("uniform mat2x3 u 1 2 3 4 5 6"),
            &mut bytes,
        )
        .unwrap();
        let f = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        // std140: column 0 at 16, column 1 at 32; each column a vec3.
        assert_eq!(
            [f(16), f(20), f(24), f(32), f(36), f(40)],
            [1., 2., 3., 4., 5., 6.]
        );
        assert_eq!(f(28), 0.0, "std140 padding stays untouched");
    }

    #[test]
    fn array_elements_use_the_array_stride() {
        let mut bytes = vec![0u8; 96];
        write_uniform(
            &member(Scalar::Int, 1, 1, 0, Some((3, 16))),
            &uniform("uniform int u[2] -5"),
            &mut bytes,
        )
        .unwrap();
        assert_eq!(i32::from_le_bytes(bytes[48..52].try_into().unwrap()), -5);
        assert!(write_uniform(
            &member(Scalar::Int, 1, 1, 0, Some((3, 16))),
            &uniform("uniform int u[3] 1"),
            &mut bytes
        )
        .is_err());
    }

    #[test]
    fn type_mismatch_is_an_error() {
        let mut bytes = vec![0u8; 64];
        let err = write_uniform(
            &member(Scalar::Float, 1, 4, 0, None),
            &uniform("uniform ivec4 u 1 2 3 4"),
            &mut bytes,
        )
        .unwrap_err();
        assert!(err.contains("not a ivec4"));
        let d = write_uniform(
            &member(Scalar::Double, 1, 2, 0, None),
            &uniform("uniform dvec2 u 0.1 0.2"),
            &mut bytes,
        );
        assert!(d.is_ok());
        assert_eq!(f64::from_le_bytes(bytes[24..32].try_into().unwrap()), 0.2);
    }

    #[test]
    fn int64_uniforms_take_eight_bytes_per_component_and_their_own_type() {
        let mut bytes = vec![0u8; 64];
        write_uniform(
            &member(Scalar::Int64, 1, 2, 0, None),
            &uniform("uniform i64vec2 u -2 0x7fffffffffffffff"),
            &mut bytes,
        )
        .unwrap();
        let at = |o: usize| i64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        assert_eq!([at(16), at(24)], [-2, i64::MAX]);
        // A uint64_t uniform is not an int64_t, nor a uint.
        for scalar in [Scalar::Int64, Scalar::Uint] {
            assert!(write_uniform(
                &member(scalar, 1, 1, 0, None),
                &uniform("uniform uint64_t u 1"),
                &mut bytes
            )
            .is_err());
        }
    }
}
