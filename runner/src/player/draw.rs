//! Draws as the GL application issues them: `draw arrays`, `draw elements` (indexed and
//! indirect), piglit's rectangles, transform feedback; the pipelines they need and the GL
//! state set per command buffer.

use std::collections::BTreeMap;

use ash::vk;

use super::state::{
    fail, words_to_bytes, PipelineKey, Player, Source, CONSTANT_BINDING, RECT_STRIDE,
};
use crate::glsl::{Scalar, VertexInput};
use crate::scene::{self, DataType, IndexType, Mode, ScalarKind, SceneError};
use crate::vk::pipeline::{self, PipelineDesc};
use crate::vk::{check, VkResult};

/// One draw, as the GL application would issue it.
pub(super) struct DrawCall {
    pub(super) mode: Mode,
    pub(super) first: u32,
    pub(super) count: u32,
    pub(super) instances: u32,
    pub(super) base_instance: u32,
    pub(super) source: Source,
    pub(super) xfb: bool,
    /// `draw elements`: `first` and `count` count indices of `[indices]`, each plus this
    /// base vertex.
    pub(super) base_vertex: Option<i32>,
    /// Drawn from one command the draw writes to the indirect buffer.
    pub(super) indirect: bool,
}

impl DrawCall {
    /// `draw arrays`: the vertices `first..first + count` (`range`) of `[vertex data]`,
    /// `instances` times from `base_instance`.
    pub(super) fn arrays(
        mode: Mode,
        range: [u32; 2],
        instances: u32,
        base_instance: u32,
    ) -> DrawCall {
        DrawCall {
            mode,
            first: range[0],
            count: range[1],
            instances,
            base_instance,
            source: Source::VertexData,
            xfb: false,
            base_vertex: None,
            indirect: false,
        }
    }

    /// The indirect command's bytes: `VkDrawIndexedIndirectCommand` or
    /// `VkDrawIndirectCommand`.
    fn indirect_command(&self) -> Vec<u8> {
        let words = match self.base_vertex {
            Some(base_vertex) => vec![
                self.count,
                self.instances,
                self.first,
                base_vertex as u32,
                self.base_instance,
            ],
            None => vec![self.count, self.instances, self.first, self.base_instance],
        };
        words_to_bytes(&words)
    }
}

fn vertex_format(scalar: Scalar, components: u32) -> vk::Format {
    use vk::Format as F;
    let table = match scalar {
        Scalar::Int => [
            F::R32_SINT,
            F::R32G32_SINT,
            F::R32G32B32_SINT,
            F::R32G32B32A32_SINT,
        ],
        Scalar::Uint => [
            F::R32_UINT,
            F::R32G32_UINT,
            F::R32G32B32_UINT,
            F::R32G32B32A32_UINT,
        ],
        _ => [
            F::R32_SFLOAT,
            F::R32G32_SFLOAT,
            F::R32G32B32_SFLOAT,
            F::R32G32B32A32_SFLOAT,
        ],
    };
    table[(components.clamp(1, 4) - 1) as usize]
}

/// How a `draw rect` feeds the vertex shader: which inputs read the rectangle's corners.
struct RectFeed {
    /// The draw feeds the rectangle (else `[vertex data]`).
    rect: bool,
    /// `draw rect tex`: `piglit_texcoord` reads the corners' texture coordinates.
    tex: bool,
    /// The input (index into `vertex_inputs`) that reads the corners' positions.
    target: usize,
}

/// A `dvecN` column of `[vertex data]` feeding a double input at `vk_location`:
/// `R64*_SFLOAT` of N components (`glVertexAttribLPointer`), which takes two Vulkan
/// locations for a `dvec3`/`dvec4`. Devices need not read those formats (lavapipe does not):
/// glsem's `vertex_formats` reads them there.
fn double_column_feed(
    input: &VertexInput,
    vk_location: u32,
    col: &scene::Attribute,
) -> Result<InputFeed, SceneError> {
    if col.kind != ScalarKind::Double
        || col.data != DataType::Double
        || col.components != input.components
    {
        return Err(fail(format!(
            "vertex data column `{}` does not match the shader's {}-component double input",
            col.name, input.components
        )));
    }
    let attribute = vk::VertexInputAttributeDescription {
        location: vk_location,
        binding: 0,
        format: double_format(input.components),
        offset: col.offset,
    };
    Ok((attribute, None))
}

/// `R64*_SFLOAT` of `n` components.
fn double_format(n: u32) -> vk::Format {
    [
        vk::Format::R64_SFLOAT,
        vk::Format::R64G64_SFLOAT,
        vk::Format::R64G64B64_SFLOAT,
        vk::Format::R64G64B64A64_SFLOAT,
    ][(n.clamp(1, 4) - 1) as usize]
}

