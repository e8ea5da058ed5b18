//! Dynamic state the layer follows at record time (docs/architecture.md, "Dynamic state followed at record time"): the vertex input (GL's
//! current attributes for the Locations it leaves unfed, and the pipelines made again for
//! formats the device lacks), the tessellation domain origin under GL's window origin, and
//! the conventions the layer enabled behind the application. Each goes down as the
//! application called it, then the layer sets what GL needs where the deciding state
//! changed. GL's line rule follows its own state in `lines.rs`.

use std::sync::Arc;

use ash::vk;

use crate::layer::commands::draws::gl_primitives::{self, refetched_vertex};
use crate::layer::data::dynamic_inputs::{
    made_once, read_as, AppVertexInput, FollowedPipeline, ObjectVariant, Variant, VariantKey,
    VertexInputVariants,
};
use crate::layer::data::layer_memory::{fed_attributes, integer_slots};
use crate::layer::data::records::{CommandBufferState, PipelineRecord};
use crate::layer::data::vertex_formats::{chunk_format, vertex_format, vk_format};
use crate::layer::loader::frames::{command_hook, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::pipeline_info::{
    doubles_in_place_apart, misaligned, needs_shader_apart, Misaligned,
};
use crate::layer::rules::layer_step::{Bind, BindRule};
use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use glsem_spirv::interface::InputKind;
use glsem_spirv::semantics::Semantic;
use glsem_spirv::vertex_formats::VertexFormat;

command_hook! {
    /// `vkCmdSetTessellationDomainOriginEXT`: under GL's window origin, Vulkan's default
    /// `UPPER_LEFT` (what a GL port leaves) becomes `LOWER_LEFT`, as the layer chains it where a
    /// pipeline states none (both of GL's window origins wind a TES as Vulkan's lower-left
    /// origin does; docs/semantics.md, `window_origin`); an application's `LOWER_LEFT` stays.
    "vkCmdSetTessellationDomainOriginEXT",
    fn cmd_set_tessellation_domain_origin[cmd_set_tessellation_domain_origin_ext](
        command_buffer,
        origin: vk::TessellationDomainOrigin,
    ),
    read |d| d.conventions.window.lower_left_domain,
    calls_down |next, gl_origin| {
        let origin = match gl_origin {
            true => vk::TessellationDomainOrigin::LOWER_LEFT,
            false => origin,
        };
        // SAFETY: the application's command buffer; a valid origin.
        unsafe { next(command_buffer.handle(), origin) };
    }
}

/// Gives the driver `app`'s vertex input with the layer's binding and an attribute per
/// Location of `extras` (`dynamic_inputs`).
fn send_vertex_input(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    app: &AppVertexInput,
    extras: &[(u32, InputKind)],
) {
    let Some(set) = dev.table.cmd_set_vertex_input_ext else {
        return;
    };
    let binding = dev.attribute_memory.binding;
    let bindings: Vec<_> = app
        .bindings
        .iter()
        .copied()
        .chain((!extras.is_empty()).then_some((binding, 0, vk::VertexInputRate::VERTEX, 1)))
        .map(|(binding, stride, input_rate, divisor)| {
            vk::VertexInputBindingDescription2EXT::default()
                .binding(binding)
                .stride(stride)
                .input_rate(input_rate)
                .divisor(divisor)
        })
        .collect();
    let attributes: Vec<_> = app
        .attributes
        .iter()
        .copied()
        .chain(fed_attributes(binding, extras))
        .map(|(location, binding, format, offset)| {
            vk::VertexInputAttributeDescription2EXT::default()
                .location(location)
                .binding(binding)
                .format(format)
                .offset(offset)
        })
        .collect();
    // SAFETY: a live command buffer (a `Dispatchable`) in the recording state (the
    // application's); the application's state plus a stride-0 binding the application does
    // not use, below `maxVertexInputBindings`, and attributes at Locations it does not
    // feed.
    unsafe {
        set(
            cb.handle(),
            bindings.len() as u32,
            bindings.as_ptr(),
            attributes.len() as u32,
            attributes.as_ptr(),
        )
    };
}

/// Feeds the bound pipeline's unfed Locations from the application's last vertex input:
/// sends it again where the additions changed, and binds the current values for them.
pub(crate) fn follow_vertex_input(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    state: &mut CommandBufferState,
) {
    let s = &mut state.dynamic_inputs;
    let Some(app) = s.app_input.as_ref() else {
        return;
    };
    let extras = s.additions(app, dev.attribute_memory.binding);
    if s.sent.as_ref() != Some(&extras) {
        send_vertex_input(dev, cb, app, &extras);
        s.sent = Some(extras.clone());
    }
    state.attributes.pipeline = (!extras.is_empty()).then(|| integer_slots(&extras));
    state.attributes.bind(dev, cb);
}

/// Dynamic vertex input and GL's conventions at `vkCmdBindPipeline`: the pipeline made
/// again for the vertex input it cannot read, the input followed, the conventions set.
pub(crate) struct FollowedInput;

impl BindRule for FollowedInput {
    /// What the pipeline's record keeps to be made again, and what it follows.
    type Taken = (
        Option<Arc<VertexInputVariants>>,
        Option<Arc<FollowedPipeline>>,
    );
    /// The variant's work after the bind, and whether the conventions are set now.
    type Then = (VariantWork, bool);

    fn take(record: &PipelineRecord) -> Self::Taken {
        (
            record.vertex_input_variants.clone(),
            record.followed.clone(),
        )
    }

    fn bind(
        at: &Bind<'_>,
        (variants, followed): Self::Taken,
        state: &mut CommandBufferState,
    ) -> Self::Then {
        let work = bind_variant_before(at.dev, state, at.pipeline, variants);
        (work, bind_followed(at.dev, at.cb, state, followed))
    }

    fn then(at: &Bind<'_>, (work, conventions): Self::Then) {
        bind_variant_after(at.dev, at.cb, work);
        if conventions {
            set_conventions(at.dev, at.cb, false);
        }
    }
}

/// A graphics pipeline is bound (`followed`: what its record follows): its dynamic vertex
/// input is fed, and whether GL's conventions must be set now is returned (once per
/// command buffer until a pipeline with them static is bound).
fn bind_followed(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    state: &mut CommandBufferState,
    followed: Option<Arc<FollowedPipeline>>,
) -> bool {
    let dynamic_input = followed.as_ref().is_some_and(|f| f.vertex_inputs.is_some());
    let conventions = followed.as_ref().is_some_and(|f| f.conventions);
    let s = &mut state.dynamic_inputs;
    s.bound = followed;
    if dynamic_input {
        follow_vertex_input(dev, cb, state);
    } else {
        // A static vertex input makes the dynamic one undefined.
        s.app_input = None;
        s.sent = None;
    }
    let s = &mut state.dynamic_inputs;
    let set = conventions && !s.conventions_set;
    s.conventions_set = conventions;
    set
}

/// GL's provoking vertex and clip-space depth as dynamic state, where the layer enabled
/// their extensions behind the application. A pipeline whose record follows them gets GL's
/// (where the semantic is on). Shader objects (`objects`) get the state at every bind:
/// Vulkan then requires it for every draw, and the application, not knowing the extensions
/// are on, never sets it; with a semantic turned off by its setting they get Vulkan's
/// default.
pub(crate) fn set_conventions(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    objects: bool,
) {
    let conventions = &dev.conventions;
    let on = |semantic| dev.settings.semantics.contains(semantic);
    let provoking_last = on(Semantic::ProvokingVertex);
    if conventions.provoking_vertex.behind_the_application && (objects || provoking_last) {
        if let Some(set) = dev.table.cmd_set_provoking_vertex_mode_ext {
            let mode = match provoking_last {
                true => vk::ProvokingVertexModeEXT::LAST_VERTEX,
                false => vk::ProvokingVertexModeEXT::FIRST_VERTEX,
            };
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state whose
            // bound pipeline or shader objects have the mode as dynamic state; the layer
            // enabled `provokingVertexLast`.
            unsafe { set(cb.handle(), mode) };
        }
    }
    let negative_one_to_one = on(Semantic::ClipSpaceDepth);
    if conventions.depth_clip.behind_the_application && (objects || negative_one_to_one) {
        if let Some(set) = dev.table.cmd_set_depth_clip_negative_one_to_one_ext {
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state whose
            // bound pipeline or shader objects have the clip-space depth as dynamic state;
            // the layer enabled `depthClipControl`.
            unsafe { set(cb.handle(), negative_one_to_one.into()) };
        }
    }
}

command_hook! {
    /// `vkCmdSetVertexInputEXT`: the application's state, with the layer's binding and the
    /// Locations the bound pipeline's vertex shader reads and the state leaves unfed; where
    /// it names attributes the bound pipeline cannot read where they are given, the pipeline
    /// made again for them bound in its place, and their chunks
    /// (`vertex_input_variants`).
    "vkCmdSetVertexInputEXT",
    fn cmd_set_vertex_input[cmd_set_vertex_input_ext](
        command_buffer,
        binding_count: u32,
        p_bindings: *const vk::VertexInputBindingDescription2EXT<'_>,
        attribute_count: u32,
        p_attributes: *const vk::VertexInputAttributeDescription2EXT<'_>,
    ),
    read |d| d.extensions.gl_state || d.settings.semantics.contains(Semantic::VertexFormats),
    calls_down |next, followed| {
        let sent = followed
            .then(|| {
                shield("vkCmdSetVertexInputEXT", || {
                    let dev = device_data(command_buffer)?;
                    // SAFETY: arrays of the given counts (Vulkan's valid usage).
                    let (bindings, attributes) = unsafe {
                        (
                            slice(p_bindings, binding_count),
                            slice(p_attributes, attribute_count),
                        )
                    };
                    let app = AppVertexInput {
                        bindings: bindings
                            .iter()
                            .map(|b| (b.binding, b.stride, b.input_rate, b.divisor))
                            .collect(),
                        attributes: attributes
                            .iter()
                            .map(|a| (a.location, a.binding, a.format, a.offset))
                            .collect(),
                    };
                    // What a kept pipeline would be made again for (`None` mostly): kept
                    // with the state as given, for the binds that follow.
                    let key = variant_key(&dev, &app);
                    let mut cbs = dev.records.command_buffers.lock();
                    let state = CommandBufferState::of(&mut cbs, command_buffer.handle());
                    let s = &mut state.dynamic_inputs;
                    s.app_raw = key.as_ref().map(|_| app.clone());
                    s.app_key = key.clone();
                    let variants = s.variants.clone().filter(|_| key.is_some());
                    let vertex = state.vertex_object;
                    // Made (first use) without the lock: other command buffers go on.
                    let (variant, object) = match (&variants, &key) {
                        (Some((_, v)), Some(key)) => {
                            drop(cbs);
                            let made = for_input(&dev, v, key, &app);
                            cbs = dev.records.command_buffers.lock();
                            (made, None)
                        }
                        (None, Some(key)) if vertex != vk::ShaderEXT::null() => {
                            drop(cbs);
                            let made = object_for_input(&dev, vertex, key);
                            cbs = dev.records.command_buffers.lock();
                            (None, made)
                        }
                        _ => (None, None),
                    };
                    let state = CommandBufferState::of(&mut cbs, command_buffer.handle());
                    let reads = match vertex != vk::ShaderEXT::null() {
                        true => bind_object_reader(&dev, command_buffer, state, object, &app),
                        false => bind_reader(&dev, command_buffer, state, variant, &app),
                    };
                    if read_by_bound(&dev, command_buffer, state, reads.clone().unwrap_or(app)) {
                        return Some(());
                    }
                    let reads = reads?;
                    drop(cbs);
                    send_vertex_input(&dev, command_buffer, &reads, &[]);
                    Some(())
                })
                .flatten()
            })
            .flatten();
        if sent.is_none() {
            // SAFETY: the next layer's `vkCmdSetVertexInputEXT` with the arguments the
            // application gave this hook, which Vulkan's valid usage for the command (this
            // hook's contract) makes valid for it as they were for the hook.
            unsafe {
                next(
                    command_buffer.handle(),
                    binding_count,
                    p_bindings,
                    attribute_count,
                    p_attributes,
                )
            };
        }
    }
}

/// The pipeline to draw `app` with in the application's place (`None`: the application's
/// own reads it), made on first use. One that cannot be made is said once and leaves the
/// application's.
fn for_input(
    dev: &DeviceData,
    variants: &VertexInputVariants,
    key: &VariantKey,
    app: &AppVertexInput,
) -> Option<Arc<Variant>> {
    made_once(&variants.made, key, || {
        if variants.polygon_mode_variants {
            log::error!(
                "vkCmdSetVertexInputEXT: a pipeline drawing GL's quads under a dynamic polygon \
                 mode is not made again to read the vertex attributes {:?} (Location, format, \
                 byte by byte); they go down as they are",
                key.refetched
            );
            return None;
        }
        let bindings: Vec<vk::VertexInputBindingDescription> = app
            .bindings
            .iter()
            .map(
                |&(binding, stride, input_rate, _)| vk::VertexInputBindingDescription {
                    binding,
                    stride,
                    input_rate,
                },
            )
            .collect();
        let attributes: Vec<vk::VertexInputAttributeDescription> = app
            .attributes
            .iter()
            .map(
                |&(location, binding, format, offset)| vk::VertexInputAttributeDescription {
                    location,
                    binding,
                    format,
                    offset,
                },
            )
            .collect();
        (dev.make_again)(dev, &variants.kept, (&bindings, &attributes), false)
            .inspect(|_| {
                log::info!(
                    "vkCmdSetVertexInputEXT: pipeline made again to read the vertex attributes \
                     {:?} (Location, format, byte by byte)",
                    key.refetched
                )
            })
            .inspect_err(|why| {
                log::error!(
                    "vkCmdSetVertexInputEXT: the pipeline cannot be made again to read the \
                     vertex attributes {:?} (Location, format, byte by byte): {why}; those in \
                     formats the device lacks are read by their first components, the others \
                     go down as they are",
                    key.refetched
                )
            })
            .ok()
    })
}

/// The key of the variant `app` needs; `None` where the pipeline reads it as it is: every
/// format one the device has at an offset it can fetch, doubles aside (the pipeline's
/// vertex shader reads them in place: `pipeline_info::in_place_doubles`).
fn variant_key(dev: &DeviceData, app: &AppVertexInput) -> Option<VariantKey> {
    let stride_of = |binding| {
        app.bindings
            .iter()
            .find(|b| b.0 == binding)
            .map_or(0, |b| b.1)
    };
    let force = dev.settings.debug_force_vertex_formats;
    // The fast path: a device with every format, offsets and strides 8-aligned.
    if dev.missing_vertex_formats.is_empty()
        && !force
        && app
            .attributes
            .iter()
            .all(|a| (a.3 | stride_of(a.1)).is_multiple_of(8))
    {
        return None;
    }
    let needed = app
        .attributes
        .iter()
        .any(|&(location, binding, format, offset)| {
            let attribute = vk::VertexInputAttributeDescription {
                location,
                binding,
                format,
                offset,
            };
            needs_shader_apart(dev, &attribute, stride_of(binding))
        });
    if !needed {
        return None;
    }
    let mut key = VariantKey {
        refetched: Vec::new(),
        kept: Vec::new(),
    };
    for &(location, binding, format, offset) in &app.attributes {
        let stride = stride_of(binding);
        // What the variant's plan refetches (`pipeline_info::refetched_attributes`).
        let refetched = vertex_format(format).map(|(i, f)| {
            let fetch = misaligned(&f, offset, stride);
            let missing = dev.missing_vertex_formats.contains(i) || force;
            (
                missing || fetch != Misaligned::No,
                fetch == Misaligned::Bytes,
            )
        });
        match refetched {
            Some((true, bytes)) => key.refetched.push((location, format, bytes)),
            _ => key.kept.push(location),
        }
    }
    Some(key)
}

/// Binds the pipeline that reads `app` in `state`'s command buffer: `variant` where there
/// is one, else the application's pipeline again where a variant was bound in its place.
/// Returns the vertex input the bound pipeline reads where it is not `app` as given (a
/// variant's chunks, doubles in place).
fn bind_reader(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    state: &mut CommandBufferState,
    variant: Option<Arc<Variant>>,
    app: &AppVertexInput,
) -> Option<AppVertexInput> {
    let s = &mut state.dynamic_inputs;
    let was = std::mem::replace(&mut s.variant_bound, variant.clone());
    let down = match (&variant, &was, &s.variants) {
        (Some(v), _, _) => Some(v.pipeline),
        (None, Some(_), Some((app_pipeline, _))) => Some(*app_pipeline),
        _ => None,
    };
    if let (Some(pipeline), Some(bind)) = (down, dev.table.cmd_bind_pipeline) {
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state; the
        // application's pipeline, bound by it, or one the layer made from its create info.
        unsafe { bind(cb.handle(), vk::PipelineBindPoint::GRAPHICS, pipeline) };
    }
    match variant {
        Some(v) => Some(v.vertex_input(app)),
        None => without_missing_formats(dev, split_doubles(dev, app), app),
    }
}

/// `reads` (`app` where `None`) with each attribute in a format the device lacks read in
/// one it has, where no pipeline reads it otherwise (said where that was decided): its first
/// components, in the same numeric type (the driver would be given a format it cannot fetch,
/// VUID-VkVertexInputAttributeDescription2EXT-format-04805, and SwiftShader crashes on one,
/// as it does on a Location the shader reads unfed). `None`: nothing to change beyond
/// `reads`.
fn without_missing_formats(
    dev: &DeviceData,
    reads: Option<AppVertexInput>,
    app: &AppVertexInput,
) -> Option<AppVertexInput> {
    let missing = dev.missing_vertex_formats;
    let lacks =
        |format| vertex_format(format).is_some_and(|(i, f)| f.bits != 64 && missing.contains(i));
    let given = reads.as_ref().unwrap_or(app);
    if missing.is_empty() || !given.attributes.iter().any(|a| lacks(a.2)) {
        return reads;
    }
    let fewer = |format| {
        let (_, f) = vertex_format(format)?;
        (1..f.components).rev().find_map(|components| {
            let smaller = vk_format(&VertexFormat { components, ..f });
            vertex_format(smaller)
                .filter(|&(i, _)| !missing.contains(i))
                .map(|_| smaller)
        })
    };
    Some(AppVertexInput {
        bindings: given.bindings.clone(),
        attributes: given
            .attributes
            .iter()
            .filter_map(|&(location, binding, format, offset)| match lacks(format) {
                true => Some((location, binding, fewer(format)?, offset)),
                false => Some((location, binding, format, offset)),
            })
            .collect(),
    })
}

/// What [`bind_variant_after`] has to do after a bind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct VariantWork {
    /// The pipeline bound may be made again for the application's last vertex input.
    make: bool,
    /// The driver's vertex input is a variant's chunks: the application's goes down again.
    resend: bool,
}

