//! `vkCreateGraphicsPipelines`: decides per create info which rewrites apply, runs them
//! (through the rewrite cache), creates temporary modules and calls down once with the
//! patched array (DESIGN.md §3, §4, §5).
//!
//! Pipelines that need nothing go down with the application's own pointers. A pipeline
//! with a tessellation evaluation shader and no control shader is never passed down
//! unfixed: drivers crash on it, so when no TCS can be generated it fails with
//! `VK_ERROR_UNKNOWN` and an error message saying why.

use ash::vk::{self, Handle};
use std::ffi::{c_void, CStr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::cache::{CacheKey, ModuleKey, Outcome};
use super::hooks::{code_words, dump_module};
use super::records::FAST_PATH_PIPELINES;
use super::records::{content_hash, LevelsBinding, LevelsSlot, ModuleRecord, PipelineRecord};
use super::settings::slice;
use super::{call_with_next, log, maybe_inject_panic, shield, DeviceData};
use crate::spirv::fragcolor::{broadcast_frag_color, AttachmentKind, FragColorKey};
use crate::spirv::passthrough_tcs::{build_passthrough_tcs, TcsKey};
use crate::spirv::scan::scan;
use crate::spirv::xfb_split::{split_matching_inputs, split_xfb_outputs, SplitInterface};

type S = vk::ShaderStageFlags;

pub unsafe extern "system" fn create_graphics_pipelines(
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    create_info_count: u32,
    p_create_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    call_with_next(
        "vkCreateGraphicsPipelines",
        device,
        |t| t.create_graphics_pipelines,
        |dev, next| {
            let infos = slice(p_create_infos, create_info_count);
            let needs_work = shield("vkCreateGraphicsPipelines", || {
                maybe_inject_panic(&dev.settings, "vkCreateGraphicsPipelines");
                infos.iter().any(|ci| needs_work(dev, ci))
            });
            let call = Call {
                dev,
                next,
                device,
                pipeline_cache,
                p_allocator,
            };
            match needs_work {
                Some(false) => {
                    FAST_PATH_PIPELINES.fetch_add(infos.len(), Ordering::Relaxed);
                    next(
                        device,
                        pipeline_cache,
                        create_info_count,
                        p_create_infos,
                        p_allocator,
                        p_pipelines,
                    )
                }
                Some(true) => call.create(infos, p_pipelines),
                // The layer failed before deciding: the application's structs go down as they
                // are, except pipelines that would crash the driver.
                None => {
                    let plans: Vec<Plan> = infos
                        .iter()
                        .map(|ci| match tes_without_tcs(ci) {
                            true => Plan::fail("internal error in the layer while planning"),
                            false => Plan::Keep,
                        })
                        .collect();
                    call.finish(infos, plans, p_pipelines)
                }
            }
        },
    )
}

/// A stage's code: a recorded `VkShaderModule` or code inline in the stage's `pNext`.
fn stage_module(
    dev: &DeviceData,
    stage: &vk::PipelineShaderStageCreateInfo<'_>,
) -> Option<Arc<ModuleRecord>> {
    if stage.module != vk::ShaderModule::null() {
        return dev.records.modules.read().get(&stage.module).cloned();
    }
    // SAFETY: the stage's pNext chain is valid (Vulkan's valid usage).
    unsafe { inline_code(stage).map(|(ci, _)| Arc::new(ModuleRecord::inline(code_words(ci)))) }
}

/// A `VkShaderModuleCreateInfo` in the stage's `pNext`, and whether the layer can unlink it
/// (every struct in front of it is one [`copy_size`] knows).
unsafe fn inline_code<'a>(
    stage: &vk::PipelineShaderStageCreateInfo<'_>,
) -> Option<(&'a vk::ShaderModuleCreateInfo<'a>, bool)> {
    let mut p = stage.p_next as *const vk::BaseInStructure<'_>;
    let mut copyable = true;
    while let Some(s) = p.as_ref() {
        if s.s_type == vk::StructureType::SHADER_MODULE_CREATE_INFO {
            return Some((&*(p as *const vk::ShaderModuleCreateInfo<'_>), copyable));
        }
        copyable &= copy_size(s.s_type).is_some();
        p = s.p_next;
    }
    None
}

/// Sizes of the structs that may precede inline code in a stage's `pNext`
/// (VUID-VkPipelineShaderStageCreateInfo-pNext-pNext), so that they can be copied.
fn copy_size(s_type: vk::StructureType) -> Option<usize> {
    use std::mem::size_of;
    use vk::StructureType as T;
    Some(match s_type {
        T::DEBUG_UTILS_OBJECT_NAME_INFO_EXT => size_of::<vk::DebugUtilsObjectNameInfoEXT<'_>>(),
        T::PIPELINE_ROBUSTNESS_CREATE_INFO_EXT => {
            size_of::<vk::PipelineRobustnessCreateInfoEXT<'_>>()
        }
        T::PIPELINE_SHADER_STAGE_MODULE_IDENTIFIER_CREATE_INFO_EXT => {
            size_of::<vk::PipelineShaderStageModuleIdentifierCreateInfoEXT<'_>>()
        }
        T::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO => {
            size_of::<vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>>()
        }
        T::SHADER_MODULE_VALIDATION_CACHE_CREATE_INFO_EXT => {
            size_of::<vk::ShaderModuleValidationCacheCreateInfoEXT<'_>>()
        }
        _ => return None,
    })
}

/// `p_next` without its `VkShaderModuleCreateInfo`. The application's structs are const, so
/// the ones in front of it are copied into `copies` (which must outlive the returned chain)
/// and relinked; the ones behind it stay the application's. `None` when a struct in front
/// is one the layer cannot copy.
unsafe fn chain_without_code(
    p_next: *const c_void,
    copies: &mut Vec<Box<[u64]>>,
) -> Option<*const c_void> {
    let mut front = Vec::new();
    let mut p = p_next as *const vk::BaseInStructure<'_>;
    let rest = loop {
        let s = p.as_ref()?;
        if s.s_type == vk::StructureType::SHADER_MODULE_CREATE_INFO {
            break s.p_next;
        }
        front.push((p, copy_size(s.s_type)?));
        p = s.p_next;
    };
    let mut next = rest as *const c_void;
    for &(src, size) in front.iter().rev() {
        // u64 storage keeps the copy aligned for any Vulkan struct.
        let mut copy = vec![0u64; size.div_ceil(8)].into_boxed_slice();
        std::ptr::copy_nonoverlapping(src.cast::<u8>(), copy.as_mut_ptr().cast::<u8>(), size);
        (*copy.as_mut_ptr().cast::<vk::BaseOutStructure<'_>>()).p_next = next as *mut _;
        next = copy.as_ptr().cast();
        copies.push(copy);
    }
    Some(next)
}

unsafe fn find_in_chain<'a, T>(p_next: *const c_void, s_type: vk::StructureType) -> Option<&'a T> {
    let mut p = p_next as *const vk::BaseInStructure<'_>;
    while let Some(s) = p.as_ref() {
        if s.s_type == s_type {
            return Some(&*(p as *const T));
        }
        p = s.p_next;
    }
    None
}

fn stages<'a>(
    ci: &'a vk::GraphicsPipelineCreateInfo<'_>,
) -> &'a [vk::PipelineShaderStageCreateInfo<'a>] {
    // SAFETY: Vulkan's valid usage for pStages/stageCount.
    unsafe { slice(ci.p_stages, ci.stage_count) }
}

fn tes_without_tcs(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    let all = stages(ci).iter().fold(S::empty(), |acc, s| acc | s.stage);
    all.contains(S::TESSELLATION_EVALUATION) && !all.contains(S::TESSELLATION_CONTROL)
}

/// A graphics pipeline library, or a pipeline linked from libraries: only the gl_FragColor
/// broadcast applies there (README).
fn is_library(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    ci.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR)
        // SAFETY: valid pNext chain.
        || unsafe {
            find_in_chain::<vk::BaseInStructure<'_>>(
                ci.p_next,
                vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
            )
            .is_some()
                || find_in_chain::<vk::BaseInStructure<'_>>(
                    ci.p_next,
                    vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
                )
                .is_some()
        }
}

