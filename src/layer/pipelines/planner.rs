//! `vkCreateGraphicsPipelines`: per create info, builds the key of
//! [`glsem_spirv::semantics::choose`] (`pipeline_info`), runs the steps it returns (`rewrite`),
//! creates temporary modules and calls down once with the patched array
//! (docs/architecture.md).
//!
//! Pipelines that need nothing go down with the application's own pointers. A pipeline
//! with a tessellation evaluation shader and no control shader is never passed down
//! unfixed: drivers crash on it, so when no TCS can be generated it fails with
//! `VK_ERROR_UNKNOWN` and an error message saying why.
//!
//! Graphics pipeline libraries are planned like pipelines, from the stages and state they
//! hold (a pre-rasterization library gets its generated TCS; a fragment-shader library
//! that cannot know its attachments broadcasts gl_FragColor to every Location below
//! `maxColorAttachments`; each side of the XFB split works alone). A pipeline linked from
//! libraries (`VkPipelineLibraryCreateInfoKHR`) rewrites only the stages it holds itself,
//! and gets a record when a library's shaders read the GL-state block, so that binding it
//! pushes the block, or when it links a replacement vertex-input library feeding GL's
//! current attributes (`library_inputs`).

use ash::vk::{self, Handle};
use std::sync::atomic::Ordering;

use crate::layer::data::dynamic_inputs::Variant;
use crate::layer::data::kept_pipeline::KeptPipeline;
use crate::layer::data::layer_memory::integer_slots;
use crate::layer::data::primitives::PolygonModeVariants;
use crate::layer::data::records::{
    BlockBinding, BlockSlot, BoundRecord, LibraryVertexInput, ModuleRecord, PipelineRecord,
    FAST_PATH_PIPELINES,
};
use crate::layer::data::words::Words;
use crate::layer::loader::frames::destroy_hook;
use crate::layer::loader::frames::{hook, maybe_inject_panic, shield};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::{PipelineView, VertexInput};
use crate::layer::objects::interface_limits::{
    code_over_limit, fits_by_bound, over_limit, Author, StageSet,
};
use crate::layer::objects::pipeline_info::{
    followed_pipeline, from_libraries, is_library, layout_of, libraries_have, linked_libraries,
    pipeline_key, stage_codes, stage_of, tes_without_tcs, KeySource, StageCode,
};
use crate::layer::pipelines::library_inputs::{self, LinkFeed};
use crate::layer::pipelines::untouched;
use crate::layer::pipelines::vertex_input_variants;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::{Rewrite, Run, Target};
use crate::layer::rules;
use crate::layer::rules::vertex_formats;
use crate::layer::rules::GlModeError;
use crate::layer::support::error::{LimitExceeded, PlanError};
use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use glsem_spirv::semantics::{choose, start_pixel_steps, Semantic, Stage, StageInfo, Stages, Step};
use glsem_spirv::vertex_formats::RefetchVertexInputs;

type S = vk::ShaderStageFlags;

hook! {
    /// `vkCreateGraphicsPipelines`: GL's semantics for every create info that needs them.
    "vkCreateGraphicsPipelines" in call_with_next,
    fn create_graphics_pipelines(
        device: vk::Device,
        pipeline_cache: vk::PipelineCache,
        create_info_count: u32,
        p_create_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipelines: *mut vk::Pipeline
    ) -> vk::Result =>
    |dev, next| {
        // SAFETY: createInfoCount valid create infos (Vulkan's valid usage).
        let raw = unsafe { slice(p_create_infos, create_info_count) };
        // SAFETY: as above.
        let untouched = shield("vkCreateGraphicsPipelines", || unsafe {
            untouched::raw_untouched(dev, raw)
        });
        let call = Call {
            dev,
            next,
            device,
            pipeline_cache,
            p_allocator,
        };
        if untouched == Some(true) {
            #[cfg(debug_assertions)]
            {
                // SAFETY: as above.
                let infos = unsafe { PipelineView::all(p_create_infos, create_info_count) };
                debug_assert!(
                    decide_all(dev, &infos).is_empty(),
                    "a pipeline taken as untouched from its raw create info needs the layer"
                );
            }
            // SAFETY: the application's arguments, valid by Vulkan's valid usage (this
            // hook's contract).
            return unsafe { call.pass_down(create_info_count, p_create_infos, p_pipelines) };
        }
        // SAFETY: the application's arguments, valid by Vulkan's valid usage (this hook's
        // contract).
        unsafe { call.decide_and_create(create_info_count, p_create_infos, p_pipelines) }
    }
}