/// `vkCmdBindPipeline` bound `pipeline` (`variants`: it may be made again for its vertex
/// input), under the lock before its dynamic vertex input is followed: the application's
/// last vertex input is what it reads again where a variant was bound before.
fn bind_variant_before(
    dev: &DeviceData,
    state: &mut CommandBufferState,
    pipeline: vk::Pipeline,
    variants: Option<Arc<VertexInputVariants>>,
) -> VariantWork {
    let s = &mut state.dynamic_inputs;
    let resend = s.variant_bound.take().is_some();
    let make = variants.is_some() && s.app_key.is_some();
    s.variants = variants.map(|v| (pipeline, v));
    if resend && !make {
        if let Some(raw) = &s.app_raw {
            s.app_input = Some(split_doubles(dev, raw).unwrap_or_else(|| raw.clone()));
            s.sent = None;
        }
    }
    VariantWork { make, resend }
}

/// After `vkCmdBindPipeline` ([`bind_variant_before`]'s `work`): a pipeline that may be
/// made again reads the application's last vertex input through the variant it needs (made
/// on first use); where a variant's chunks went down before, the state the new pipeline
/// reads goes down again. Nothing where neither holds (the common bind).
fn bind_variant_after(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>, work: VariantWork) {
    if !work.make && !work.resend {
        return;
    }
    let (variants, raw, key) = {
        let mut cbs = dev.records.command_buffers.lock();
        let s = &CommandBufferState::of(&mut cbs, cb.handle()).dynamic_inputs;
        (s.variants.clone(), s.app_raw.clone(), s.app_key.clone())
    };
    let variant = match (&variants, &raw, &key) {
        (Some((_, v)), Some(raw), Some(key)) if work.make => for_input(dev, v, key, raw),
        _ => None,
    };
    let mut cbs = dev.records.command_buffers.lock();
    let state = CommandBufferState::of(&mut cbs, cb.handle());
    let reads = match (&raw, work.make) {
        (Some(raw), true) => {
            bind_reader(dev, cb, state, variant, raw).unwrap_or_else(|| raw.clone())
        }
        _ => match state.dynamic_inputs.app_input.clone() {
            Some(reads) => reads,
            None => return,
        },
    };
    if !read_by_bound(dev, cb, state, reads.clone()) {
        drop(cbs);
        send_vertex_input(dev, cb, &reads, &[]);
    }
}