/// The fast-path decision: only module summaries and the stage set, no allocation for
/// stages given as `VkShaderModule`s.
fn needs_work(dev: &DeviceData, ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    if tes_without_tcs(ci) {
        return true;
    }
    let s = &dev.settings;
    // Without transformFeedback nothing is captured; the split would change nothing. Libraries
    // are not split: the stages whose interfaces must match may sit in other libraries.
    let xfb = s.xfb_split && dev.features.transform_feedback && !is_library(ci);
    let modules = dev.records.modules.read();
    stages(ci).iter().any(|stage| {
        let wanted = |summary: &crate::spirv::scan::Summary| {
            (s.fragcolor_broadcast && summary.frag_color && stage.stage == S::FRAGMENT)
                || (xfb && summary.xfb_candidate && stage.stage != S::FRAGMENT)
        };
        if stage.module != vk::ShaderModule::null() {
            modules
                .get(&stage.module)
                .is_some_and(|m| wanted(&m.summary))
        } else {
            // SAFETY: valid pNext chain.
            unsafe { inline_code(stage) }
                .is_some_and(|(code, _)| wanted(&scan(unsafe { code_words(code) })))
        }
    })
}

/// Whether the colour attachments of `ci` are known where its fragment shader is made: a
/// render pass gives them to every part of a library; with dynamic rendering only a part
/// that holds the fragment output interface has them.
fn library_attachments_known(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    use vk::GraphicsPipelineLibraryFlagsEXT as Part;
    if ci.render_pass != vk::RenderPass::null() {
        return true;
    }
    // SAFETY: valid pNext chain.
    let parts = unsafe {
        find_in_chain::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>(
            ci.p_next,
            vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
        )
    };
    // Without that struct a library holds every part of the state.
    parts.is_none_or(|p| p.flags.contains(Part::FRAGMENT_OUTPUT_INTERFACE))
}