/// The Vulkan format that reads a column as GL reads it, piglit-vbo's way: a float GLSL
/// type through `glVertexAttribPointer` not normalized (integers `*SCALED`), an integer one
/// through `glVertexAttribIPointer`; `None` where GL has no such pairing (piglit refuses
/// it) or Vulkan no format.
fn column_format(col: &scene::Attribute) -> Option<vk::Format> {
    use vk::Format as F;
    let table = match (col.kind, col.data) {
        (ScalarKind::Float, DataType::Float) => {
            return Some(vertex_format(Scalar::Float, col.components))
        }
        (ScalarKind::Float, DataType::Half) => [
            F::R16_SFLOAT,
            F::R16G16_SFLOAT,
            F::R16G16B16_SFLOAT,
            F::R16G16B16A16_SFLOAT,
        ],
        (ScalarKind::Float, DataType::Byte) => [
            F::R8_SSCALED,
            F::R8G8_SSCALED,
            F::R8G8B8_SSCALED,
            F::R8G8B8A8_SSCALED,
        ],
        (ScalarKind::Float, DataType::Ubyte) => [
            F::R8_USCALED,
            F::R8G8_USCALED,
            F::R8G8B8_USCALED,
            F::R8G8B8A8_USCALED,
        ],
        (ScalarKind::Float, DataType::Short) => [
            F::R16_SSCALED,
            F::R16G16_SSCALED,
            F::R16G16B16_SSCALED,
            F::R16G16B16A16_SSCALED,
        ],
        (ScalarKind::Float, DataType::Ushort) => [
            F::R16_USCALED,
            F::R16G16_USCALED,
            F::R16G16B16_USCALED,
            F::R16G16B16A16_USCALED,
        ],
        // Vulkan has no 32-bit scaled formats.
        (ScalarKind::Float, _) => return None,
        (ScalarKind::Int | ScalarKind::Uint, DataType::Byte) => {
            [F::R8_SINT, F::R8G8_SINT, F::R8G8B8_SINT, F::R8G8B8A8_SINT]
        }
        (ScalarKind::Int | ScalarKind::Uint, DataType::Ubyte) => {
            [F::R8_UINT, F::R8G8_UINT, F::R8G8B8_UINT, F::R8G8B8A8_UINT]
        }
        (ScalarKind::Int | ScalarKind::Uint, DataType::Short) => [
            F::R16_SINT,
            F::R16G16_SINT,
            F::R16G16B16_SINT,
            F::R16G16B16A16_SINT,
        ],
        (ScalarKind::Int | ScalarKind::Uint, DataType::Ushort) => [
            F::R16_UINT,
            F::R16G16_UINT,
            F::R16G16B16_UINT,
            F::R16G16B16A16_UINT,
        ],
        (ScalarKind::Int | ScalarKind::Uint, DataType::Int) => {
            return Some(vertex_format(Scalar::Int, col.components))
        }
        (ScalarKind::Int | ScalarKind::Uint, DataType::Uint) => {
            return Some(vertex_format(Scalar::Uint, col.components))
        }
        // Doubles have their own feed (`double_column_feed`).
        _ => return None,
    };
    Some(table[(col.components.clamp(1, 4) - 1) as usize])
}

/// A column of `[vertex data]` feeding a 32-bit input at `vk_location`.
fn column_feed(
    input: &VertexInput,
    vk_location: u32,
    col: &scene::Attribute,
) -> Result<vk::VertexInputAttributeDescription, SceneError> {
    let kind_scalar = match col.kind {
        ScalarKind::Float => Scalar::Float,
        ScalarKind::Int => Scalar::Int,
        ScalarKind::Uint => Scalar::Uint,
        ScalarKind::Double => Scalar::Double,
    };
    if kind_scalar != input.scalar {
        return Err(fail(format!(
            "vertex data column `{}` is {:?} but the shader declares {:?}",
            col.name, kind_scalar, input.scalar
        )));
    }
    let format = column_format(col).ok_or_else(|| {
        SceneError::Skip(format!(
            "vertex data column `{}`: {:?} data read as {:?}: no vertex format",
            col.name, col.data, col.kind
        ))
    })?;
    Ok(vk::VertexInputAttributeDescription {
        location: vk_location,
        binding: 0,
        format,
        offset: col.offset,
    })
}

/// (0, 0, 0, 1) as doubles for a double input nobody feeds (glsem's unfed inputs are
/// 32-bit): `R64*_SFLOAT` from the constant binding.
fn constant_double_feed(input: &VertexInput, vk_location: u32) -> InputFeed {
    let attribute = vk::VertexInputAttributeDescription {
        location: vk_location,
        binding: CONSTANT_BINDING,
        format: double_format(input.components),
        offset: 0,
    };
    (attribute, None)
}

/// The vertex shader's inputs and the `[vertex data]` columns that may feed them.
struct VertexFeeds<'a> {
    inputs: &'a [VertexInput],
    columns: &'a [scene::Attribute],
    /// The generated passthrough VS reads the first column.
    passthrough_vs: bool,
}