/// `reads`, what the bound pipeline reads of the application's vertex input, kept for it;
/// where the layer follows the pipeline's vertex input, given to the driver with the
/// layer's additions (true). False: the caller gives it.
fn read_by_bound(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    state: &mut CommandBufferState,
    reads: AppVertexInput,
) -> bool {
    let s = &mut state.dynamic_inputs;
    s.app_input = Some(reads);
    s.sent = None;
    let follows = s.bound.as_ref().is_some_and(|b| b.vertex_inputs.is_some());
    if follows {
        follow_vertex_input(dev, cb, state);
    }
    follows
}

/// `app`'s state with each 64-bit attribute replaced by its chunks at the Locations the
/// double takes (`None`: none to replace). The vertex shaders of pipelines and shader
/// objects with dynamic vertex input read doubles so (`pipeline_info::in_place_doubles`):
/// GL's `glVertexAttribLPointer` names them by type.
fn split_doubles(dev: &DeviceData, app: &AppVertexInput) -> Option<AppVertexInput> {
    let doubles = |format| {
        vertex_format(format)
            .filter(|&(_, f)| f.bits == 64)
            .map(|(_, f)| f)
    };
    if !doubles_in_place_apart(dev) || !app.attributes.iter().any(|a| doubles(a.2).is_some()) {
        return None;
    }
    let attributes = app
        .attributes
        .iter()
        .flat_map(
            |&(location, binding, format, offset)| match doubles(format) {
                Some(f) => f
                    .chunks()
                    .iter()
                    .zip(location..)
                    .map(|(c, l)| (l, binding, chunk_format(c), offset + c.offset))
                    .collect(),
                None => vec![(location, binding, format, offset)],
            },
        )
        .collect();
    Some(AppVertexInput {
        bindings: app.bindings.clone(),
        attributes,
    })
}