/// One stage of a pipeline being planned.
struct Stage {
    flag: S,
    module: Option<Arc<ModuleRecord>>,
    entry: Option<String>,
    /// The layer can substitute this stage's module (false for code inline behind a
    /// `pNext` struct the layer cannot copy).
    patchable: bool,
}

impl Stage {
    fn code(&self) -> Option<(&Arc<ModuleRecord>, &str)> {
        Some((self.module.as_ref()?, self.entry.as_deref()?))
    }
}

/// What happens to one create info.
enum Plan {
    Keep,
    Rewrite(Rewrite),
    /// Not passed down: why, and the result the application gets for it.
    Fail(String, vk::Result),
}

impl Plan {
    /// A failure of the layer's own making.
    fn fail(why: impl Into<String>) -> Plan {
        Plan::Fail(why.into(), vk::Result::ERROR_UNKNOWN)
    }
}

#[derive(Default)]
struct Rewrite {
    /// New code per index into `pStages`.
    stages: Vec<(usize, Arc<[u32]>)>,
    /// A generated TCS and where its levels live in the layout.
    tcs: Option<(Arc<[u32]>, u32, S)>,
    /// What the layer fixed, for the info log.
    notes: Vec<String>,
}

fn attachment_kind(format: vk::Format) -> AttachmentKind {
    use vk::Format as F;
    match format {
        F::R8_SINT
        | F::R8G8_SINT
        | F::R8G8B8_SINT
        | F::B8G8R8_SINT
        | F::R8G8B8A8_SINT
        | F::B8G8R8A8_SINT
        | F::A8B8G8R8_SINT_PACK32
        | F::A2R10G10B10_SINT_PACK32
        | F::A2B10G10R10_SINT_PACK32
        | F::R16_SINT
        | F::R16G16_SINT
        | F::R16G16B16_SINT
        | F::R16G16B16A16_SINT
        | F::R32_SINT
        | F::R32G32_SINT
        | F::R32G32B32_SINT
        | F::R32G32B32A32_SINT
        | F::R64_SINT
        | F::R64G64_SINT
        | F::R64G64B64_SINT
        | F::R64G64B64A64_SINT => AttachmentKind::Sint,
        F::R8_UINT
        | F::R8G8_UINT
        | F::R8G8B8_UINT
        | F::B8G8R8_UINT
        | F::R8G8B8A8_UINT
        | F::B8G8R8A8_UINT
        | F::A8B8G8R8_UINT_PACK32
        | F::A2R10G10B10_UINT_PACK32
        | F::A2B10G10R10_UINT_PACK32
        | F::R16_UINT
        | F::R16G16_UINT
        | F::R16G16B16_UINT
        | F::R16G16B16A16_UINT
        | F::R32_UINT
        | F::R32G32_UINT
        | F::R32G32B32_UINT
        | F::R32G32B32A32_UINT
        | F::R64_UINT
        | F::R64G64_UINT
        | F::R64G64B64_UINT
        | F::R64G64B64A64_UINT => AttachmentKind::Uint,
        _ => AttachmentKind::Float,
    }
}