impl VertexFeeds<'_> {
    /// The attributes a draw's pipeline reads, by GL location; inputs nobody feeds read
    /// glsem's current value.
    fn attributes(
        &self,
        feed: &RectFeed,
    ) -> Result<Vec<vk::VertexInputAttributeDescription>, SceneError> {
        let mut attributes = Vec::new();
        for (location, index) in self.slots()? {
            let Some((attribute, next)) = self.feed(feed, location, index)? else {
                continue;
            };
            attributes.extend(next);
            attributes.push(attribute);
        }
        Ok(attributes)
    }

    /// GL's locations the VS reads (an array's elements and a matrix's columns each at their
    /// own), each with the input that reads it; inputs sharing a location by components
    /// share its data.
    fn slots(&self) -> Result<BTreeMap<u32, usize>, SceneError> {
        let mut slots: BTreeMap<u32, usize> = BTreeMap::new();
        for (index, input) in self.inputs.iter().enumerate() {
            if input.scalar == Scalar::Bool {
                return Err(SceneError::Skip(format!(
                    "vertex input `{}`: boolean attributes are not supported",
                    input.name
                )));
            }
            // One GL location per matrix column of each element.
            for location in input.location..input.location + input.gl_locations() {
                slots.entry(location).or_insert(index);
            }
        }
        Ok(slots)
    }

    /// The `[vertex data]` column feeding GL's `location` of `input`.
    fn column(&self, location: u32, input: &VertexInput) -> Option<&scene::Attribute> {
        // A column feeds GL's location: its number, or its input's plus the column's index.
        let column_location = |col: &scene::Attribute| {
            col.name
                .parse::<u32>()
                .ok()
                .or_else(|| {
                    self.inputs
                        .iter()
                        .find(|i| i.name == col.name)
                        .map(|i| i.location)
                })
                .map(|l| l + col.index)
        };
        self.columns
            .iter()
            .find(|a| column_location(a) == Some(location))
            .or_else(|| {
                // The generated passthrough VS reads the first column, as piglit binds it.
                (self.passthrough_vs && input.name == "piglit_vertex")
                    .then(|| self.columns.first())
                    .flatten()
            })
    }

    /// What feeds GL's `location` of input `index`; `None`: GL's current value, which glsem
    /// feeds itself (vkCmdSetVertexAttribGLSEM's value, initially (0, 0, 0, 1)).
    fn feed(
        &self,
        feed: &RectFeed,
        location: u32,
        index: usize,
    ) -> Result<Option<InputFeed>, SceneError> {
        let input = &self.inputs[index];
        // GL's location → Vulkan's (see `glsl::vertex_inputs::spread_wide_inputs`).
        let vk_location = input.vk_location_of(location).unwrap_or(input.vk_location);
        let column = if feed.rect {
            None
        } else {
            self.column(location, input)
        };
        Ok(Some(
            if feed.rect && index == feed.target && location == input.location {
                if input.scalar != Scalar::Float {
                    return Err(fail(format!(
                        "`draw rect` feeds floats, but `{}` is not a float input",
                        input.name
                    )));
                }
                let position = vk::VertexInputAttributeDescription {
                    location: vk_location,
                    binding: 0,
                    format: vk::Format::R32G32B32A32_SFLOAT,
                    offset: 0,
                };
                (position, None)
            } else if feed.tex && input.name == "piglit_texcoord" {
                let texcoord = vk::VertexInputAttributeDescription {
                    location: vk_location,
                    binding: 0,
                    format: vk::Format::R32G32_SFLOAT,
                    offset: 16,
                };
                (texcoord, None)
            } else if let (Some(col), Scalar::Double) = (column, input.scalar) {
                double_column_feed(input, vk_location, col)?
            } else if let Some(col) = column {
                (column_feed(input, vk_location, col)?, None)
            } else if input.scalar == Scalar::Double {
                constant_double_feed(input, vk_location)
            } else {
                return Ok(None);
            },
        ))
    }
}

/// A draw's vertex bindings and attributes.
type VertexLayout = (
    Vec<vk::VertexInputBindingDescription>,
    Vec<vk::VertexInputAttributeDescription>,
);

/// The attribute feeding one GL location of an input, and the one feeding the next Vulkan
/// location when the input's words spill over (a `dvec3` or `dvec4`).
type InputFeed = (
    vk::VertexInputAttributeDescription,
    Option<vk::VertexInputAttributeDescription>,
);

impl Player {
    /// Vertex bindings and attributes for a draw: `draw rect` corners or `[vertex data]`
    /// columns by name; inputs nobody feeds read GL's default (0, 0, 0, 1).
    fn vertex_layout(&self, source: Source) -> Result<VertexLayout, SceneError> {
        let mut bindings = Vec::new();
        let mut attributes: Vec<vk::VertexInputAttributeDescription> = Vec::new();
        let feed = RectFeed {
            rect: source != Source::VertexData,
            tex: source == (Source::Rect { tex: true }),
            target: self.rect_target(),
        };
        if feed.rect {
            bindings.push(vk::VertexInputBindingDescription {
                binding: 0,
                stride: RECT_STRIDE,
                input_rate: vk::VertexInputRate::VERTEX,
            });
        } else if self.vertex_buffer.is_some() {
            bindings.push(vk::VertexInputBindingDescription {
                binding: 0,
                stride: self.vertex_stride,
                input_rate: vk::VertexInputRate::VERTEX,
            });
        }
        attributes.extend(self.vertex_feeds().attributes(&feed)?);
        if attributes.iter().any(|a| a.binding == CONSTANT_BINDING) {
            bindings.push(vk::VertexInputBindingDescription {
                binding: CONSTANT_BINDING,
                stride: 0,
                input_rate: vk::VertexInputRate::VERTEX,
            });
        }
        Ok((bindings, attributes))
    }

    /// The input `draw rect` feeds the corners' positions to: `piglit_vertex`, else the
    /// first declared input (glslang numbers them in order).
    fn rect_target(&self) -> usize {
        self.vertex_inputs
            .iter()
            .position(|i| i.name == "piglit_vertex")
            .or_else(|| {
                (0..self.vertex_inputs.len()).min_by_key(|&i| self.vertex_inputs[i].location)
            })
            .unwrap_or(0)
    }