/// Whether the layer gives the driver GL's value of a convention on `dev`: the layer
/// enabled its extension behind the application (`enabled_by_layer`), and the semantic is
/// on.
fn sets_convention(dev: &DeviceData, enabled_by_layer: bool, semantic: Semantic) -> bool {
    dev.extensions.gl_state && enabled_by_layer && dev.settings.semantics.contains(semantic)
}

command_hook! {
    /// `vkCmdSetProvokingVertexModeEXT`: where the layer enabled `VK_EXT_provoking_vertex`
    /// behind the application, the application can only set `FIRST_VERTEX`, Vulkan's default,
    /// which a GL port leaves: the driver gets GL's `LAST_VERTEX`.
    "vkCmdSetProvokingVertexModeEXT",
    fn cmd_set_provoking_vertex_mode[cmd_set_provoking_vertex_mode_ext](
        command_buffer,
        mode: vk::ProvokingVertexModeEXT,
    ),
    read |d| sets_convention(d, d.conventions.provoking_vertex.behind_the_application, Semantic::ProvokingVertex),
    calls_down |next, gl| {
        let mode = if gl { vk::ProvokingVertexModeEXT::LAST_VERTEX } else { mode };
        // SAFETY: the application's command buffer; the layer enabled `provokingVertexLast`
        // where it substitutes it.
        unsafe { next(command_buffer.handle(), mode) };
        // GL's polygons drawn with shader objects: the geometry shader reads a fan's vertices
        // in the order this mode gives them.
        shield("vkCmdSetProvokingVertexModeEXT", || {
            gl_primitives::follow_provoking_mode(
                command_buffer,
                mode == vk::ProvokingVertexModeEXT::LAST_VERTEX,
            )
        });
    }
}