/// The colour attachments the fragment shader draws into; `None` when gl_FragColor needs no
/// broadcast (no attachment but 0).
fn frag_color_key(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<FragColorKey> {
    let formats: Vec<Option<vk::Format>> = if ci.render_pass != vk::RenderPass::null() {
        let pass = dev
            .records
            .render_passes
            .read()
            .get(&ci.render_pass)
            .cloned()?;
        pass.subpass_colors.get(ci.subpass as usize)?.clone()
    } else {
        // SAFETY: valid pNext chain.
        let rendering = unsafe {
            find_in_chain::<vk::PipelineRenderingCreateInfo<'_>>(
                ci.p_next,
                vk::StructureType::PIPELINE_RENDERING_CREATE_INFO,
            )
        }?;
        // SAFETY: Vulkan's valid usage for the format array.
        unsafe {
            slice(
                rendering.p_color_attachment_formats,
                rendering.color_attachment_count,
            )
        }
        .iter()
        .map(|&f| (f != vk::Format::UNDEFINED).then_some(f))
        .collect()
    };
    let max = dev.limits.max_fragment_output_attachments;
    let attachments: Vec<(u32, AttachmentKind)> = formats
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i as u32, attachment_kind((*f)?))))
        .filter(|(location, _)| *location < max)
        .collect();
    attachments
        .iter()
        .any(|(location, _)| *location != 0)
        .then_some(FragColorKey { attachments })
}

fn stage_name(flag: S) -> &'static str {
    match flag {
        S::VERTEX => "vertex shader",
        S::TESSELLATION_EVALUATION => "tessellation evaluation shader",
        S::GEOMETRY => "geometry shader",
        _ => "shader",
    }
}

/// Runs one pass through the cache, dumping what it emits.
fn cached(
    dev: &DeviceData,
    key: CacheKey,
    source_hash: u64,
    label: &str,
    pass: impl FnOnce() -> Outcome,
) -> Outcome {
    let (outcome, ran) = dev.records.cache.get_or_run(key, pass);
    if ran {
        match &outcome {
            Outcome::Module(words) | Outcome::Split(words, _) => {
                dump_module(&dev.settings, source_hash, label, words)
            }
            Outcome::Failed(why) => {
                log::warning!("{label} pass failed: {why}")
            }
            Outcome::Unchanged => {}
        }
    }
    outcome
}