/// Keeps what libraries say that the pipelines linked from them read, on
/// `VK_GLSEM_gl_state` devices: a vertex-input library's vertex input (`primitive_restart`,
/// `instance_rate`), and a fragment-output library's multisample state where they may
/// follow GL's line rule (`rules::kept_multisample`).
fn record_library_state(dev: &DeviceData, infos: &[PipelineView<'_>], pipelines: &[vk::Pipeline]) {
    if !dev.extensions.gl_state {
        return;
    }
    let made = infos
        .iter()
        .zip(pipelines)
        .filter(|(ci, &pipeline)| pipeline != vk::Pipeline::null() && is_library(ci));
    for (ci, &pipeline) in made {
        if ci.input_assembly.is_some() {
            let input = LibraryVertexInput {
                restart: primitive_restart(dev, ci),
                instance_rate: instance_rate(dev, ci),
            };
            let records = &dev.records;
            records.keep_pipeline(&records.library_vertex_input, pipeline, input);
        }
        if let Some(ms) = rules::kept_multisample(dev, ci) {
            let records = &dev.records;
            records.keep_pipeline(&records.library_multisample, pipeline, ms);
        }
    }
}

/// What the layer does with one create info, decided once, from the stages' scan
/// summaries, the create info and the key: the fast path and the plan both read it.
#[derive(Default)]
struct Decision {
    /// The steps [`choose`] picks.
    steps: Vec<Step>,
    /// The create info is planned whatever the steps: a TES without a TCS (never passed
    /// down unfixed), GL's primitive mode (its struct never goes down), a stage past the
    /// device's interface limits (it fails).
    must_plan: bool,
    /// The pipeline needs a record of the layer's for bind time: it is linked from
    /// libraries that read the GL-state block, feed GL's current attributes or draw line
    /// loops; it keeps a window height for its links; the layer follows its dynamic line
    /// mode or other dynamic state.
    record: bool,
}

impl Decision {
    fn is_empty(&self) -> bool {
        self.steps.is_empty() && !self.must_plan && !self.record
    }
}

/// Every create info's [`Decision`]; empty (no allocation) when none needs the layer.
fn decide_all(dev: &DeviceData, infos: &[PipelineView<'_>]) -> Vec<Decision> {
    let mut decisions = Vec::new();
    for (i, ci) in infos.iter().enumerate() {
        let decision = decide(dev, ci);
        if decisions.is_empty() && decision.is_empty() {
            continue;
        }
        decisions.resize_with(i, Decision::default);
        decisions.push(decision);
    }
    if !decisions.is_empty() {
        decisions.resize_with(infos.len(), Decision::default);
    }
    decisions
}

/// The decision for `ci`: module summaries and the create info only; no allocation for
/// stages given as `VkShaderModule`s that need nothing, and no key where no rule can have a
/// step (`untouched`).
fn decide(dev: &DeviceData, ci: &PipelineView<'_>) -> Decision {
    let mut must_plan =
        tes_without_tcs(ci) || rules::must_plan(dev, ci) || unreadable_apart(dev, ci).is_some();
    let record = !linked_libraries(ci).is_empty() && libraries_block(dev, ci).is_some()
        || keeps_window_height(dev, ci)
        || library_inputs::may_feed(dev, ci)
        || rules::needs_record(dev, ci)
        || followed_pipeline(dev, ci).is_some()
        || vertex_input_variants::keeps(dev, ci);
    let modules = dev.records.modules.read();
    // Records of code given inline, scanned here (rare).
    let inline: Vec<(Stage, ModuleRecord)> = ci
        .stages
        .iter()
        .filter_map(|s| {
            let code = s.inline_code?;
            Some((
                stage_of(s.info.stage)?,
                ModuleRecord::new(dev.scan(code), code),
            ))
        })
        .collect();
    let set = StageSet::of(ci.stages.iter().filter_map(|s| stage_of(s.info.stage)));
    let mut view = Stages::default();
    for s in &ci.stages {
        let Some(stage) = stage_of(s.info.stage) else {
            continue;
        };
        let module = if s.info.module != vk::ShaderModule::null() {
            modules.get(&s.info.module)
        } else {
            inline.iter().find(|(st, _)| *st == stage).map(|(_, m)| m)
        };
        // A stage past the device's interface limits fails (`plan_steps` says why).
        must_plan |= module.is_some_and(|m| {
            !fits_by_bound(&dev.limits, stage, m)
                && s.entry()
                    .is_some_and(|entry| over_limit(&dev.limits, stage, m, entry, set).is_some())
        });
        view.set(
            stage,
            StageInfo {
                summary: module.map(|m| &m.summary),
                patchable: s.patchable(),
            },
        );
    }
    let steps = match untouched::no_step_applies(dev, ci, &view) {
        true => {
            debug_assert!(
                chosen_steps(dev, ci, &view).is_empty(),
                "a pipeline taken as untouched has steps"
            );
            Vec::new()
        }
        false => chosen_steps(dev, ci, &view),
    };
    drop(modules);
    Decision {
        steps,
        must_plan,
        record,
    }
}

/// The steps [`choose`] picks for `ci`, whose stages `view` holds.
fn chosen_steps(dev: &DeviceData, ci: &PipelineView<'_>, view: &Stages<'_>) -> Vec<Step> {
    let wants_attachments = dev.settings.semantics.contains(Semantic::FragColor)
        && view
            .get(Stage::Fragment)
            .and_then(|f| f.summary)
            .is_some_and(|f| f.frag_color);
    let key = pipeline_key(
        dev,
        KeySource::Pipeline {
            ci,
            last: view.last_pre_rasterization(),
            wants_attachments,
            gl_mode: rules::gl_mode(ci),
            lines: rules::line_key(dev, ci),
        },
    );
    choose(view, &key)
}

/// The pipeline or pre-rasterization library `kept` made again, its vertex shader reading
/// `attributes` (of `bindings`) as a static vertex input's (`rules/vertex_formats.rs`),
/// with how it reads those it refetches; a pre-rasterization library `single_sampled`
/// (its link's fragment-output library is) also takes GL's line rule as static state.
pub(crate) fn make_again(
    dev: &DeviceData,
    kept: &KeptPipeline,
    (bindings, attributes): (
        &[vk::VertexInputBindingDescription],
        &[vk::VertexInputAttributeDescription],
    ),
    single_sampled: bool,
) -> Result<Variant, PlanError> {
    let (layout, render_pass) = kept.handles();
    let live = (layout == vk::PipelineLayout::null()
        || dev.records.layouts.read().contains_key(&layout))
        && (render_pass == vk::RenderPass::null()
            || dev.records.render_passes.read().contains_key(&render_pass));
    if !live {
        return Err(PlanError::KeptHandlesDestroyed);
    }
    let state = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(bindings)
        .vertex_attribute_descriptions(attributes);
    let modules = register_modules(dev, kept.codes())?;
    let mut stages = Vec::new();
    let info = kept.info(&modules.handles, &state, &mut stages);
    // What the view borrows outlives it (its stages are inline, which keeps its lifetime
    // from shrinking to these locals).
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let mut dynamic: Vec<vk::DynamicState> = Vec::new();
    // SAFETY: the kept create info, valid as the application's was, with the layer's
    // modules of its code and a vertex-input state that the dynamic state ignores.
    let mut view = unsafe { PipelineView::new(&info) };
    // The planner reads the attributes as a static state's, with the strides given; a
    // dynamic vertex input stays dynamic (the layer sends the chunks), a library's goes
    // with the vertex-input library the layer makes with it.
    view.vertex_input = Some(VertexInput {
        state: &state,
        bindings,
        attributes,
    });
    if single_sampled {
        view.multisample = Some(&multisample);
    }
    dynamic.extend(
        view.dynamic
            .iter()
            .copied()
            .filter(|&d| d != vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE),
    );
    view.dynamic = &dynamic;
    let made = create_alone(dev, &view);
    drop(modules);
    let (pipeline, rewrite) = made?;
    // Made for the line rule alone, it reads the attributes as they are.
    let refetch = rewrite
        .state
        .iter()
        .find_map(|step| match step {
            Step::RefetchVertexInputs(r) => Some(r.clone()),
            _ => None,
        })
        .unwrap_or(RefetchVertexInputs {
            attributes: Vec::new(),
            kept: Vec::new(),
        });
    Ok(Variant {
        pipeline,
        refetch,
        lines: rules::layer_line_state(&rewrite),
    })
}

/// Creates the pipeline of `ci` alone, planned and rewritten as `vkCreateGraphicsPipelines`
/// would, without records: a pipeline the layer makes after creation
/// (`vertex_input_variants`). Returns it with the rewrite it went down with.
pub(crate) fn create_alone(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> Result<(vk::Pipeline, Rewrite), PlanError> {
    create_with_steps(dev, ci, decide(dev, ci).steps)
}

/// Creates the pipeline of `ci` alone (no derivative), planned with `steps`.
fn create_with_steps(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    steps: Vec<Step>,
) -> Result<(vk::Pipeline, Rewrite), PlanError> {
    let next = dev
        .table
        .create_graphics_pipelines
        .ok_or(PlanError::Internal)?;
    let rewrite = match plan(dev, ci, steps) {
        Plan::Rewrite(rewrite) => rewrite,
        Plan::Keep => Rewrite::default(),
        Plan::Fail(why) => return Err(why),
    };
    let call = Call {
        dev,
        next,
        device: dev.handle,
        pipeline_cache: vk::PipelineCache::null(),
        p_allocator: std::ptr::null(),
    };
    // SAFETY: a valid create info (the view's contract); no allocator.
    let patched = unsafe { call.patch(ci, &rewrite) }?;
    let mut info = *ci.info;
    patched.apply(&mut info);
    // SAFETY: the create info, patched with copies that `patched` keeps alive.
    let made = unsafe { call.create_beside(info) };
    // SAFETY: modules this call made; the driver is done with them.
    unsafe { call.destroy_temporaries(&patched.temporaries) };
    made.map(|pipeline| (pipeline, rewrite))
        .map_err(PlanError::Driver)
}

/// Shader modules of the layer's for kept code, recorded as the application's are (so that
/// the planner reads their code) while they live.
pub(crate) struct RegisteredModules<'a> {
    dev: &'a DeviceData,
    pub handles: Vec<vk::ShaderModule>,
}

/// A module for each of `codes`, recorded with its scan.
pub(crate) fn register_modules<'a>(
    dev: &'a DeviceData,
    codes: &[Words],
) -> Result<RegisteredModules<'a>, PlanError> {
    let create = dev.table.create_shader_module.ok_or(PlanError::Internal)?;
    let mut modules = RegisteredModules {
        dev,
        handles: Vec::with_capacity(codes.len()),
    };
    for code in codes {
        let ci = vk::ShaderModuleCreateInfo {
            code_size: code.len() * 4,
            p_code: code.as_ptr(),
            ..Default::default()
        };
        let mut module = vk::ShaderModule::null();
        // SAFETY: the next layer's command on the layer's device; `ci` points at words that
        // outlive the call; no allocator.
        match unsafe { create(dev.handle, &ci, std::ptr::null(), &mut module) } {
            vk::Result::SUCCESS => {}
            e => return Err(PlanError::Module(e)),
        }
        modules.handles.push(module);
        let record = ModuleRecord::new(dev.scan(code), code);
        dev.records.modules.write().insert(module, record);
    }
    Ok(modules)
}

