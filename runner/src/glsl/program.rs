//! The program the compiler hands the player: its stages' modules and what they declare,
//! and GL's introspection of them (active uniforms, blocks, uniform locations).

use std::collections::HashSet;

use super::description::{SamplerUniform, StorageBlock, UniformBlock, UniformMember, VertexInput};
use super::resources::subscripts;
use crate::scene::ShaderStage;

/// One compiled and linked stage.
#[derive(Debug, Clone)]
pub struct StageModule {
    pub stage: ShaderStage,
    pub words: Vec<u32>,
    pub capabilities: Vec<spirv::Capability>,
    /// The default uniform block (if any) and the named uniform blocks the stage declares.
    pub uniform_blocks: Vec<UniformBlock>,
    pub samplers: Vec<SamplerUniform>,
    /// Shader storage blocks by GL binding point.
    pub storage_blocks: Vec<StorageBlock>,
    pub vertex_inputs: Vec<VertexInput>,
    /// Uniforms of the default block (and samplers) with an explicit location, from the
    /// source: (location, GL name). glslang drops these locations.
    pub uniform_locations: Vec<(u32, String)>,
    /// The module has the `Xfb` execution mode.
    pub xfb: bool,
    /// How many transform-feedback varyings GL reports for the module's captured outputs
    /// (`GL_TRANSFORM_FEEDBACK_VARYINGS` of a SPIR-V program, ARB_gl_spirv).
    pub xfb_varyings: u32,
}

#[derive(Debug, Clone)]
pub struct Program {
    pub stages: Vec<StageModule>,
    /// Uniform initializers, which GL applies at link time (glslang drops them).
    pub initializers: Vec<crate::initializers::Initializer>,
}

/// A named uniform or shader storage block as `verify program_interface_query` finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockResource {
    /// GL_NUM_ACTIVE_VARIABLES.
    pub active_variables: u32,
    /// GL_BUFFER_DATA_SIZE.
    pub data_size: u32,
}

impl Program {
    /// GL_ACTIVE_UNIFORMS: the active uniforms of every stage under their GL names (the
    /// default blocks' and named uniform blocks' members, and the samplers), each named
    /// once however many stages use it.
    pub fn active_uniforms(&self) -> u32 {
        let mut names: HashSet<&str> = HashSet::new();
        // A GL SPIR-V module's members may have no names: each one is its own uniform.
        let mut nameless: HashSet<(u32, u32)> = HashSet::new();
        let anonymous = |n: &str| n.split(['.', '[']).any(str::is_empty);
        for stage in &self.stages {
            for block in &stage.uniform_blocks {
                for m in &block.members {
                    if anonymous(&m.name) {
                        nameless.insert((block.gl_binding, m.offset));
                    } else {
                        names.insert(&m.name);
                    }
                }
            }
            for sampler in &stage.samplers {
                // Elements named apart (arrays of arrays, structures): GL counts one
                // uniform per innermost array.
                if sampler.elements.is_empty() {
                    names.insert(&sampler.name);
                }
                names.extend(sampler.elements.iter().map(|e| {
                    e.strip_suffix(']')
                        .and_then(|rest| rest.rfind('[').map(|at| &e[..at]))
                        .unwrap_or(e)
                }));
            }
            for block in &stage.storage_blocks {
                names.extend(block.atomic_counters.iter().flatten().map(String::as_str));
            }
        }
        (names.len() + nameless.len()) as u32
    }

    /// GL_ACTIVE_UNIFORM_BLOCKS: the named uniform blocks of every stage, each element of
    /// an array of blocks apart, each named once however many stages use it.
    pub fn active_uniform_blocks(&self) -> u32 {
        let names: HashSet<&str> = self
            .stages
            .iter()
            .flat_map(|s| &s.uniform_blocks)
            .filter_map(|b| b.name.as_deref())
            .collect();
        names.len() as u32
    }

    /// The uniform GL names `name` (an array by its name or its first element's,
    /// `a[0]`), and whether it lies in a named block (else in the default block, where GL
    /// gives it no offset).
    pub fn active_uniform(&self, name: &str) -> Option<(&UniformMember, bool)> {
        self.stages
            .iter()
            .flat_map(|s| &s.uniform_blocks)
            .flat_map(|b| b.members.iter().map(move |m| (m, b.name.is_some())))
            .find(|(m, _)| {
                m.name == name
                    || (m.array.is_some() && name.strip_suffix("[0]") == Some(m.name.as_str()))
            })
    }