command_hook! {
    /// `vkCmdSetDepthClipNegativeOneToOneEXT`: where the layer enabled
    /// `VK_EXT_depth_clip_control` behind the application, the application can only turn it
    /// off, Vulkan's default: the driver gets GL's clip volume, −w ≤ z ≤ w.
    "vkCmdSetDepthClipNegativeOneToOneEXT",
    fn cmd_set_depth_clip_negative_one_to_one[cmd_set_depth_clip_negative_one_to_one_ext](
        command_buffer,
        negative_one_to_one: vk::Bool32,
    ),
    read |d| sets_convention(d, d.conventions.depth_clip.behind_the_application, Semantic::ClipSpaceDepth),
    calls_down |next, gl| {
        let value = if gl { vk::TRUE } else { negative_one_to_one };
        // SAFETY: the application's command buffer; the layer enabled `depthClipControl`
        // where it substitutes it.
        unsafe { next(command_buffer.handle(), value) };
    }
}

/// The vertex shader object bound to `cb` is `vertex` (`null`: none): GL's current
/// attributes feed the Locations it reads that the application's vertex input leaves unfed
/// (`dynamic_inputs`, as for a pipeline with dynamic vertex input), and where that input
/// names attributes it cannot read as given, the object made again for them is bound in
/// its place (made on first use).
pub(crate) fn bind_vertex(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    vertex: vk::ShaderEXT,
) {
    let inputs = dev
        .records
        .vertex_objects
        .read()
        .get(&vertex)
        .and_then(|r| r.inputs.clone());
    let followed = inputs.map(|inputs| {
        Arc::new(FollowedPipeline {
            vertex_inputs: Some(inputs),
            conventions: false,
        })
    });
    let mut cbs = dev.records.command_buffers.lock();
    let state = CommandBufferState::of(&mut cbs, cb.handle());
    let s = &mut state.dynamic_inputs;
    // Shader objects replace the pipeline and any variant bound for it.
    s.variants = None;
    s.variant_bound = None;
    let follows = followed.is_some();
    s.bound = followed;
    s.sent = None;
    let key = s
        .app_key
        .clone()
        .filter(|_| vertex != vk::ShaderEXT::null());
    let (Some(raw), true) = (
        s.app_raw.clone(),
        key.is_some() || s.object_variant_bound.is_some(),
    ) else {
        // The common bind: the object reads the application's vertex input as given.
        if follows {
            follow_vertex_input(dev, cb, state);
        }
        return;
    };
    // Made (first use) without the lock: other command buffers go on.
    drop(cbs);
    let object = key.and_then(|key| object_for_input(dev, vertex, &key));
    let mut cbs = dev.records.command_buffers.lock();
    let state = CommandBufferState::of(&mut cbs, cb.handle());
    let reads = bind_object_reader(dev, cb, state, object, &raw).unwrap_or(raw);
    if !read_by_bound(dev, cb, state, reads.clone()) {
        drop(cbs);
        send_vertex_input(dev, cb, &reads, &[]);
    }
}