fn plan(dev: &DeviceData, ci: &vk::GraphicsPipelineCreateInfo<'_>) -> Plan {
    maybe_inject_panic(&dev.settings, "vkCreateGraphicsPipelines/plan");
    let library = is_library(ci);
    if library && tes_without_tcs(ci) {
        // It would crash the driver.
        return Plan::fail(
            "a graphics pipeline library with a tessellation evaluation shader and no \
             control shader (the layer does not generate TCSs for libraries)",
        );
    }
    let settings = &dev.settings;
    let list: Vec<Stage> = stages(ci)
        .iter()
        .map(|s| Stage {
            flag: s.stage,
            module: stage_module(dev, s),
            // SAFETY: pName is a nul-terminated string (valid usage).
            entry: unsafe { s.p_name.as_ref() }
                .and_then(|_| unsafe { CStr::from_ptr(s.p_name) }.to_str().ok())
                .map(str::to_owned),
            // SAFETY: valid pNext chain.
            patchable: s.module != vk::ShaderModule::null()
                || unsafe { inline_code(s) }.is_some_and(|(_, copyable)| copyable),
        })
        .collect();
    let find = |flag: S| list.iter().position(|s| s.flag == flag);
    let mut rewrite = Rewrite::default();

    if tes_without_tcs(ci) {
        match generate_tcs(
            dev,
            ci,
            &list,
            find(S::TESSELLATION_EVALUATION),
            find(S::VERTEX),
        ) {
            Ok(GeneratedTcs {
                words,
                offset,
                stages,
                patch_size: patch,
            }) => {
                rewrite.tcs = Some((words, offset, stages));
                rewrite.notes.push(format!(
                    "generated passthrough tessellation control shader ({patch} control points, \
                     default levels at push-constant offset {offset})"
                ));
            }
            Err(why) => return Plan::fail(why),
        }
    }

    // XFB: the last pre-rasterization stage, and the fragment inputs that must match it.
    let fragment = find(S::FRAGMENT);
    let mut split_inputs: Option<SplitInterface> = None;
    let last_pre_raster = find(S::GEOMETRY)
        .or(find(S::TESSELLATION_EVALUATION))
        .or(find(S::VERTEX));
    let xfb = settings.xfb_split && dev.features.transform_feedback && !library;
    if let Some(i) = last_pre_raster.filter(|_| xfb) {
        let fs_patchable = fragment.is_none_or(|f| list[f].patchable);
        if let Some((module, entry)) = list[i].code().filter(|_| list[i].patchable && fs_patchable)
        {
            if module.summary.xfb_candidate {
                let key = CacheKey::XfbOutputs {
                    module: ModuleKey::of(module),
                    entry: entry.into(),
                };
                let outcome =
                    cached(
                        dev,
                        key,
                        module.hash(),
                        "xfb_split",
                        || match split_xfb_outputs(&module.words, entry) {
                            Ok(Some((words, split))) => Outcome::Split(words.into(), split),
                            Ok(None) => Outcome::Unchanged,
                            Err(e) => Outcome::Failed(e.to_string().into()),
                        },
                    );
                if let Outcome::Split(words, split) = outcome {
                    rewrite.notes.push(format!(
                        "XFB struct outputs of the {} split member by member (Locations {:?})",
                        stage_name(list[i].flag),
                        split.locations
                    ));
                    rewrite.stages.push((i, words));
                    split_inputs = fragment.map(|_| split);
                }
            }
        }
    }

    if let Some(f) = fragment {
        if let Some((module, entry)) = list[f].code().filter(|_| list[f].patchable) {
            let mut words: Arc<[u32]> = module.words.clone();
            let mut key = ModuleKey::of(module);
            let source_hash = module.hash();
            let broadcast = settings.fragcolor_broadcast && module.summary.frag_color;
            let attachments_known = !library || library_attachments_known(ci);
            if broadcast && !attachments_known && module.first_library_use() {
                log::warning!(
                    "a graphics pipeline library's fragment shader writes gl_FragColor, but the \
                     library has neither a render pass nor the fragment output interface: the \
                     layer cannot tell the attachments, so only colour attachment 0 gets it \
                     (GL writes every draw buffer)"
                );
            }
            let frag_key = (broadcast && attachments_known)
                .then(|| frag_color_key(dev, ci))
                .flatten();
            if let Some(frag_key) = frag_key {
                let n = frag_key.attachments.len();
                let cache_key = CacheKey::FragColor {
                    module: key.clone(),
                    entry: entry.into(),
                    key: frag_key.clone(),
                };
                let outcome =
                    cached(
                        dev,
                        cache_key,
                        source_hash,
                        "fragcolor",
                        || match broadcast_frag_color(&words, entry, &frag_key) {
                            Ok(Some(w)) => Outcome::Module(w.into()),
                            Ok(None) => Outcome::Unchanged,
                            Err(e) => Outcome::Failed(e.to_string().into()),
                        },
                    );
                if let Outcome::Module(w) = outcome {
                    rewrite
                        .notes
                        .push(format!("gl_FragColor broadcast to {n} attachments"));
                    key = ModuleKey::new(content_hash(&w), w.clone());
                    words = w;
                }
            }
            if let Some(split) = split_inputs {
                let cache_key = CacheKey::SplitInputs {
                    module: key,
                    entry: entry.into(),
                    split: split.clone(),
                };
                let outcome = cached(dev, cache_key, source_hash, "xfb_split_inputs", || {
                    match split_matching_inputs(&words, entry, &split) {
                        Ok(Some(w)) => Outcome::Module(w.into()),
                        Ok(None) => Outcome::Unchanged,
                        Err(e) => Outcome::Failed(e.to_string().into()),
                    }
                });
                match outcome {
                    Outcome::Module(w) => {
                        rewrite
                            .notes
                            .push("fragment shader inputs split to match".into());
                        words = w;
                    }
                    Outcome::Unchanged => {}
                    // The split outputs would not match the fragment inputs: undo the split.
                    _ => {
                        rewrite.stages.clear();
                        rewrite.notes.retain(|n| !n.starts_with("XFB"));
                    }
                }
            }
            if !Arc::ptr_eq(&words, &module.words) {
                rewrite.stages.push((f, words));
            }
        }
    }

    if rewrite.stages.is_empty() && rewrite.tcs.is_none() {
        Plan::Keep
    } else {
        Plan::Rewrite(rewrite)
    }
}

/// A generated TCS and where its levels go.
struct GeneratedTcs {
    words: Arc<[u32]>,
    offset: u32,
    stages: S,
    patch_size: u32,
}