    /// The uniform (`storage` false) or shader storage block named `name`, or, with
    /// `binding`, the one at that GL binding point (how piglit finds a SPIR-V program's
    /// blocks, which have no names).
    pub fn block(&self, storage: bool, name: &str, binding: Option<u32>) -> Option<BlockResource> {
        for stage in &self.stages {
            if storage {
                // Element i of an array of blocks: `Block[i]`, at binding point N + i.
                let found = stage.storage_blocks.iter().find(|b| {
                    b.atomic_counters.is_none()
                        && (0..b.count).any(|i| match binding {
                            Some(n) => b.gl_binding + i == n,
                            None if b.count == 1 => b.name == name,
                            None => format!("{}{}", b.name, subscripts(i, &b.dims)) == name,
                        })
                });
                if let Some(b) = found {
                    return Some(BlockResource {
                        active_variables: b.active_variables,
                        data_size: b.data_size,
                    });
                }
            } else {
                let found = stage.uniform_blocks.iter().find(|b| match binding {
                    Some(n) => b.name.is_some() && b.gl_binding == n,
                    None => b.name.as_deref() == Some(name),
                });
                if let Some(b) = found {
                    return Some(BlockResource {
                        active_variables: b.members.len() as u32,
                        data_size: b.size,
                    });
                }
            }
        }
        None
    }

    /// The uniform at `location` (`layout(location = N)`), as GL assigns locations: one
    /// per scalar, vector or matrix and per array element, structure members in order.
    /// (GL name of the leaf, element index when it is an array).
    /// `only`: the stage of `active shader program` (a separable program's own uniforms).
    pub fn uniform_at(
        &self,
        location: u32,
        only: Option<ShaderStage>,
    ) -> Option<(String, Option<u32>)> {
        for stage in self
            .stages
            .iter()
            .filter(|s| only.is_none_or(|o| o == s.stage))
        {
            for (base, name) in &stage.uniform_locations {
                if location < *base {
                    continue;
                }
                let mut next = *base;
                // The elements of an array of arrays or a structure of samplers.
                let split_from = |s: &&SamplerUniform| {
                    s.name == *name || s.name.starts_with(&format!("{name}."))
                };
                for sampler in stage.samplers.iter().filter(split_from) {
                    let offset = location - base;
                    if let Some(i) = sampler.element_locations.iter().position(|&l| l == offset) {
                        return Some((sampler.elements[i].clone(), None));
                    }
                }
                if let Some(sampler) = stage.samplers.iter().find(|s| &s.name == name) {
                    // An array of samplers: one location per element.
                    if location < next + sampler.count {
                        let element = location - next;
                        return Some((name.clone(), (sampler.count > 1).then_some(element)));
                    }
                    continue;
                }
                let leaves = stage
                    .uniform_blocks
                    .iter()
                    .filter(|b| b.name.is_none())
                    .flat_map(|b| &b.members)
                    .filter(|m| {
                        m.name == *name
                            || m.name.starts_with(&format!("{name}."))
                            || m.name.starts_with(&format!("{name}["))
                    });
                // Locations the samplers split from this uniform take (beside other
                // members of its structures).
                let taken: Vec<u32> = stage
                    .samplers
                    .iter()
                    .filter(split_from)
                    .flat_map(|s| s.element_locations.iter().map(|l| base + l))
                    .collect();
                for leaf in leaves {
                    while taken.contains(&next) {
                        next += 1;
                    }
                    let count = leaf.array.map_or(1, |(len, _)| len);
                    if location < next + count {
                        return Some((leaf.name.clone(), leaf.array.map(|_| location - next)));
                    }
                    next += count;
                }
            }
        }
        None
    }

    pub fn stage(&self, stage: ShaderStage) -> Option<&StageModule> {
        self.stages.iter().find(|s| s.stage == stage)
    }

    pub fn has_capability(&self, cap: spirv::Capability) -> bool {
        self.stages.iter().any(|s| s.capabilities.contains(&cap))
    }

    pub fn vertex_inputs(&self) -> &[VertexInput] {
        self.stage(ShaderStage::Vertex)
            .map(|s| s.vertex_inputs.as_slice())
            .unwrap_or(&[])
    }
}