/// The vertex shader object `vertex` made again to read what `key` refetches, where the
/// layer recorded it (`gl_primitives::refetched_vertex`).
fn object_for_input(
    dev: &DeviceData,
    vertex: vk::ShaderEXT,
    key: &VariantKey,
) -> Option<Arc<ObjectVariant>> {
    let record = dev.records.vertex_objects.read().get(&vertex).cloned()?;
    refetched_vertex(dev, &record, key)
}

/// Binds the vertex shader object that reads `app` in `state`'s command buffer: `object`
/// where there is one, else the application's again where one of the layer's was bound in
/// its place. Returns the vertex input it reads where it is not `app` as given (the
/// object's chunks, doubles in place).
fn bind_object_reader(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    state: &mut CommandBufferState,
    object: Option<Arc<ObjectVariant>>,
    app: &AppVertexInput,
) -> Option<AppVertexInput> {
    let was = std::mem::replace(
        &mut state.dynamic_inputs.object_variant_bound,
        object.clone(),
    );
    // The vertex shader with the rest of its linked set: the layer's, or the application's.
    let down: Vec<(vk::ShaderStageFlags, vk::ShaderEXT)> = match (&object, &was) {
        (Some(o), _) => std::iter::once((vk::ShaderStageFlags::VERTEX, o.shader))
            .chain(o.linked.iter().copied())
            .collect(),
        (None, Some(_)) => {
            let vertex = state.vertex_object;
            let record = dev.records.vertex_objects.read().get(&vertex).cloned();
            let linked = record.iter().flat_map(|r| {
                r.linked_set
                    .iter()
                    .map(|o| (o.stage, o.shader))
                    .collect::<Vec<_>>()
            });
            std::iter::once((vk::ShaderStageFlags::VERTEX, vertex))
                .chain(linked)
                .collect()
        }
        _ => Vec::new(),
    };
    if let (false, Some(bind)) = (down.is_empty(), dev.table.cmd_bind_shaders_ext) {
        let (stages, shaders): (Vec<_>, Vec<_>) = down.into_iter().unzip();
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state; the
        // application's shader objects, bound by it, or those the layer made of them.
        unsafe {
            bind(
                cb.handle(),
                stages.len() as u32,
                stages.as_ptr(),
                shaders.as_ptr(),
            )
        };
    }
    let chunked = object.map(|o| read_as(&o.refetch, app));
    let given = chunked.as_ref().unwrap_or(app);
    let reads = split_doubles(dev, given).or(chunked);
    without_missing_formats(dev, reads, app)
}