/// Builds the passthrough TCS for a TES-without-TCS pipeline, or says why it cannot.
fn generate_tcs(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    list: &[Stage],
    tes: Option<usize>,
    vertex: Option<usize>,
) -> Result<GeneratedTcs, String> {
    let no = |why: &str| {
        Err(format!("a tessellation evaluation shader without a control shader needs a generated TCS, but {why}"))
    };
    if !dev.settings.passthrough_tcs {
        return no("the passthrough_tcs setting is off");
    }
    if !dev.features.tessellation_shader {
        return no("the device did not enable tessellationShader");
    }
    // SAFETY: valid pointers per Vulkan's valid usage.
    let dynamic = unsafe { ci.p_dynamic_state.as_ref() }
        .map(|d| unsafe { slice(d.p_dynamic_states, d.dynamic_state_count) })
        .unwrap_or(&[]);
    if dynamic.contains(&vk::DynamicState::PATCH_CONTROL_POINTS_EXT) {
        return no("VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT is not supported with it (the TCS's output patch size is fixed at creation)");
    }
    // SAFETY: as above.
    let Some(tess) = (unsafe { ci.p_tessellation_state.as_ref() }) else {
        return no("pTessellationState is NULL");
    };
    let layout = dev.records.layouts.read().get(&ci.layout).cloned();
    let (offset, stages) = match layout.as_ref().map(|l| &l.levels) {
        Some(LevelsSlot::Reserved { offset, stages }) => (*offset, *stages),
        Some(LevelsSlot::Unavailable(why)) => {
            return no(&format!(
                "its pipeline layout has no push-constant room for the levels: {why}"
            ))
        }
        None => return no("its pipeline layout is unknown to the layer"),
    };
    let Some((tes_module, tes_entry)) = tes.and_then(|t| list[t].code()) else {
        return no("the layer has no code for the tessellation evaluation shader");
    };
    let vs = vertex.and_then(|v| list[v].code());
    let key = TcsKey {
        output_vertices: tess.patch_control_points,
        max_patch_size: dev.limits.max_tessellation_patch_size,
        push_constant_offset: offset,
    };
    let cache_key = CacheKey::Tcs {
        tes: ModuleKey::of(tes_module),
        tes_entry: tes_entry.into(),
        vertex: vs.map(|(m, e)| (ModuleKey::of(m), e.to_owned())),
        key: key.clone(),
    };
    let outcome = cached(
        dev,
        cache_key,
        tes_module.hash(),
        "tcs",
        || match build_passthrough_tcs(
            &tes_module.words,
            tes_entry,
            vs.map(|(m, e)| (&m.words[..], e)),
            &key,
        ) {
            Ok(words) => Outcome::Module(words.into()),
            Err(e) => Outcome::Failed(e.to_string().into()),
        },
    );
    match outcome {
        Outcome::Module(words) => Ok(GeneratedTcs {
            words,
            offset,
            stages,
            patch_size: tess.patch_control_points,
        }),
        Outcome::Failed(why) => no(&format!("generating it failed: {why}")),
        _ => no("generating it produced nothing"),
    }
}

/// The arrays handed to the driver for one rewritten create info, and the temporary
/// modules to destroy afterwards.
struct Patched {
    stages: Vec<vk::PipelineShaderStageCreateInfo<'static>>,
    temporaries: Vec<vk::ShaderModule>,
    /// Copied `pNext` structs of stages whose inline code was unlinked.
    chain_copies: Vec<Box<[u64]>>,
}

struct Call<'a> {
    dev: &'a DeviceData,
    next: vk::PFN_vkCreateGraphicsPipelines,
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    p_allocator: *const vk::AllocationCallbacks<'a>,
}