    /// The vertex shader's inputs and the `[vertex data]` columns that may feed them.
    fn vertex_feeds(&self) -> VertexFeeds<'_> {
        VertexFeeds {
            inputs: &self.vertex_inputs,
            columns: &self.vertex_attributes,
            passthrough_vs: self.passthrough_vs,
        }
    }

    fn pipeline(&mut self, key: PipelineKey) -> Result<vk::Pipeline, SceneError> {
        if let Some(p) = self.pipelines.get(&key) {
            return Ok(p.handle);
        }
        let (bindings, attributes) = self.vertex_layout(key.source)?;
        let desc = PipelineDesc {
            stages: &self.modules,
            layout: self.layout,
            bindings: &bindings,
            attributes: &attributes,
            topology: key.topology,
            primitive_mode: key.primitive_mode,
            patch_control_points: key.patch_control_points,
            primitive_restart: key.primitive_restart,
            rasterizer_discard: key.xfb,
            raster: key.raster,
        };
        let p = pipeline::create(&self.gpu, &self.targets, &desc).map_err(fail)?;
        let handle = p.handle;
        self.pipelines.insert(key, p);
        Ok(handle)
    }

    /// `compute X Y Z`: `glDispatchCompute` of the program's compute shader; its writes are
    /// visible to the next commands (the submission is waited for).
    pub(super) fn dispatch(&mut self, groups: [u32; 3]) -> Result<(), SceneError> {
        let pipeline = match self.compute_pipeline {
            Some(p) => p,
            // Shader objects: the compute shader is bound instead.
            None if !self.shaders.is_empty() => vk::Pipeline::null(),
            None => {
                let module = self
                    .modules
                    .iter()
                    .find(|(s, _)| *s == scene::ShaderStage::Compute)
                    .map(|(_, m)| *m)
                    .ok_or_else(|| {
                        fail("`compute` without a compute shader (GL_INVALID_OPERATION)")
                    })?;
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(c"main");
                let info = vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(self.layout);
                // SAFETY: the module and layout are the player's and alive.
                let p = unsafe {
                    self.gpu.device.create_compute_pipelines(
                        vk::PipelineCache::null(),
                        &[info],
                        None,
                    )
                }
                .map_err(|(_, e)| fail(check("vkCreateComputePipelines")(e)))?[0];
                self.compute_pipeline = Some(p);
                p
            }
        };
        self.bind_textures()?;
        self.bind_storage()?;
        self.submit(|p, cmd| {
            let d = &p.gpu.device;
            // SAFETY: `cmd` is recording; the set and pipeline are the player's.
            unsafe {
                if p.shaders.is_empty() {
                    d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
                } else {
                    pipeline::bind_compute_shader(&p.gpu, cmd, &p.shaders);
                }
                if p.descriptor_set != vk::DescriptorSet::null() {
                    d.cmd_bind_descriptor_sets(
                        cmd,
                        vk::PipelineBindPoint::COMPUTE,
                        p.layout,
                        0,
                        &[p.descriptor_set],
                        &[],
                    );
                }
                d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
            }
        })
        .map_err(fail)?;
        // Image stores may write the framebuffer's texture.
        self.readback_fresh = false;
        Ok(())
    }

    /// piglit's `piglit_draw_rect_custom`: corners (x, y), (x + w, y), (x, y + h),
    /// (x + w, y + h) as one triangle strip, or as one patch of 4 vertices.
    pub(super) fn draw_rect(&mut self, rect: &scene::Rect) -> Result<(), SceneError> {
        let (x, y, w, h) = if rect.ortho {
            let (fw, fh) = (self.targets.width as f32, self.targets.height as f32);
            (
                2.0 * rect.x / fw - 1.0,
                2.0 * rect.y / fh - 1.0,
                2.0 * rect.w / fw,
                2.0 * rect.h / fh,
            )
        } else {
            (rect.x, rect.y, rect.w, rect.h)
        };
        let [tx, ty, tw, th] = rect.tex.unwrap_or([0.0, 0.0, 1.0, 1.0]);
        let corners = [
            [x, y, tx, ty],
            [x + w, y, tx + tw, ty],
            [x, y + h, tx, ty + th],
            [x + w, y + h, tx + tw, ty + th],
        ];
        let words: Vec<u32> = corners
            .iter()
            .flat_map(|[cx, cy, s, t]| [*cx, *cy, 0.0, 1.0, *s, *t].map(f32::to_bits))
            .collect();
        self.rect_buffer
            .bytes_mut()
            .copy_from_slice(&words_to_bytes(&words));
        let saved = self.patch_vertices;
        self.patch_vertices = 4;
        let result = self.draw(DrawCall {
            mode: if rect.patch {
                Mode::Patches
            } else {
                Mode::TriangleStrip
            },
            first: 0,
            count: 4,
            instances: rect.instances,
            base_instance: 0,
            source: Source::Rect {
                tex: rect.tex.is_some(),
            },
            xfb: false,
            base_vertex: None,
            indirect: false,
        });
        self.patch_vertices = saved;
        result
    }

    pub(super) fn draw(&mut self, call: DrawCall) -> Result<(), SceneError> {
        self.check_draw(&call)?;
        let DrawCall {
            mode, source, xfb, ..
        } = call;
        let key = PipelineKey {
            topology: pipeline::topology(mode),
            primitive_mode: pipeline::primitive_mode(mode),
            patch_control_points: if mode == Mode::Patches {
                self.patch_vertices
            } else {
                0
            },
            // Vulkan restarts indexed draws only, as GL does.
            primitive_restart: self.primitive_restart && call.base_vertex.is_some(),
            xfb,
            source,
            raster: self.raster,
        };
        // Shader objects take the state a pipeline would bake in at record time.
        let shader_state = if self.shaders.is_empty() && self.gpu.dynamic.is_none() {
            None
        } else {
            Some(self.vertex_layout(source)?)
        };
        let pipeline = match shader_state {
            Some(_) if !self.shaders.is_empty() => vk::Pipeline::null(),
            _ => self.pipeline(key)?,
        };
        self.bind_textures()?;
        self.bind_storage()?;
        if call.base_vertex.is_some() {
            self.write_index_buffer()?;
        }
        if call.indirect && self.indirect_buffer.is_none() {
            let usage = vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
            let size = std::mem::size_of::<vk::DrawIndexedIndirectCommand>() as u64;
            self.indirect_buffer = Some(self.gpu.buffer(size, usage).map_err(fail)?);
        }
        let vertex_buffer = if source != Source::VertexData {
            Some(self.rect_buffer.buffer)
        } else {
            self.vertex_buffer.as_ref().map(|b| b.buffer)
        };
        let mut recorded = Ok(());
        let submitted = self
            .submit(|p, cmd| {
                p.record_gl_state(cmd);
                if call.indirect {
                    p.record_indirect_command(cmd, &call);
                }
                if xfb {
                    // SAFETY: `cmd` is recording outside rendering (`submit`'s); the pool is
                    // this device's (made whenever transform feedback is) and the last use of
                    // its query was waited for.
                    unsafe { p.gpu.device.cmd_reset_query_pool(cmd, p.query_pool, 0, 1) };
                }
                p.targets.record_begin(&p.gpu, cmd);
                recorded = p.record_bind_state(cmd, key, shader_state.as_ref(), pipeline);
                p.record_bindings(cmd, vertex_buffer);
                if call.base_vertex.is_some() {
                    p.record_index_buffer(cmd);
                }
                let xfb_fns = p.gpu.xfb.as_ref().filter(|_| xfb);
                if let Some(x) = xfb_fns {
                    p.record_begin_xfb(cmd, x);
                }
                p.record_draw_call(cmd, &call);
                if let Some(x) = xfb_fns {
                    p.record_end_xfb(cmd, x);
                }
                p.targets.record_end(&p.gpu, cmd);
            })
            .map_err(fail);
        submitted?;
        recorded.map_err(fail)?;
        self.readback_fresh = false;
        if xfb {
            self.read_xfb_query()?;
        }
        Ok(())
    }

    /// GL's errors for a draw the program or the scene's state cannot make.
    fn check_draw(&self, call: &DrawCall) -> Result<(), SceneError> {
        let DrawCall {
            mode, first, count, ..
        } = *call;
        if (mode == Mode::Patches) != self.has_tess {
            return Err(fail(if self.has_tess {
                "with tessellation shaders the mode must be GL_PATCHES (GL_INVALID_OPERATION)"
            } else {
                "GL_PATCHES needs a tessellation evaluation shader (GL_INVALID_OPERATION)"
            }));
        }
        if mode.compat_only() && self.has_geometry {
            // GL 4.6 compatibility 11.3.1: no geometry shader input type takes them.
            return Err(fail(
                "GL_QUADS, GL_QUAD_STRIP and GL_POLYGON with a geometry shader \
                 (GL_INVALID_OPERATION)",
            ));
        }
        if let Some(base_vertex) = call.base_vertex {
            return self.check_elements(first, count, base_vertex);
        }
        let rect = call.source != Source::VertexData;
        if !rect && self.vertex_buffer.is_some() && first.saturating_add(count) > self.vertex_count
        {
            return Err(fail(format!(
                "draw reads vertices {first}..{} but [vertex data] has {}",
                first as u64 + count as u64,
                self.vertex_count
            )));
        }
        if call.xfb && !self.has_xfb_output {
            return Err(fail(
                "no shader output is captured (no xfb_offset); GL_INVALID_OPERATION",
            ));
        }
        Ok(())
    }

    /// GL's errors, and what the scene cannot mean, for `count` indices from `first` of
    /// `[indices]` plus `base_vertex`: indices past the array, values the index type cannot
    /// hold, vertices past `[vertex data]` (their fetch is undefined in Vulkan).
    fn check_elements(&self, first: u32, count: u32, base_vertex: i32) -> Result<(), SceneError> {
        let range = first as usize..first as usize + count as usize;
        let Some(indices) = self.indices.get(range.clone()) else {
            return Err(fail(format!(
                "draw reads indices {}..{} but [indices] has {}",
                range.start,
                range.end,
                self.indices.len()
            )));
        };
        let max = self.index_type.max_index();
        for &index in indices {
            if index > max {
                return Err(fail(format!(
                    "index {index} of [indices] does not fit `index type {:?}`",
                    self.index_type
                )));
            }
            if self.primitive_restart && index == max {
                continue;
            }
            let vertex = i64::from(index) + i64::from(base_vertex);
            if self.vertex_buffer.is_some() && !(0..i64::from(self.vertex_count)).contains(&vertex)
            {
                return Err(fail(format!(
                    "index {index} plus base vertex {base_vertex} reads vertex {vertex} but \
                     [vertex data] has {}",
                    self.vertex_count
                )));
            }
        }
        Ok(())
    }

    /// Writes `[indices]` in the current index type into the element array buffer (made
    /// at the first indexed draw, with room for 32-bit indices).
    fn write_index_buffer(&mut self) -> Result<(), SceneError> {
        let ty = self.index_type;
        if self.index_buffer.as_ref().is_some_and(|(t, _)| *t == ty) {
            return Ok(());
        }
        let mut buffer = match self.index_buffer.take() {
            Some((_, b)) => b,
            None => self
                .gpu
                .buffer(
                    self.indices.len() as u64 * 4,
                    vk::BufferUsageFlags::INDEX_BUFFER,
                )
                .map_err(fail)?,
        };
        let size = ty.size() as usize;
        // `check_elements` made sure the drawn values fit; others keep their low bytes, as
        // GL's buffer would hold what the application wrote.
        let bytes: Vec<u8> = self
            .indices
            .iter()
            .flat_map(|i| i.to_le_bytes()[..size].to_vec())
            .collect();
        buffer.bytes_mut()[..bytes.len()].copy_from_slice(&bytes);
        self.index_buffer = Some((ty, buffer));
        Ok(())
    }

    /// Records the writing of `call`'s indirect command into the indirect buffer, and its
    /// dependency to the draw's indirect read, into `cmd` (recording, outside rendering).
    fn record_indirect_command(&self, cmd: vk::CommandBuffer, call: &DrawCall) {
        let Some(buffer) = &self.indirect_buffer else {
            return;
        };
        // SAFETY: `cmd` is recording outside rendering (`submit`'s, before the targets
        // begin); the buffer is this device's, made with TRANSFER_DST for at least the
        // command's 16 or 20 bytes (a multiple of 4), and no earlier submission still reads it.
        unsafe {
            self.gpu
                .device
                .cmd_update_buffer(cmd, buffer.buffer, 0, &call.indirect_command())
        };
        self.gpu.memory_barrier(
            cmd,
            (
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            ),
            (
                vk::PipelineStageFlags::DRAW_INDIRECT,
                vk::AccessFlags::INDIRECT_COMMAND_READ,
            ),
        );
    }

    /// Binds the element array buffer in the type it holds.
    fn record_index_buffer(&self, cmd: vk::CommandBuffer) {
        let Some((ty, buffer)) = &self.index_buffer else {
            return;
        };
        let index_type = match ty {
            IndexType::Uint8 => vk::IndexType::UINT8_EXT,
            IndexType::Uint16 => vk::IndexType::UINT16,
            IndexType::Uint32 => vk::IndexType::UINT32,
        };
        // SAFETY: `cmd` is recording; the buffer is this device's, made with INDEX_BUFFER,
        // and UINT8 is only drawn where VK_EXT/KHR_index_type_uint8 is enabled (the scene's
        // needs).
        unsafe {
            self.gpu
                .device
                .cmd_bind_index_buffer(cmd, buffer.buffer, 0, index_type)
        };
    }

    /// Binds the draw's pipeline, or (shader objects) its shaders and the state a pipeline
    /// would bake in, into `cmd`, recording inside the targets' rendering.
    fn record_bind_state(
        &self,
        cmd: vk::CommandBuffer,
        key: PipelineKey,
        shader_state: Option<&VertexLayout>,
        pipeline: vk::Pipeline,
    ) -> VkResult<()> {
        match shader_state {
            Some((bindings, attributes)) => {
                let dynamic_pipeline = self.shaders.is_empty();
                let desc = PipelineDesc {
                    stages: &self.modules,
                    layout: self.layout,
                    bindings,
                    attributes,
                    topology: key.topology,
                    primitive_mode: key.primitive_mode,
                    patch_control_points: key.patch_control_points,
                    primitive_restart: key.primitive_restart,
                    rasterizer_discard: key.xfb,
                    raster: key.raster,
                };
                if dynamic_pipeline {
                    // `--pipelines dynamic-state`: the pipeline, then the state it lists.
                    // SAFETY: `cmd` is recording inside the targets' rendering (the
                    // caller's contract); `pipeline` is this device's, made for `desc`.
                    unsafe {
                        self.gpu.device.cmd_bind_pipeline(
                            cmd,
                            vk::PipelineBindPoint::GRAPHICS,
                            pipeline,
                        );
                        pipeline::record_dynamic_state(&self.gpu, &self.targets, cmd, &desc);
                    }
                    return Ok(());
                }
                // SAFETY: `cmd` is recording inside the targets' rendering (the caller's
                // contract); `self.shaders` were made on this device.
                unsafe {
                    pipeline::record_shader_state(
                        &self.gpu,
                        &self.targets,
                        cmd,
                        &self.shaders,
                        &desc,
                    )
                }
            }
            None => {
                // SAFETY: `cmd` is recording; `pipeline` is this device's, kept in
                // `self.pipelines` until the player drops.
                unsafe {
                    self.gpu.device.cmd_bind_pipeline(
                        cmd,
                        vk::PipelineBindPoint::GRAPHICS,
                        pipeline,
                    )
                };
                Ok(())
            }
        }
    }

    /// Records the draw itself into `cmd`, recording inside rendering with a pipeline or
    /// shaders bound. GL's modes without a Vulkan topology are drawn as they are: the layer
    /// draws them (a line loop's closing segment too).
    fn record_draw_call(&self, cmd: vk::CommandBuffer, call: &DrawCall) {
        let d = &self.gpu.device;
        let DrawCall {
            first,
            count,
            instances,
            base_instance,
            base_vertex,
            indirect,
            ..
        } = *call;
        let indirect_buffer = self.indirect_buffer.as_ref().map(|b| b.buffer);
        // SAFETY: `cmd` is recording inside rendering with a pipeline or shaders bound (and,
        // for elements, the index buffer); the vertex and index ranges were checked against
        // [vertex data] and [indices]; an indirect draw's one command was written to the
        // indirect buffer before rendering began (a non-zero first instance only where
        // drawIndirectFirstInstance is on: the scene's needs).
        unsafe {
            match (base_vertex, indirect_buffer.filter(|_| indirect)) {
                (None, None) => d.cmd_draw(cmd, count, instances, first, base_instance),
                (Some(base_vertex), None) => {
                    d.cmd_draw_indexed(cmd, count, instances, first, base_vertex, base_instance)
                }
                (None, Some(buffer)) => d.cmd_draw_indirect(
                    cmd,
                    buffer,
                    0,
                    1,
                    std::mem::size_of::<vk::DrawIndirectCommand>() as u32,
                ),
                (Some(_), Some(buffer)) => d.cmd_draw_indexed_indirect(
                    cmd,
                    buffer,
                    0,
                    1,
                    std::mem::size_of::<vk::DrawIndexedIndirectCommand>() as u32,
                ),
            }
        }
    }

    /// Reads the transform feedback query of the `xfb draw arrays` just waited for.
    fn read_xfb_query(&mut self) -> Result<(), SceneError> {
        let mut result = [[0u64; 2]];
        // SAFETY: the pool is this device's and query 0 was written by the submission
        // just waited for; `result` has room for one query's two 64-bit values.
        unsafe {
            self.gpu.device.get_query_pool_results(
                self.query_pool,
                0,
                &mut result,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(check("vkGetQueryPoolResults"))
        .map_err(fail)?;
        self.query = Some(result[0]);
        Ok(())
    }

    /// Records GL's patch default levels and the layer's GL state into `cmd` (recording).
    /// The layer's GL state starts at GL's initial values in every command buffer: all of it
    /// is set before each draw. Without VK_GLSEM_gl_state (plain Vulkan), these GL states
    /// have no Vulkan equivalent and are not applied.
    fn record_gl_state(&self, cmd: vk::CommandBuffer) {
        if let Some(set_levels) = self.gpu.set_levels {
            // SAFETY: `set_levels` is VK_GLSEM_tessellation_default_levels' command of this
            // device and `cmd` is recording; `outer` and `inner` are 4 and 2 floats, as the
            // command reads, alive for the call.
            unsafe { set_levels(cmd, self.outer.as_ptr(), self.inner.as_ptr()) };
        }
        let Some(gl) = self.gpu.gl_state else {
            return;
        };
        let state = &self.gl_state;
        // SAFETY: `gl` holds VK_GLSEM_gl_state's commands of this device (enabled on it) and
        // `cmd` is recording; these take values only.
        unsafe {
            (gl.set_point_size)(cmd, state.point_size);
            (gl.set_program_point_size)(cmd, state.program_point_size.into());
            (gl.set_clip_distance_enable)(cmd, state.clip_distances);
            (gl.set_point_sprite_coord_origin)(cmd, state.point_sprite_lower_left.into());
            (gl.set_line_stipple)(cmd, state.line_stipple_factor, state.line_stipple_pattern);
            (gl.set_line_stipple_enable)(cmd, state.line_stipple.into());
        }
        for (location, set) in state.vertex_attribs.iter().enumerate() {
            if let Some((format, value)) = set {
                // SAFETY: as above; `value` is the four words the command reads, alive for
                // the call (the command copies them).
                unsafe {
                    (gl.set_vertex_attrib)(cmd, location as u32, *format, value.as_ptr().cast())
                };
            }
        }
    }

    /// Binds the descriptor set, `vertex_buffer` and the constant-attribute buffer.
    fn record_bindings(&self, cmd: vk::CommandBuffer, vertex_buffer: Option<vk::Buffer>) {
        let d = &self.gpu.device;
        if self.descriptor_set != vk::DescriptorSet::null() {
            // SAFETY: `cmd` is recording; the set was allocated on this device for
            // `self.layout`, and lives as long as the player.
            unsafe {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.layout,
                    0,
                    &[self.descriptor_set],
                    &[],
                )
            };
        }
        if let Some(vb) = vertex_buffer {
            // SAFETY: `cmd` is recording; `vb` is one of the player's vertex buffers, made
            // on this device and alive as long as the player.
            unsafe { d.cmd_bind_vertex_buffers(cmd, 0, &[vb], &[0]) };
        }
        // SAFETY: as above, for the player's constant-attribute buffer.
        unsafe {
            d.cmd_bind_vertex_buffers(cmd, CONSTANT_BINDING, &[self.constant_buffer.buffer], &[0])
        };
    }

    /// Binds the capture buffers and begins transform feedback and its primitives query.
    fn record_begin_xfb(&self, cmd: vk::CommandBuffer, x: &ash::ext::transform_feedback::Device) {
        for (index, b) in &self.xfb_buffers {
            // SAFETY: `x` is VK_EXT_transform_feedback's table of this device (enabled on it)
            // and `cmd` is recording; the pointers are to one buffer handle and one offset,
            // alive for the call, with a null size array (whole buffers).
            unsafe {
                (x.fp().cmd_bind_transform_feedback_buffers_ext)(
                    cmd,
                    *index,
                    1,
                    &b.buffer,
                    &0,
                    std::ptr::null(),
                )
            };
        }
        // SAFETY: `cmd` is recording inside rendering; the query was reset before it began.
        unsafe {
            self.gpu
                .device
                .cmd_begin_query(cmd, self.query_pool, 0, vk::QueryControlFlags::empty())
        };
        // SAFETY: as for the buffers; no counter buffers (null arrays of count 0).
        unsafe {
            (x.fp().cmd_begin_transform_feedback_ext)(cmd, 0, 0, std::ptr::null(), std::ptr::null())
        };
    }

    /// Ends what [`Self::record_begin_xfb`] began.
    fn record_end_xfb(&self, cmd: vk::CommandBuffer, x: &ash::ext::transform_feedback::Device) {
        // SAFETY: as in `record_begin_xfb`, which began transform feedback on `cmd`.
        unsafe {
            (x.fp().cmd_end_transform_feedback_ext)(cmd, 0, 0, std::ptr::null(), std::ptr::null())
        };
        // SAFETY: the query began on `cmd` in `record_begin_xfb`, inside this rendering.
        unsafe { self.gpu.device.cmd_end_query(cmd, self.query_pool, 0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(
        name: &str,
        location: u32,
        vk_location: u32,
        shape: (Scalar, u32, u32),
    ) -> VertexInput {
        let (scalar, columns, components) = shape;
        let wide = scalar == Scalar::Double && components > 2;
        VertexInput {
            name: name.into(),
            location,
            vk_location,
            scalar,
            components,
            columns,
            elements: 1,
            slots: columns * if wide { 2 } else { 1 },
        }
    }

    /// (Vulkan location, format, offset) of each attribute `[vertex data]` feeds.
    fn fed(inputs: &[VertexInput], header: &str, row: &str) -> Vec<(u32, vk::Format, u32)> {
        let scene = scene::parse(&format!("[vertex data]\n{header}\n{row}\n")).unwrap();
        let columns = scene.vertex_data.unwrap().attributes;
        let feeds = VertexFeeds {
            inputs,
            columns: &columns,
            passthrough_vs: false,
        };
        let data = RectFeed {
            rect: false,
            tex: false,
            target: 0,
        };
        let mut attributes: Vec<_> = (feeds.attributes(&data).unwrap().iter())
            .map(|a| (a.location, a.format, a.offset))
            .collect();
        attributes.sort_by_key(|a| a.0);
        attributes
    }

    #[test]
    fn matrix_columns_feed_one_location_each_in_their_own_format() {
        use vk::Format as F;
        // GL: `dmat2x3 dm` at 0 takes locations 0 and 1, `mat3x2 m[2]` 2 to 7, `vec4 p` 8.
        // Vulkan: each dvec3 column takes two locations, so `m` starts at 4 and `p` at 10.
        let mut m = input("m", 2, 4, (Scalar::Float, 3, 2));
        m.elements = 2;
        let inputs = [
            input("dm", 0, 0, (Scalar::Double, 2, 3)),
            m,
            input("p", 8, 10, (Scalar::Float, 1, 4)),
        ];
        assert_eq!(
            (inputs[0].vk_location_of(1), inputs[1].vk_location_of(7)),
            (Some(2), Some(9))
        );
        assert_eq!(inputs[1].vk_location_of(8), None);
        let attributes = fed(
            &inputs,
            "p/float/vec4 dm/double/dmat2x3/0 dm/double/dmat2x3/1 m[1]/float/mat3x2/2 m/float/mat3x2/0",
            "0 0 0 1  1 2 3  4 5 6  7 8  9 10",
        );
        assert_eq!(
            attributes,
            [
                // glVertexAttribLPointer of 3 doubles per column: R64G64B64, as GL means it
                // (glsem reads it where the device cannot).
                (0, F::R64G64B64_SFLOAT, 16),
                (2, F::R64G64B64_SFLOAT, 40),
                (4, F::R32G32_SFLOAT, 72),
                // Element 1's third column: GL location 2 + 3 + 2.
                (9, F::R32G32_SFLOAT, 64),
                (10, F::R32G32B32A32_SFLOAT, 0),
            ]
        );
    }

    #[test]
    fn unfed_double_matrix_columns_read_gls_current_value_as_doubles() {
        use vk::Format as F;
        let inputs = [
            input("dm", 0, 0, (Scalar::Double, 3, 4)),
            input("p", 3, 6, (Scalar::Float, 1, 4)),
        ];
        let attributes = fed(
            &inputs,
            "p/float/vec4 dm/double/dmat3x4/1",
            "0 0 0 1 1 2 3 4",
        );
        let constant = |location| (location, F::R64G64B64A64_SFLOAT, 0);
        assert_eq!(
            attributes,
            [
                constant(0),
                (2, F::R64G64B64A64_SFLOAT, 16),
                constant(4),
                (6, F::R32G32B32A32_SFLOAT, 0),
            ]
        );
    }
}