impl Drop for RegisteredModules<'_> {
    fn drop(&mut self) {
        let mut records = self.dev.records.modules.write();
        for module in &self.handles {
            records.remove(module);
        }
        drop(records);
        if let Some(destroy) = self.dev.table.destroy_shader_module {
            for &module in &self.handles {
                // SAFETY: a module the layer made, which no pipeline creation uses any more.
                unsafe { destroy(self.dev.handle, module, std::ptr::null()) };
            }
        }
    }
}

/// Why the vertex-input library `ci` cannot be read (`vertex_formats::unreadable_apart`),
/// unless its links make it again (`library_inputs::kept_apart`).
fn unreadable_apart(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<PlanError> {
    vertex_formats::unreadable_apart(dev, ci).filter(|_| !library_inputs::kept_apart(dev, ci))
}

/// A pipeline's primitive restart, for the line loops the layer closes: its input-assembly
/// state's, or that of the library it was linked from (`None`: dynamic state).
fn primitive_restart(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<bool> {
    if ci.is_dynamic(vk::DynamicState::PRIMITIVE_RESTART_ENABLE) {
        return None;
    }
    if let Some(ia) = &ci.input_assembly {
        return Some(ia.primitive_restart_enable != 0);
    }
    let inputs = dev.records.library_vertex_input.read();
    linked_libraries(ci)
        .iter()
        .find_map(|l| inputs.get(l).map(|input| input.restart))
        .flatten()
}

/// Whether a pipeline may read instance-rate attributes: a binding of its vertex-input
/// state, or of the library it was linked from, at `VK_VERTEX_INPUT_RATE_INSTANCE`
/// (`None`: dynamic vertex input, decided at the draw; a vertex input the layer cannot see
/// counts as instanced).
fn instance_rate(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<bool> {
    if ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_EXT) {
        return None;
    }
    if let Some(input) = &ci.vertex_input {
        let instanced = input
            .bindings
            .iter()
            .any(|b| b.input_rate == vk::VertexInputRate::INSTANCE);
        return Some(instanced);
    }
    let inputs = dev.records.library_vertex_input.read();
    linked_libraries(ci)
        .iter()
        .find_map(|l| inputs.get(l).map(|input| input.instance_rate))
        .unwrap_or(Some(true))
}

/// A library with a flipped static viewport needs a record: the pipelines linked from it
/// take their `H` from it.
fn keeps_window_height(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    dev.conventions.window.negative_viewport
        && ci.info.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR)
        && static_viewport(ci).is_some()
}

/// The topology and polygon mode `ci` draws with where they are not dynamic state (GL's
/// primitive mode's topology for the one it names), its own or its libraries'.
fn static_drawn(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> (Option<vk::PrimitiveTopology>, Option<vk::PolygonMode>) {
    let topology = rules::named_topology(ci)
        .filter(|_| !ci.is_dynamic(vk::DynamicState::PRIMITIVE_TOPOLOGY))
        .or_else(|| library_inputs::linked_topology(dev, ci));
    let polygon_mode = ci
        .rasterization
        .as_ref()
        .map(|r| r.polygon_mode)
        .filter(|_| !ci.is_dynamic(vk::DynamicState::POLYGON_MODE_EXT))
        .or_else(|| from_libraries(dev, ci, |r| r.static_polygon_mode));
    (topology, polygon_mode)
}

/// The static viewport 0 of a library `ci` links (none when the viewport is dynamic).
fn libraries_viewport(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<vk::Viewport> {
    let pipelines = dev.records.pipelines.read();
    linked_libraries(ci)
        .iter()
        .find_map(|l| pipelines.get(l).and_then(|r| r.viewport))
}

/// Where to push the GL-state block for a pipeline linked from libraries whose shaders read
/// it: at the offset the libraries' layouts reserved it (a pure function of the push
/// constant ranges, which libraries linked together share, with
/// `VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT` or not), with the linked pipeline's
/// own layout when the layer knows it, else with the library's.
fn libraries_block(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<BlockBinding> {
    let pipelines = dev.records.pipelines.read();
    let from_library = linked_libraries(ci)
        .iter()
        .find_map(|l| pipelines.get(l).and_then(|r| r.reads_block))?;
    let own = layout_of(dev, ci).and_then(|l| match l.block {
        BlockSlot::Reserved {
            offset,
            size,
            push_stages,
            ..
        } if offset == from_library.offset => Some(BlockBinding {
            layout: ci.info.layout,
            offset,
            size,
            stages: push_stages,
        }),
        _ => None,
    });
    Some(own.unwrap_or(from_library))
}

/// What happens to one create info.
enum Plan {
    Keep,
    Rewrite(Rewrite),
    /// Not passed down: why (which says the result the application gets for it).
    Fail(PlanError),
}

fn plan(dev: &DeviceData, ci: &PipelineView<'_>, steps: Vec<Step>) -> Plan {
    maybe_inject_panic(&dev.settings, "vkCreateGraphicsPipelines/plan");
    if let Some(why) = rules::refuse(dev, ci) {
        return Plan::Fail(why);
    }
    if let Some(why) = unreadable_apart(dev, ci) {
        return Plan::Fail(why);
    }
    // GL's fragment line route: the start pixels its rectangles leave out are drawn by a
    // second pipeline.
    let start_pixel_steps = start_pixel_steps(&steps);
    let line_varyings = steps
        .iter()
        .any(|s| matches!(s, Step::LinePosition(p) if p.tested));
    let stipple_counts = rules::stipple_counting(dev, &steps);
    let mut rewrite = match plan_steps(dev, ci, steps) {
        Ok(rewrite) => rewrite,
        Err(why) => return Plan::Fail(why),
    };
    rewrite.start_pixel_steps = start_pixel_steps;
    rewrite.lines.varyings = line_varyings;
    rewrite.lines.stipple_counts = stipple_counts;
    if let Some(why) = library_inputs::unreplaceable(dev, ci) {
        return Plan::Fail(why);
    }
    if let Err(why) = rules::after_steps(dev, ci, &mut rewrite) {
        return Plan::Fail(why);
    }
    if rewrite.is_empty() {
        Plan::Keep
    } else {
        Plan::Rewrite(rewrite)
    }
}

/// `steps`, the decision's for `ci`, run; `Err` says why the pipeline cannot be created.
fn plan_steps(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    steps: Vec<Step>,
) -> Result<Rewrite, PlanError> {
    let codes = stage_codes(dev, ci);
    let stages = StageSet::of(codes.iter().map(|c| c.stage));
    for c in &codes {
        let why = c
            .code()
            .and_then(|(module, entry)| over_limit(&dev.limits, c.stage, module, entry, stages));
        if let Some(why) = why {
            return Err(why.into());
        }
    }
    if steps.is_empty() {
        return Ok(Rewrite::default());
    }
    let mut run = Run::new(dev, target(dev, ci), &codes);
    for step in steps {
        rules::plan(&step, &mut run)?;
    }
    let rewrite = run.finish();
    if let Some(why) = layer_past_limits(dev, &codes, &rewrite) {
        // The application's stages fit: the layer's additions must not make them fail, nor
        // may a stage the pipeline cannot do without be dropped.
        if rewrite.gs.is_some() {
            return Err(PlanError::GeneratedStagePastLimits(why));
        }
        if rewrite.tcs.is_some() {
            return Err(why.into());
        }
        log::warning!("{why} after the layer's rewrite; the pipeline keeps its shaders");
        return Ok(Rewrite::default());
    }
    Ok(rewrite)
}

/// Why the code the layer made for `codes` (rewritten stages, a generated TCS or geometry
/// shader) does not
/// fit the device's interface limits, if it does not.
fn layer_past_limits(
    dev: &DeviceData,
    codes: &[StageCode],
    rewrite: &Rewrite,
) -> Option<LimitExceeded> {
    let rewritten = rewrite.stages.iter().filter_map(|(index, words)| {
        let code = codes.iter().find(|c| c.index == *index)?;
        Some((code.stage, &words[..], code.entry.as_deref()?))
    });
    let tcs = rewrite
        .tcs
        .as_ref()
        .map(|words| (Stage::TessControl, &words[..], "main"));
    let gs = rewrite
        .gs
        .as_ref()
        .map(|words| (Stage::Geometry, &words[..], "main"));
    rewritten
        .chain(tcs)
        .chain(gs)
        .find_map(|code| code_over_limit(&dev.limits, code, Author::Layer))
}

/// What the steps read off `ci` besides its stages.
fn target(dev: &DeviceData, ci: &PipelineView<'_>) -> Target {
    Target {
        layout: ci.info.layout,
        layout_record: layout_of(dev, ci),
        patch_control_points: ci.tessellation.as_ref().map(|t| t.patch_control_points),
        dynamic_patch_control_points: ci.is_dynamic(vk::DynamicState::PATCH_CONTROL_POINTS_EXT),
        dynamic_polygon_mode: ci.is_dynamic(vk::DynamicState::POLYGON_MODE_EXT),
    }
}

/// Static viewport 0: `H` of GL's `gl_FragCoord.y = H - y` is its `y`, where a flipped
/// viewport `{y = H, height = -H}` puts GL's bottom edge. `None` with dynamic viewports
/// (`vkCmdSetViewport` sets them) or none at all.
fn static_viewport(ci: &PipelineView<'_>) -> Option<vk::Viewport> {
    // The viewport belongs to the pre-rasterization part: a library without it, or a
    // pipeline linked from libraries, ignores pViewportState.
    let holds_viewport = match ci.library_parts {
        Some(p) => p.contains(vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS),
        None => linked_libraries(ci).is_empty(),
    };
    // `first_viewport` is that of a static viewport state.
    ci.first_viewport.filter(|_| holds_viewport).copied()
}

/// The create infos that go down: failed ones are not passed down; derivatives follow
/// their base. A failed one with VK_PIPELINE_CREATE_EARLY_RETURN_ON_FAILURE_BIT ends the
/// array there, as the driver would. Returns them, each application info's position among
/// them, and the layer's first failure.
fn compact<'a>(
    infos: &[PipelineView<'a>],
    plans: &[Plan],
    patched: &[Option<Patched<'a>>],
    feeds: &[Option<LinkFeed>],
) -> Compacted<'a> {
    let mut position: Vec<Option<usize>> = vec![None; infos.len()];
    let mut down: Vec<vk::GraphicsPipelineCreateInfo<'a>> = Vec::with_capacity(infos.len());
    let mut failure: Option<vk::Result> = None;
    for (i, ci) in infos.iter().enumerate() {
        let mut info = *ci.info;
        let mut why = match &plans[i] {
            Plan::Fail(why) => Some(why.clone()),
            _ => None,
        };
        if why.is_none()
            && info.flags.contains(vk::PipelineCreateFlags::DERIVATIVE)
            && info.base_pipeline_index >= 0
        {
            let base = info.base_pipeline_index as usize;
            match position.get(base).copied().flatten() {
                Some(p) => info.base_pipeline_index = p as i32,
                None if base < i => why = Some(PlanError::BasePipelineFailed),
                None => {}
            }
        }
        if let Some(why) = why {
            log::error!("vkCreateGraphicsPipelines: pCreateInfos[{i}] fails: {why}");
            failure.get_or_insert(why.result());
            if info
                .flags
                .contains(vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE)
            {
                break;
            }
            continue;
        }
        if let Some(p) = &patched[i] {
            p.apply(&mut info);
        }
        if let Some(feed) = &feeds[i] {
            info.p_next = feed.chain();
        }
        position[i] = Some(down.len());
        down.push(info);
    }
    Compacted {
        down,
        position,
        failure,
    }
}

/// What [`compact`] passes down, where each application create info went, and the layer's
/// first failure.
struct Compacted<'a> {
    down: Vec<vk::GraphicsPipelineCreateInfo<'a>>,
    position: Vec<Option<usize>>,
    failure: Option<vk::Result>,
}

struct Call<'a> {
    dev: &'a DeviceData,
    next: vk::PFN_vkCreateGraphicsPipelines,
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    p_allocator: *const vk::AllocationCallbacks<'a>,
}

impl Call<'_> {
    /// The decision for each of `p_create_infos` and the call down it asks for: every
    /// create info the raw shortcut (`untouched::raw_untouched`) did not take. Out of line,
    /// so that the shortcut's path in the hook stays a few cache lines long: it runs cold
    /// after the driver's compile (docs/performance.md, session 8).
    ///
    /// # Safety
    /// The arguments of `vkCreateGraphicsPipelines`, valid by Vulkan's valid usage.
    #[inline(never)]
    unsafe fn decide_and_create(
        &self,
        create_info_count: u32,
        p_create_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        let dev = self.dev;
        // SAFETY: createInfoCount valid create infos (Vulkan's valid usage), alive for the
        // call.
        let infos = unsafe { PipelineView::all(p_create_infos, create_info_count) };
        let decisions = shield("vkCreateGraphicsPipelines", || {
            maybe_inject_panic(&dev.settings, "vkCreateGraphicsPipelines");
            decide_all(dev, &infos)
        });
        let result = match decisions {
            // SAFETY: the application's arguments (this function's contract).
            Some(decisions) if decisions.is_empty() => unsafe {
                self.pass_down(create_info_count, p_create_infos, p_pipelines)
            },
            // SAFETY: pPipelines holds one handle per create info (Vulkan's valid usage).
            Some(decisions) => unsafe { self.create(&infos, decisions, p_pipelines) },
            // The layer failed before deciding: the application's structs go down as they
            // are, except pipelines that would crash the driver.
            None => {
                let plans: Vec<Plan> = infos
                    .iter()
                    .map(|ci| match tes_without_tcs(ci) {
                        true => Plan::Fail(PlanError::Internal),
                        false => Plan::Keep,
                    })
                    .collect();
                // SAFETY: pPipelines holds one handle per create info (Vulkan's valid usage).
                unsafe { self.finish(&infos, plans, p_pipelines) }
            }
        };
        // SAFETY: pPipelines holds one handle per create info, set by the call.
        let pipelines = unsafe { slice(p_pipelines, create_info_count) };
        shield("vkCreateGraphicsPipelines library parts", || {
            library_inputs::record(dev, &infos, pipelines);
            record_library_state(dev, &infos, pipelines);
        });
        result
    }

    /// The application's create infos down as they are, counted as the fast path's.
    ///
    /// # Safety
    /// The arguments of `vkCreateGraphicsPipelines`, valid by Vulkan's valid usage.
    unsafe fn pass_down(
        &self,
        create_info_count: u32,
        p_create_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        FAST_PATH_PIPELINES.fetch_add(create_info_count as usize, Ordering::Relaxed);
        // SAFETY: the next layer's `vkCreateGraphicsPipelines` with the arguments the
        // application gave the hook, which Vulkan's valid usage for the command (this
        // function's contract) makes valid for it as they were for the hook.
        unsafe {
            (self.next)(
                self.device,
                self.pipeline_cache,
                create_info_count,
                p_create_infos,
                self.p_allocator,
                p_pipelines,
            )
        }
    }

    unsafe fn create(
        &self,
        infos: &[PipelineView<'_>],
        decisions: Vec<Decision>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        let plans = infos
            .iter()
            .zip(decisions)
            .map(|(ci, decision)| {
                let steps = decision.steps;
                shield("vkCreateGraphicsPipelines planner", || {
                    plan(self.dev, ci, steps)
                })
                .unwrap_or_else(|| {
                    if tes_without_tcs(ci) {
                        Plan::Fail(PlanError::Internal)
                    } else {
                        Plan::Keep
                    }
                })
            })
            .collect();
        // SAFETY: the create infos are valid (Vulkan's valid usage) and pPipelines holds one
        // handle per create info (this function's contract, passed on).
        unsafe { self.finish(infos, plans, p_pipelines) }
    }

    /// A temporary module for `words`, created with the application's allocator.
    unsafe fn temporary_module(&self, words: &[u32]) -> Result<vk::ShaderModule, vk::Result> {
        let create = self
            .dev
            .table
            .create_shader_module
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        let ci = vk::ShaderModuleCreateInfo {
            code_size: words.len() * 4,
            p_code: words.as_ptr(),
            ..Default::default()
        };
        let mut module = vk::ShaderModule::null();
        // SAFETY: the next layer's command; `ci` points at `words`, which outlive the call;
        // the application's allocator (this function's contract).
        match unsafe { create(self.device, &ci, self.p_allocator, &mut module) } {
            vk::Result::SUCCESS => Ok(module),
            e => Err(e),
        }
    }

    unsafe fn destroy_temporaries(&self, modules: &[vk::ShaderModule]) {
        if let Some(destroy) = self.dev.table.destroy_shader_module {
            for &m in modules {
                // SAFETY: a module this call created that no pipeline uses any more (this
                // function's contract), with the allocator it was created with.
                unsafe { destroy(self.device, m, self.p_allocator) };
            }
        }
    }

    /// Turns a rewrite plan into patched stage arrays with temporary modules. On failure, the
    /// temporaries made so far are destroyed and the error says why, with the driver's
    /// result.
    unsafe fn patch<'a>(
        &self,
        ci: &PipelineView<'a>,
        rewrite: &Rewrite,
    ) -> Result<Patched<'a>, PlanError> {
        let mut patched = Patched::new(ci, rewrite);
        rules::patch(rewrite, &mut patched, ci);
        for step in &rewrite.state {
            rules::chain(step, &mut patched, ci);
        }
        if let Some(topology) = rewrite.input_assembly {
            let list_restart = self.dev.conventions.list_restart;
            if patched.draw_topology(ci, topology, list_restart).is_none() {
                return Err(GlModeError::Hidden.into());
            }
        }
        // SAFETY: the application's allocator (this function's contract).
        if let Err(why) = unsafe { self.patch_modules(ci, rewrite, &mut patched) } {
            // SAFETY: the temporaries this call made; no pipeline uses them yet.
            unsafe { self.destroy_temporaries(&patched.temporaries) };
            return Err(why);
        }
        Ok(patched)
    }

    /// The rewritten stages' code as temporary modules in `patched`'s stages, and the
    /// generated TCS as a stage of its own. On failure, the temporaries made so far are in
    /// `patched.temporaries`.
    ///
    /// # Safety
    /// The application's allocator is valid.
    unsafe fn patch_modules(
        &self,
        ci: &PipelineView<'_>,
        rewrite: &Rewrite,
        patched: &mut Patched<'_>,
    ) -> Result<(), PlanError> {
        for (i, words) in &rewrite.stages {
            // SAFETY: the application's allocator (this function's contract).
            match unsafe { self.temporary_module(words) } {
                Ok(m) => {
                    patched.temporaries.push(m);
                    let stage = &mut patched.stages[*i];
                    if stage.module == vk::ShaderModule::null() {
                        // The stage's code was inline: the module replaces it (a stage has
                        // one or the other). The planner checked that it can be unlinked.
                        let chain = ci.stages[*i].chain.without(
                            vk::StructureType::SHADER_MODULE_CREATE_INFO,
                            &mut patched.chain_copies,
                        );
                        let Some(chain) = chain else {
                            return Err(PlanError::HiddenInlineCode);
                        };
                        stage.p_next = chain;
                    }
                    stage.module = m;
                }
                Err(e) => return Err(PlanError::Module(e)),
            }
        }
        // The generated stages: a geometry shader of GL's primitive mode, a passthrough TCS.
        let generated = [
            (S::GEOMETRY, &rewrite.gs),
            (S::TESSELLATION_CONTROL, &rewrite.tcs),
        ];
        for (stage, words) in generated {
            let Some(words) = words else {
                continue;
            };
            // SAFETY: the application's allocator (this function's contract).
            let module = unsafe { self.temporary_module(words) }.map_err(PlanError::Module)?;
            patched.temporaries.push(module);
            patched.stages.push(vk::PipelineShaderStageCreateInfo {
                stage,
                module,
                p_name: c"main".as_ptr(),
                ..Default::default()
            });
        }
        Ok(())
    }

    /// Calls down once with every create info that is not failed, scatters the results
    /// back (failed ones get `VK_NULL_HANDLE`), and records what was generated.
    unsafe fn finish(
        &self,
        infos: &[PipelineView<'_>],
        mut plans: Vec<Plan>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        // SAFETY: valid create infos (this function's contract).
        let patched = unsafe { self.patch_all(infos, &mut plans) };
        let feeds = self.link_feeds(infos, &mut plans);
        let Compacted {
            down,
            position,
            failure,
        } = compact(infos, &plans, &patched, &feeds);
        // Before the batch, so that a creation feedback the application chained is its own
        // pipelines'.
        let mut start_pixels = self.start_pixel_pipelines(infos, &plans);
        for ((start, ci), &pos) in start_pixels.iter_mut().zip(infos).zip(&position) {
            if let (None, Some(at)) = (&start, pos) {
                // SAFETY: a create info that goes down, its patched parts alive.
                *start = unsafe { self.link_start_pixels(ci, &down[at]) };
            }
        }
        // SAFETY: the create infos, patched with copies that `patched` keeps alive.
        let (result, created) = unsafe { self.create_down(&down) };
        // SAFETY: the same create infos, whose patched parts are still alive.
        let variants = unsafe { self.polygon_mode_variants(&plans, &down, &position, &created) };
        for p in patched.iter().flatten() {
            // SAFETY: modules this call made; the driver is done with them.
            unsafe { self.destroy_temporaries(&p.temporaries) };
        }
        // SAFETY: pPipelines holds one handle per create info (this function's contract).
        let pipelines = unsafe { std::slice::from_raw_parts_mut(p_pipelines, infos.len()) };
        for (out, pos) in pipelines.iter_mut().zip(&position) {
            *out = pos.map_or(vk::Pipeline::null(), |p| created[p]);
        }
        for (start, &pipeline) in start_pixels.iter_mut().zip(pipelines.iter()) {
            if let Some(made) = start.take_if(|_| pipeline == vk::Pipeline::null()) {
                library_inputs::destroy(self.dev, made);
            }
        }

        // A replacement library whose link failed is used by nothing.
        for (feed, &pipeline) in feeds.iter().zip(pipelines.iter()) {
            if let Some(feed) = feed.as_ref().filter(|_| pipeline == vk::Pipeline::null()) {
                library_inputs::destroy(self.dev, feed.library);
                if let Some(library) = feed.pre_rasterization {
                    library_inputs::destroy(self.dev, library);
                }
            }
        }
        shield("vkCreateGraphicsPipelines records", || {
            self.record(infos, &plans, &feeds, (&variants, &start_pixels), pipelines)
        });

        // An error of the driver's wins; otherwise the layer's own failure is the result.
        match failure {
            Some(layer_result) if result.as_raw() >= 0 => layer_result,
            _ => result,
        }
    }

    /// Under a dynamic polygon mode, the pipelines drawing GL's quads in the other modes
    /// (`Rewrite::polygon_mode_gs`): each create info as it went down with its geometry
    /// shader swapped, made alone (no derivative) with the layer's own allocation, for the
    /// bind to swap in (`PolygonModeVariants`). One that fails leaves that mode filled.
    ///
    /// # Safety
    /// `down` holds valid create infos whose patched parts are alive; `created` their
    /// pipelines.
    unsafe fn polygon_mode_variants(
        &self,
        plans: &[Plan],
        down: &[vk::GraphicsPipelineCreateInfo<'_>],
        position: &[Option<usize>],
        created: &[vk::Pipeline],
    ) -> Vec<Option<PolygonModeVariants>> {
        let variants_of = |plan: &Plan, position: Option<usize>| {
            let (Plan::Rewrite(rewrite), Some(at)) = (plan, position) else {
                return None;
            };
            if rewrite.polygon_mode_gs.is_empty() || created[at] == vk::Pipeline::null() {
                return None;
            }
            let mut info = down[at];
            // SAFETY: the patched stages, alive (this function's contract).
            let mut stages = unsafe { slice(info.p_stages, info.stage_count) }.to_vec();
            let gs = stages.iter().position(|s| s.stage == S::GEOMETRY)?;
            let mut variants = PolygonModeVariants::default();
            for (rasterized, words) in &rewrite.polygon_mode_gs {
                // SAFETY: the application's allocator (valid for the call).
                let Ok(module) = (unsafe { self.temporary_module(words) }) else {
                    continue;
                };
                stages[gs].module = module;
                info.p_stages = stages.as_ptr();
                // SAFETY: a create info that went down, with a geometry shader of the same
                // interface.
                let made = unsafe { self.create_beside(info) };
                // SAFETY: the module made above; the driver is done with it.
                unsafe { self.destroy_temporaries(&[module]) };
                let result = made.err().unwrap_or(vk::Result::SUCCESS);
                let kept = made.is_ok_and(|pipeline| variants.set(*rasterized, pipeline));
                if !kept {
                    log::warning!(
                        "GL's primitive mode under a dynamic polygon mode: the pipeline \
                         drawing it as {rasterized:?} failed ({result:?}); that mode draws it filled"
                    );
                }
            }
            (variants != PolygonModeVariants::default()).then_some(variants)
        };
        plans
            .iter()
            .zip(position)
            .map(|(plan, &position)| variants_of(plan, position))
            .collect()
    }

    /// For each create info on GL's fragment line route, its start-pixel pipeline
    /// ([`start_pixel_steps`]), made alone with the layer's allocation; one that fails
    /// leaves its lines without those pixels, and the layer says so.
    fn start_pixel_pipelines(
        &self,
        infos: &[PipelineView<'_>],
        plans: &[Plan],
    ) -> Vec<Option<vk::Pipeline>> {
        infos
            .iter()
            .zip(plans)
            .map(|(ci, plan)| {
                let Plan::Rewrite(rewrite) = plan else {
                    return None;
                };
                let steps = rewrite.start_pixel_steps.clone()?;
                match create_with_steps(self.dev, ci, steps) {
                    Ok((pipeline, _)) => Some(pipeline),
                    Err(why) => {
                        log::warning!(
                            "GL's lines by the fragment route: the pipeline drawing the start \
                             pixels its rectangles leave out was not made ({why}); those \
                             pixels stay undrawn"
                        );
                        None
                    }
                }
            })
            .collect()
    }

    /// The start-pixel pipeline of a pipeline linked from libraries on GL's fragment line
    /// route: `down` (as it goes down) linked from its libraries' start-pixel
    /// variants. `None` where it links none, or a library of the route without one (a
    /// pre-rasterization library the layer made again at the link).
    ///
    /// # Safety
    /// `down` is a valid create info whose patched parts are alive.
    unsafe fn link_start_pixels(
        &self,
        ci: &PipelineView<'_>,
        down: &vk::GraphicsPipelineCreateInfo<'_>,
    ) -> Option<vk::Pipeline> {
        if !libraries_have(self.dev, ci, |r| r.lines.varyings) {
            return None;
        }
        // SAFETY: a valid create info (this function's contract).
        let view = unsafe { PipelineView::new(down) };
        let libraries = view.libraries?;
        let variants: Vec<vk::Pipeline> = {
            let records = self.dev.records.pipelines.read();
            let variant = |l: &vk::Pipeline| records.get(l).and_then(|r| r.lines.start_pixels);
            // Both sides of the route must be there: the pre-rasterization and the
            // fragment-shader library.
            if libraries.iter().filter_map(variant).count() != 2 {
                return None;
            }
            libraries.iter().map(|l| variant(l).unwrap_or(*l)).collect()
        };
        let mut copies = Vec::new();
        let rest = view.chain.without(
            vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
            &mut copies,
        )?;
        let link = vk::PipelineLibraryCreateInfoKHR {
            p_next: rest,
            library_count: variants.len() as u32,
            p_libraries: variants.as_ptr(),
            ..Default::default()
        };
        let info = vk::GraphicsPipelineCreateInfo {
            p_next: (&link as *const vk::PipelineLibraryCreateInfoKHR<'_>).cast(),
            ..*down
        };
        // SAFETY: the create info that goes down, linking libraries made from the same create
        // infos as those it links; `link`, `variants` and `copies` outlive the call.
        unsafe { self.create_beside(info) }
            .inspect_err(|result| {
                log::warning!(
                    "GL's lines by the fragment route: the linked pipeline drawing the start \
                     pixels was not made ({result:?}); those pixels stay undrawn"
                )
            })
            .ok()
    }

    /// Creates `info` alone (no derivative) as a pipeline the layer keeps beside the
    /// application's, without allocation callbacks: it is destroyed with that one, whose
    /// callbacks may differ.
    ///
    /// # Safety
    /// `info` is a valid create info whose pointers outlive the call.
    unsafe fn create_beside(
        &self,
        mut info: vk::GraphicsPipelineCreateInfo<'_>,
    ) -> Result<vk::Pipeline, vk::Result> {
        info.flags &= !vk::PipelineCreateFlags::DERIVATIVE;
        info.base_pipeline_handle = vk::Pipeline::null();
        info.base_pipeline_index = -1;
        let mut pipeline = vk::Pipeline::null();
        // SAFETY: a valid create info (this function's contract); one handle.
        let result = unsafe {
            (self.next)(
                self.device,
                self.pipeline_cache,
                1,
                &info,
                std::ptr::null(),
                &mut pipeline,
            )
        };
        match result {
            vk::Result::SUCCESS => Ok(pipeline),
            e => Err(e),
        }
    }

    /// Each create info's patched stages and state, for the plans that rewrite it; a plan
    /// whose patch fails keeps its shaders, or fails where it needs a generated TCS.
    ///
    /// # Safety
    /// `infos` are valid create infos.
    unsafe fn patch_all<'a>(
        &self,
        infos: &[PipelineView<'a>],
        plans: &mut [Plan],
    ) -> Vec<Option<Patched<'a>>> {
        let mut patched: Vec<Option<Patched<'a>>> = Vec::with_capacity(infos.len());
        for (ci, plan) in infos.iter().zip(plans.iter_mut()) {
            let mut this = None;
            if let Plan::Rewrite(rewrite) = plan {
                // SAFETY: a valid create info (this function's contract).
                match unsafe { self.patch(ci, rewrite) } {
                    Ok(p) => this = Some(p),
                    // Without its generated TCS the pipeline would crash the driver.
                    // Without its generated TCS the pipeline would crash the driver; without
                    // GL's primitive mode it would draw something else.
                    Err(why)
                        if rewrite.tcs.is_some()
                            || rewrite.gs.is_some()
                            || rewrite.input_assembly.is_some() =>
                    {
                        *plan = Plan::Fail(why)
                    }
                    Err(why) => {
                        log::warning!("{why}; the pipeline keeps its original shaders");
                        *plan = Plan::Keep;
                    }
                }
            }
            patched.push(this);
        }
        patched
    }

    /// The replacement libraries of links (`library_inputs::feed`); a link that cannot read
    /// its attributes without them fails.
    fn link_feeds(&self, infos: &[PipelineView<'_>], plans: &mut [Plan]) -> Vec<Option<LinkFeed>> {
        infos
            .iter()
            .zip(plans)
            .map(|(ci, plan)| {
                if matches!(plan, Plan::Fail(..)) {
                    return None;
                }
                let feed = shield("vkCreateGraphicsPipelines link", || {
                    library_inputs::feed(self.dev, self.next, self.pipeline_cache, ci)
                });
                match feed {
                    Some(Ok(feed)) => feed,
                    Some(Err(why)) => {
                        *plan = Plan::Fail(why);
                        None
                    }
                    None => None,
                }
            })
            .collect()
    }

    /// Creates the compacted create infos `down` in the driver: its result and one handle
    /// per info.
    ///
    /// # Safety
    /// `down` holds valid create infos whose patched parts are alive.
    unsafe fn create_down(
        &self,
        down: &[vk::GraphicsPipelineCreateInfo<'_>],
    ) -> (vk::Result, Vec<vk::Pipeline>) {
        let mut created = vec![vk::Pipeline::null(); down.len()];
        let result = if down.is_empty() {
            vk::Result::SUCCESS
        } else {
            // SAFETY: the application's create infos, patched with copies that `patched`
            // keeps alive until the call returns; `created` holds one handle per info.
            unsafe {
                (self.next)(
                    self.device,
                    self.pipeline_cache,
                    down.len() as u32,
                    down.as_ptr(),
                    self.p_allocator,
                    created.as_mut_ptr(),
                )
            }
        };
        (result, created)
    }

    fn record(
        &self,
        infos: &[PipelineView<'_>],
        plans: &[Plan],
        feeds: &[Option<LinkFeed>],
        (variants, start_pixels): (&[Option<PolygonModeVariants>], &[Option<vk::Pipeline>]),
        pipelines: &[vk::Pipeline],
    ) {
        maybe_inject_panic(&self.dev.settings, "vkCreateGraphicsPipelines/record");
        let made = infos
            .iter()
            .zip(plans)
            .zip(feeds)
            .zip(variants)
            .zip(start_pixels)
            .zip(pipelines);
        for (((((ci, plan), feed), &polygon_variants), &start_pixels), &pipeline) in made {
            if pipeline == vk::Pipeline::null() {
                continue;
            }
            let rewrite = match plan {
                Plan::Rewrite(rewrite) => Some(rewrite),
                _ => None,
            };
            let restart = primitive_restart(self.dev, ci);
            let (bound_primitives, primitives) =
                rules::record_primitives(self.dev, ci, rewrite, restart, polygon_variants);
            let instances =
                rules::record_instances(self.dev, ci, rewrite, instance_rate(self.dev, ci));
            let (own, attributes) = match plan {
                Plan::Rewrite(rewrite) => {
                    for note in &rewrite.notes {
                        log::info!("pipeline {:#x}: {note}", pipeline.as_raw());
                    }
                    (
                        Some(rewrite.reads_block),
                        rewrite
                            .layer_attributes
                            .as_ref()
                            .map(|(_, inputs)| integer_slots(inputs)),
                    )
                }
                _ => (None, None),
            };
            // A linked pipeline runs its libraries' shaders: it reads the block where they do.
            let inherited = libraries_block(self.dev, ci);
            // The viewport is the pre-rasterization library's: a library keeps its H for
            // the pipelines linked from it.
            let viewport = static_viewport(ci).or_else(|| libraries_viewport(self.dev, ci));
            let (bound_lines, lines) = rules::record_lines(
                self.dev,
                ci,
                rewrite,
                feed.as_ref().map(|f| f.lines).unwrap_or_default(),
                start_pixels,
            );
            let followed = followed_pipeline(self.dev, ci).map(std::sync::Arc::new);
            let input_variants = vertex_input_variants::keeps(self.dev, ci)
                .then(|| vertex_input_variants::keep(self.dev, ci, polygon_variants.is_some()))
                .flatten();
            if own.is_none()
                && inherited.is_none()
                && feed.is_none()
                && lines.mode.is_none()
                && followed.is_none()
                && !keeps_window_height(self.dev, ci)
                && !bound_primitives.draws_gl_mode()
                && primitives.polygon_variants.is_none()
                && input_variants.is_none()
            {
                continue;
            }
            let reads_block = own.flatten().or(inherited);
            let mut record = PipelineRecord::new(reads_block, viewport);
            record.bound = BoundRecord {
                lines: bound_lines,
                primitives: bound_primitives,
                instances,
            };
            record.lines = lines;
            record.layer_attributes = attributes.or(feed.as_ref().and_then(|f| f.integer));
            record.vertex_input_library = feed.as_ref().map(|f| f.library);
            record.pre_rasterization_library = feed.as_ref().and_then(|f| f.pre_rasterization);
            record.vertex_input_variants = input_variants;
            record.primitives = primitives;
            (record.static_topology, record.static_polygon_mode) = static_drawn(self.dev, ci);
            record.followed = followed;
            let records = &self.dev.records;
            records.count_bind_work(&record, 1);
            if let Some(previous) = records.keep_pipeline(&records.pipelines, pipeline, record) {
                records.count_bind_work(&previous, -1);
            }
        }
    }
}

destroy_hook!(
    /// `vkDestroyPipeline`.
    "vkDestroyPipeline", destroy_pipeline(pipeline: vk::Pipeline), |dev| {
        if !dev.records.pipelines_kept.load(Ordering::Acquire) {
            return;
        }
        dev.records.library_parts.write().remove(&pipeline);
        dev.records.library_vertex_input.write().remove(&pipeline);
        dev.records.library_multisample.write().remove(&pipeline);
        let removed = dev.records.pipelines.write().remove(&pipeline);
        if let Some(removed) = removed {
            dev.records.count_bind_work(&removed, -1);
            let made = [removed.vertex_input_library, removed.pre_rasterization_library];
            for library in made.into_iter().flatten() {
                library_inputs::destroy(dev, library);
            }
            let polygon_variants = removed.primitives.polygon_variants.iter().flat_map(|v| v.made());
            for made in polygon_variants.chain(removed.lines.start_pixels) {
                library_inputs::destroy(dev, made);
            }
            if let Some(variants) = &removed.vertex_input_variants {
                vertex_input_variants::destroy(dev, variants);
            }
        }
    }
);