impl Call<'_> {
    unsafe fn create(
        &self,
        infos: &[vk::GraphicsPipelineCreateInfo<'_>],
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        let plans = infos
            .iter()
            .map(|ci| {
                shield("vkCreateGraphicsPipelines planner", || plan(self.dev, ci)).unwrap_or_else(
                    || {
                        if tes_without_tcs(ci) {
                            Plan::fail("internal error in the layer while planning")
                        } else {
                            Plan::Keep
                        }
                    },
                )
            })
            .collect();
        self.finish(infos, plans, p_pipelines)
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
        match create(self.device, &ci, self.p_allocator, &mut module) {
            vk::Result::SUCCESS => Ok(module),
            e => Err(e),
        }
    }

    unsafe fn destroy_temporaries(&self, modules: &[vk::ShaderModule]) {
        if let Some(destroy) = self.dev.table.destroy_shader_module {
            for &m in modules {
                destroy(self.device, m, self.p_allocator);
            }
        }
    }

    /// Turns a rewrite plan into patched stage arrays with temporary modules. On failure, the
    /// temporaries made so far are destroyed and the error says why, with the driver's
    /// result.
    unsafe fn patch(
        &self,
        ci: &vk::GraphicsPipelineCreateInfo<'_>,
        rewrite: &Rewrite,
    ) -> Result<Patched, (String, vk::Result)> {
        let mut patched = Patched {
            stages: stages(ci).iter().map(|s| std::mem::transmute(*s)).collect(),
            temporaries: Vec::new(),
            chain_copies: Vec::new(),
        };
        let fail = |patched: &Patched, e: vk::Result| {
            self.destroy_temporaries(&patched.temporaries);
            Err((
                format!("the driver failed to create a rewritten shader module: {e}"),
                e,
            ))
        };
        for (i, words) in &rewrite.stages {
            match self.temporary_module(words) {
                Ok(m) => {
                    patched.temporaries.push(m);
                    let stage = &mut patched.stages[*i];
                    if stage.module == vk::ShaderModule::null() {
                        // The stage's code was inline: the module replaces it (a stage has
                        // one or the other). The planner checked that it can be unlinked.
                        let Some(chain) =
                            chain_without_code(stage.p_next, &mut patched.chain_copies)
                        else {
                            self.destroy_temporaries(&patched.temporaries);
                            return Err((
                                "inline code behind an unknown pNext struct".into(),
                                vk::Result::ERROR_UNKNOWN,
                            ));
                        };
                        stage.p_next = chain;
                    }
                    stage.module = m;
                }
                Err(e) => return fail(&patched, e),
            }
        }
        if let Some((words, _, _)) = &rewrite.tcs {
            match self.temporary_module(words) {
                Ok(m) => {
                    patched.temporaries.push(m);
                    patched.stages.push(vk::PipelineShaderStageCreateInfo {
                        stage: S::TESSELLATION_CONTROL,
                        module: m,
                        p_name: c"main".as_ptr(),
                        ..Default::default()
                    });
                }
                Err(e) => return fail(&patched, e),
            }
        }
        Ok(patched)
    }

    /// Calls down once with every create info that is not failed, scatters the results
    /// back (failed ones get `VK_NULL_HANDLE`), and records what was generated.
    unsafe fn finish(
        &self,
        infos: &[vk::GraphicsPipelineCreateInfo<'_>],
        mut plans: Vec<Plan>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        let mut patched: Vec<Option<Patched>> = Vec::with_capacity(infos.len());
        for (ci, plan) in infos.iter().zip(plans.iter_mut()) {
            let mut this = None;
            if let Plan::Rewrite(rewrite) = plan {
                match self.patch(ci, rewrite) {
                    Ok(p) => this = Some(p),
                    // Without its generated TCS the pipeline would crash the driver.
                    Err((why, result)) if rewrite.tcs.is_some() => *plan = Plan::Fail(why, result),
                    Err((why, _)) => {
                        log::warning!("{why}; the pipeline keeps its original shaders");
                        *plan = Plan::Keep;
                    }
                }
            }
            patched.push(this);
        }

        // Compact: failed create infos are not passed down; derivatives follow their base.
        // A failed one with VK_PIPELINE_CREATE_EARLY_RETURN_ON_FAILURE_BIT ends the array
        // there, as the driver would.
        let mut position: Vec<Option<usize>> = vec![None; infos.len()];
        let mut down: Vec<vk::GraphicsPipelineCreateInfo<'_>> = Vec::with_capacity(infos.len());
        let mut failure: Option<vk::Result> = None;
        for (i, ci) in infos.iter().enumerate() {
            let mut info = *ci;
            let mut why = match &plans[i] {
                Plan::Fail(why, result) => Some((why.clone(), *result)),
                _ => None,
            };
            if why.is_none()
                && info.flags.contains(vk::PipelineCreateFlags::DERIVATIVE)
                && info.base_pipeline_index >= 0
            {
                let base = info.base_pipeline_index as usize;
                match position.get(base).copied().flatten() {
                    Some(p) => info.base_pipeline_index = p as i32,
                    None if base < i => {
                        why = Some(("its base pipeline failed".into(), vk::Result::ERROR_UNKNOWN))
                    }
                    None => {}
                }
            }
            if let Some((why, result)) = why {
                log::error!("vkCreateGraphicsPipelines: pCreateInfos[{i}] fails: {why}");
                failure.get_or_insert(result);
                if info
                    .flags
                    .contains(vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE)
                {
                    break;
                }
                continue;
            }
            if let Some(p) = &patched[i] {
                info.stage_count = p.stages.len() as u32;
                info.p_stages = p.stages.as_ptr();
            }
            position[i] = Some(down.len());
            down.push(info);
        }

        let mut created = vec![vk::Pipeline::null(); down.len()];
        let result = if down.is_empty() {
            vk::Result::SUCCESS
        } else {
            (self.next)(
                self.device,
                self.pipeline_cache,
                down.len() as u32,
                down.as_ptr(),
                self.p_allocator,
                created.as_mut_ptr(),
            )
        };
        for p in patched.iter().flatten() {
            self.destroy_temporaries(&p.temporaries);
        }
        for (i, pos) in position.iter().enumerate() {
            *p_pipelines.add(i) = pos.map_or(vk::Pipeline::null(), |p| created[p]);
        }

        shield("vkCreateGraphicsPipelines records", || {
            self.record(infos, &plans, p_pipelines)
        });

        // An error of the driver's wins; otherwise the layer's own failure is the result.
        match failure {
            Some(layer_result) if result.as_raw() >= 0 => layer_result,
            _ => result,
        }
    }

    unsafe fn record(
        &self,
        infos: &[vk::GraphicsPipelineCreateInfo<'_>],
        plans: &[Plan],
        p_pipelines: *mut vk::Pipeline,
    ) {
        maybe_inject_panic(&self.dev.settings, "vkCreateGraphicsPipelines/record");
        for (i, (ci, plan)) in infos.iter().zip(plans).enumerate() {
            let pipeline = *p_pipelines.add(i);
            let Plan::Rewrite(rewrite) = plan else {
                continue;
            };
            if pipeline == vk::Pipeline::null() {
                continue;
            }
            for note in &rewrite.notes {
                log::info!("pipeline {:#x}: {note}", pipeline.as_raw());
            }
            let generated_tcs = rewrite
                .tcs
                .as_ref()
                .map(|&(_, offset, stages)| LevelsBinding {
                    layout: ci.layout,
                    offset,
                    stages,
                });
            self.dev
                .records
                .pipelines
                .write()
                .insert(pipeline, PipelineRecord::new(generated_tcs));
            if generated_tcs.is_some() {
                self.dev
                    .records
                    .generated_tcs_pipelines
                    .fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_is_unlinked_from_a_copy_of_the_chain() {
        let robustness = vk::PipelineRobustnessCreateInfoEXT::default();
        let code = vk::ShaderModuleCreateInfo {
            p_next: (&robustness as *const vk::PipelineRobustnessCreateInfoEXT<'_>).cast(),
            ..Default::default()
        };
        let name = vk::DebugUtilsObjectNameInfoEXT {
            p_next: (&code as *const vk::ShaderModuleCreateInfo<'_>).cast(),
            object_handle: 42,
            ..Default::default()
        };
        let subgroup = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo {
            p_next: (&name as *const vk::DebugUtilsObjectNameInfoEXT<'_>)
                .cast::<c_void>()
                .cast_mut(),
            required_subgroup_size: 8,
            ..Default::default()
        };
        let head = (&subgroup as *const vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>)
            .cast::<c_void>();
        let mut copies = Vec::new();
        let chain = unsafe { chain_without_code(head, &mut copies) }.unwrap();
        let mut types = Vec::new();
        let mut p = chain as *const vk::BaseInStructure<'_>;
        while let Some(s) = unsafe { p.as_ref() } {
            types.push(s.s_type);
            p = s.p_next;
        }
        use vk::StructureType as T;
        assert_eq!(
            types,
            [
                T::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
                T::DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                T::PIPELINE_ROBUSTNESS_CREATE_INFO_EXT,
            ]
        );
        // The copies keep their contents; the application's structs are untouched.
        let copied =
            unsafe { &*chain.cast::<vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>>() };
        assert_eq!(copied.required_subgroup_size, 8);
        assert_ne!(chain, head);
        assert_eq!(
            subgroup.p_next.cast_const(),
            (&name as *const vk::DebugUtilsObjectNameInfoEXT<'_>).cast()
        );
        assert_eq!(
            name.p_next,
            (&code as *const vk::ShaderModuleCreateInfo<'_>).cast()
        );

        // Behind a struct the layer does not know, the code cannot be unlinked.
        let unknown = vk::BaseInStructure {
            s_type: T::APPLICATION_INFO,
            p_next: (&code as *const vk::ShaderModuleCreateInfo<'_>).cast(),
            ..Default::default()
        };
        let head = (&unknown as *const vk::BaseInStructure<'_>).cast::<c_void>();
        assert!(unsafe { chain_without_code(head, &mut copies) }.is_none());
    }

    #[test]
    fn integer_formats_get_integer_outputs() {
        assert_eq!(
            attachment_kind(vk::Format::R32G32B32A32_SINT),
            AttachmentKind::Sint
        );
        assert_eq!(attachment_kind(vk::Format::R8_UINT), AttachmentKind::Uint);
        assert_eq!(
            attachment_kind(vk::Format::A2B10G10R10_UINT_PACK32),
            AttachmentKind::Uint
        );
        assert_eq!(
            attachment_kind(vk::Format::R8G8B8A8_UNORM),
            AttachmentKind::Float
        );
        assert_eq!(
            attachment_kind(vk::Format::R8G8B8A8_SRGB),
            AttachmentKind::Float
        );
        assert_eq!(
            attachment_kind(vk::Format::R16G16B16A16_SFLOAT),
            AttachmentKind::Float
        );
        assert_eq!(
            attachment_kind(vk::Format::R8G8B8A8_SNORM),
            AttachmentKind::Float
        );
    }
}
