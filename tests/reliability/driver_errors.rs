//! Driver errors reach the application as they would without the layer: the same
//! `VkResult`, the same `VK_NULL_HANDLE` entries of a pipeline array, whether its entries are
//! rewritten or passed through; the layer's temporary modules and records go away with the
//! failed pipelines; `VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT` and pipeline
//! caches behave as without the layer. The application's allocation callbacks are used for
//! the layer's temporary modules, and balance.
//!
//! The driver error is a valid-usage one: a create info flagged
//! FAIL_ON_PIPELINE_COMPILE_REQUIRED whose shaders the driver has never compiled gets
//! `VK_PIPELINE_COMPILE_REQUIRED` (checked without the layer first). Drivers keep pipeline
//! binaries in memory and on disk (NVIDIA does), so the flagged entries use "unseen" shaders:
//! a constant changed to a value drawn for this run. An allocator that returns NULL gets
//! `VK_ERROR_OUT_OF_HOST_MEMORY`.

use crate::support::*;
use ash::vk::{self, Handle};
use glsem_spirv::module::instructions;
use spirv::Op;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

type S = vk::ShaderStageFlags;
type F = vk::PipelineCreateFlags;

const FAIL_ON_COMPILE: F = F::FAIL_ON_PIPELINE_COMPILE_REQUIRED;
const EARLY_RETURN: F = F::EARLY_RETURN_ON_FAILURE;
/// Attachments of every render pass here: gl_FragColor pipelines are rewritten.
const ATTACHMENTS: usize = 3;

/// `words` with the 32-bit float constant `value` given another mantissa: a seed from the
/// clock and the process, plus a counter, never 0 (the mantissa of 0.25 and 1.0). Distinct
/// within a run, and a repeat of an earlier run's value is a 2^-23 chance: no driver cache,
/// in memory or on disk, is expected to hold a pipeline built from it, so the driver must
/// compile one.
fn unseen(words: &[u32], value: f32) -> Vec<u32> {
    static SEED: OnceLock<u32> = OnceLock::new();
    static DRAWN: AtomicU32 = AtomicU32::new(0);
    let seed = *SEED.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        nanos ^ std::process::id().rotate_left(11)
    });
    let draw = DRAWN.fetch_add(1, Ordering::Relaxed);
    let mantissa = seed.wrapping_add(draw) % 0x7f_ffff + 1;
    let literals: Vec<usize> = instructions(words)
        .map(|inst| inst.expect("a valid module"))
        .filter(|inst| {
            inst.op() == Some(Op::Constant) && inst.words.get(3) == Some(&value.to_bits())
        })
        .map(|inst| inst.offset_in(words) + 3)
        .collect();
    assert_eq!(
        literals.len(),
        1,
        "one float constant {value} in the module"
    );
    let mut out = words.to_vec();
    out[literals[0]] = (value.to_bits() & !0x7f_ffff) | mantissa;
    out
}

/// A device with `pipelineCreationCacheControl`, the shaders, render passes and two layouts:
/// one with room for the generated TCS's levels, one without.
///
/// Runs without the layer use no validation either: unrewritten, the gl_FragColor shader
/// leaves attachments 1 and 2 unwritten, which validation rightly warns about.
struct Fixture {
    // Fields drop in order: the device before its instance, also when a test fails.
    device: Device,
    instance: Instance,
    plain_vs: vk::ShaderModule,
    plain_fs: vk::ShaderModule,
    frag_color: vk::ShaderModule,
    patch_vs: vk::ShaderModule,
    patch_tes: vk::ShaderModule,
    patch_fs: vk::ShaderModule,
    /// `ATTACHMENTS` colour attachments, for the gl_FragColor pipelines.
    pass: vk::RenderPass,
    /// One colour attachment, for the shaders that write only Location 0.
    pass1: vk::RenderPass,
    layout: vk::PipelineLayout,
    full_layout: vk::PipelineLayout,
    /// SPIR-V of the fragment shaders, for the unseen variants.
    frag_color_words: Vec<u32>,
    plain_fs_words: Vec<u32>,
    patch_fs_words: Vec<u32>,
    /// Unseen modules made so far, destroyed with the fixture.
    unseen_modules: RefCell<Vec<vk::ShaderModule>>,
}

impl Fixture {
    fn new(layers: Layers) -> Fixture {
        let instance = Instance::new(layers);
        let mut v13 =
            vk::PhysicalDeviceVulkan13Features::default().pipeline_creation_cache_control(true);
        let device = instance.device_with(&[], &mut [&mut v13]);
        let limits = unsafe {
            instance
                .instance
                .get_physical_device_properties(instance.physical)
        }
        .limits;
        // Every byte the device allows: no room for the generated TCS's levels.
        let full = [vk::PushConstantRange {
            stage_flags: S::VERTEX | S::FRAGMENT,
            offset: 0,
            size: limits.max_push_constants_size,
        }];
        let frag_color_words = glsl_for_gl("layer/fragcolor.frag");
        let plain_fs_words = glsl("layer/plain.frag");
        let patch_fs_words = glsl("layer/patch.frag");
        Fixture {
            plain_vs: device.module(&glsl("layer/plain.vert")),
            plain_fs: device.module(&plain_fs_words),
            frag_color: device.module(&frag_color_words),
            patch_vs: device.module(&glsl("layer/patch.vert")),
            // A TES module needs the feature (VUID-VkShaderModuleCreateInfo-pCode-08740).
            patch_tes: match device_has(Feature::TessellationShader) {
                true => device.module(&glsl("layer/patch.tese")),
                false => vk::ShaderModule::null(),
            },
            patch_fs: device.module(&patch_fs_words),
            pass: device.render_pass(ATTACHMENTS),
            pass1: device.render_pass(1),
            layout: device.layout(&[]),
            full_layout: device.layout(&full),
            frag_color_words,
            plain_fs_words,
            patch_fs_words,
            unseen_modules: RefCell::default(),
            instance,
            device,
        }
    }

    /// A module no driver has compiled: `words` made [`unseen`] by changing `value`.
    fn unseen_module(&self, words: &[u32], value: f32) -> vk::ShaderModule {
        let module = self.device.module(&unseen(words, value));
        self.unseen_modules.borrow_mut().push(module);
        module
    }

    /// gl_FragColor into every attachment: rewritten by the layer.
    fn frag_color(&self) -> Desc<'static> {
        self.frag_color_with(self.frag_color)
    }

    /// [`Fixture::frag_color`] with a colour no driver has compiled.
    fn unseen_frag_color(&self) -> Desc<'static> {
        self.frag_color_with(self.unseen_module(&self.frag_color_words, 0.25))
    }

    fn frag_color_with(&self, fs: vk::ShaderModule) -> Desc<'static> {
        let stages = [(S::VERTEX, self.plain_vs), (S::FRAGMENT, fs)];
        Desc::new(&stages, self.layout, self.pass, ATTACHMENTS)
    }

    /// Nothing to rewrite: passed through.
    fn plain(&self) -> Desc<'static> {
        self.plain_with(self.plain_fs)
    }

    /// [`Fixture::plain`] with a colour no driver has compiled.
    fn unseen_plain(&self) -> Desc<'static> {
        self.plain_with(self.unseen_module(&self.plain_fs_words, 0.25))
    }

    fn plain_with(&self, fs: vk::ShaderModule) -> Desc<'static> {
        let stages = [(S::VERTEX, self.plain_vs), (S::FRAGMENT, fs)];
        Desc::new(&stages, self.layout, self.pass1, 1)
    }

    /// A TES without TCS on `layout`: the layer generates a TCS, or fails it when the layout
    /// has no room for the levels. Never passed to plain lavapipe (it crashes on it).
    fn tes_only(&self, layout: vk::PipelineLayout) -> Desc<'static> {
        self.tes_only_with(layout, self.patch_fs)
    }

    /// [`Fixture::tes_only`] with a fragment shader (alpha) no driver has compiled.
    fn unseen_tes_only(&self, layout: vk::PipelineLayout) -> Desc<'static> {
        self.tes_only_with(layout, self.unseen_module(&self.patch_fs_words, 1.0))
    }

    fn tes_only_with(&self, layout: vk::PipelineLayout, fs: vk::ShaderModule) -> Desc<'static> {
        let stages = [
            (S::VERTEX, self.patch_vs),
            (S::TESSELLATION_EVALUATION, self.patch_tes),
            (S::FRAGMENT, fs),
        ];
        Desc::new(&stages, layout, self.pass1, 1)
    }

    /// Creates the array, destroys what was created; the result and which entries were
    /// created.
    fn outcome(
        &self,
        descs: &[Desc<'_>],
        cache: vk::PipelineCache,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> (vk::Result, Vec<bool>) {
        let (result, pipelines) = self.device.create_pipelines(cache, descs, allocator);
        for &p in &pipelines {
            unsafe { self.device.device.destroy_pipeline(p, allocator) };
        }
        (result, pipelines.iter().map(|p| !p.is_null()).collect())
    }

    fn destroy(self) {
        let d = &self.device.device;
        unsafe {
            for m in [
                self.plain_vs,
                self.plain_fs,
                self.frag_color,
                self.patch_vs,
                self.patch_tes,
                self.patch_fs,
            ]
            .into_iter()
            .chain(self.unseen_modules.take())
            {
                d.destroy_shader_module(m, None);
            }
            d.destroy_render_pass(self.pass, None);
            d.destroy_render_pass(self.pass1, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_pipeline_layout(self.full_layout, None);
        }
        self.device.destroy();
        self.instance.assert_clean();
    }
}

/// Arrays mixing rewritten and pass-through pipelines, some flagged FAIL_ON_COMPILE.
fn compile_required_arrays(layers: Layers) -> Vec<(vk::Result, Vec<bool>)> {
    let f = Fixture::new(layers);
    let null = vk::PipelineCache::null();
    let outcomes = vec![
        f.outcome(
            &[
                f.frag_color(),
                f.plain(),
                f.unseen_frag_color().flags(FAIL_ON_COMPILE),
                f.unseen_plain().flags(FAIL_ON_COMPILE),
                f.frag_color(),
            ],
            null,
            None,
        ),
        // The failed entry returns early: nothing after it is created.
        f.outcome(
            &[
                f.plain(),
                f.unseen_frag_color().flags(FAIL_ON_COMPILE | EARLY_RETURN),
                f.plain(),
                f.frag_color(),
            ],
            null,
            None,
        ),
        f.outcome(
            &[
                f.frag_color(),
                f.unseen_plain().flags(FAIL_ON_COMPILE | EARLY_RETURN),
                f.frag_color(),
            ],
            null,
            None,
        ),
    ];
    f.destroy();
    outcomes
}

#[test]
fn compile_required_arrays_match_plain_vulkan() {
    let _serial = serial();
    let without = compile_required_arrays(NO_LAYERS);
    let required = vk::Result::PIPELINE_COMPILE_REQUIRED;
    if without.iter().all(|(result, _)| *result != required) {
        // A driver may create a pipeline without compiling it yet (at draw time): then it
        // never needs to fail one, and this test would compare nothing interesting.
        println!("SKIP: this driver created every flagged pipeline without the layer");
        return;
    }
    // What the spec asks, checked without the layer: the flagged entries (unseen shaders)
    // fail with VK_PIPELINE_COMPILE_REQUIRED, the others are created, unless an early
    // return stops the array.
    assert_eq!(
        without,
        vec![
            (required, vec![true, true, false, false, true]),
            (required, vec![true, false, false, false]),
            (required, vec![true, false, false]),
        ]
    );
    let before = counters();
    let with = compile_required_arrays(WITH_VALIDATION);
    assert_eq!(with, without);
    let after = counters();
    // One broadcast of the shared gl_FragColor module for the whole device (the rewrite
    // cache) and one of each of the two unseen gl_FragColor modules: flagged entries are
    // rewritten too (the unseen plain shaders need nothing).
    assert_eq!(after.rewrites, before.rewrites + 3);
    assert_eq!(after.pipelines, before.pipelines, "records left behind");
}

#[test]
fn layer_failures_keep_array_semantics() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let f = Fixture::new(WITH_VALIDATION);
    let null = vk::PipelineCache::null();
    let before = counters();
    // A TES-only pipeline on a layout without room for the levels cannot be fixed: that
    // entry alone fails with VK_ERROR_UNKNOWN (it would crash the driver), the others are created.
    let unknown = vk::Result::ERROR_UNKNOWN;
    assert_eq!(
        f.outcome(
            &[
                f.plain(),
                f.tes_only(f.full_layout),
                f.frag_color(),
                f.tes_only(f.layout),
            ],
            null,
            None
        ),
        (unknown, vec![true, false, true, true])
    );
    // With EARLY_RETURN_ON_FAILURE the array ends at the failed entry, as in the driver.
    assert_eq!(
        f.outcome(
            &[
                f.frag_color(),
                f.tes_only(f.full_layout).flags(EARLY_RETURN),
                f.plain(),
                f.tes_only(f.layout),
            ],
            null,
            None
        ),
        (unknown, vec![true, false, false, false])
    );
    // A driver error beats the layer's own: the flagged entry gets the driver's result.
    assert_eq!(
        f.outcome(
            &[
                f.unseen_tes_only(f.layout).flags(FAIL_ON_COMPILE),
                f.tes_only(f.full_layout),
                f.frag_color(),
            ],
            null,
            None
        ),
        (unknown, vec![false, false, true])
    );
    assert_eq!(
        f.outcome(
            &[
                f.unseen_tes_only(f.layout).flags(FAIL_ON_COMPILE),
                f.plain()
            ],
            null,
            None
        ),
        (vk::Result::PIPELINE_COMPILE_REQUIRED, vec![false, true])
    );
    assert_eq!(
        counters().pipelines,
        before.pipelines,
        "records left behind"
    );
    f.destroy();
}

/// The temporary modules of failed rewritten pipelines are destroyed: with the
/// application's allocator on the call, every block the driver took through it is back.
#[test]
fn failed_rewritten_pipelines_free_their_temporary_modules() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let f = Fixture::new(WITH_VALIDATION);
    let allocator = CountingAllocator::default();
    let callbacks = allocator.callbacks();
    let outcome = f.outcome(
        &[
            f.unseen_frag_color().flags(FAIL_ON_COMPILE),
            f.unseen_tes_only(f.layout).flags(FAIL_ON_COMPILE),
        ],
        vk::PipelineCache::null(),
        Some(&callbacks),
    );
    assert_eq!(
        outcome,
        (vk::Result::PIPELINE_COMPILE_REQUIRED, vec![false, false])
    );
    assert!(
        allocator.allocations() >= 2,
        "the layer's temporary modules (gl_FragColor broadcast, generated TCS) use the \
         application's allocator: {} allocations",
        allocator.allocations()
    );
    assert_eq!(allocator.live(), 0, "blocks left by failed pipelines");
    f.destroy();
}

/// Live blocks of the application's allocator after creating, then after destroying, a
/// rewritten pipeline (TES-only only where the layer is on); and the allocations made.
fn allocator_balance(layers: Layers) -> (Vec<(isize, isize)>, usize) {
    let f = Fixture::new(layers);
    let allocator = CountingAllocator::default();
    let callbacks = allocator.callbacks();
    let mut descs = vec![f.frag_color()];
    if layers.glsem {
        descs.push(f.tes_only(f.layout));
    }
    let mut live = Vec::new();
    for desc in descs {
        let (result, pipelines) =
            f.device
                .create_pipelines(vk::PipelineCache::null(), &[desc], Some(&callbacks));
        assert_eq!(result, vk::Result::SUCCESS);
        let created = allocator.live();
        unsafe {
            f.device
                .device
                .destroy_pipeline(pipelines[0], Some(&callbacks))
        };
        live.push((created, allocator.live()));
    }
    f.destroy();
    (live, allocator.allocations())
}

/// The layer creates its temporary modules with the application's allocation callbacks, and
/// frees them before vkCreateGraphicsPipelines returns.
#[test]
fn allocation_callbacks_are_used_and_balanced() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let (without, plain_allocations) = allocator_balance(NO_LAYERS);
    let (with, allocations) = allocator_balance(WITH_VALIDATION);
    assert!(
        allocations > plain_allocations,
        "the temporary modules went through the callbacks ({allocations} allocations with the \
         layer, {plain_allocations} without)"
    );
    // What the driver itself keeps for a pipeline is the same; nothing of the layer's.
    assert_eq!(with[0], without[0], "gl_FragColor pipeline");
    assert_eq!(with[1], without[0], "TES-only pipeline");
    assert_eq!(with[0].1, 0, "blocks left after vkDestroyPipeline");
}

/// An application allocator that returns NULL. The layer's temporary modules fail. A
/// gl_FragColor pipeline then keeps its original shaders and gets what it gets without the
/// layer (lavapipe allocates pipelines from the device's allocator and creates it; NVIDIA
/// uses the one passed in and fails it); a TES-only pipeline cannot go down without its TCS
/// and gets the driver's VK_ERROR_OUT_OF_HOST_MEMORY.
fn out_of_memory(layers: Layers) -> Vec<(vk::Result, Vec<bool>)> {
    let f = Fixture::new(layers);
    let allocator = CountingAllocator::default();
    allocator
        .fail
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let callbacks = allocator.callbacks();
    let null = vk::PipelineCache::null();
    let mut outcomes = vec![
        f.outcome(&[f.frag_color()], null, Some(&callbacks)),
        f.outcome(&[f.plain(), f.frag_color()], null, Some(&callbacks)),
    ];
    if layers.glsem {
        outcomes.push(f.outcome(
            &[f.plain(), f.tes_only(f.layout), f.frag_color()],
            null,
            Some(&callbacks),
        ));
    }
    f.destroy();
    outcomes
}

#[test]
fn temporary_module_allocation_failure() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let without = out_of_memory(NO_LAYERS);
    let before = counters();
    // No validation: the gl_FragColor pipeline that keeps its original shader leaves
    // attachments 1 and 2 unwritten, as it would without the layer.
    let mut with = out_of_memory(GLSEM_ONLY);
    // [plain, TES-only, gl_FragColor]: the other two as in [plain, gl_FragColor] without
    // the layer.
    let created = &without[1].1;
    assert_eq!(
        with.pop(),
        Some((
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            vec![created[0], false, created[1]]
        )),
        "TES-only pipeline without its TCS"
    );
    assert_eq!(with, without);
    assert_eq!(counters().pipelines, before.pipelines);
}

/// Creates the gl_FragColor pipeline twice through one pipeline cache, reads the cache's
/// data, and renders with the second pipeline. Returns the results and the pixels.
fn through_a_cache(layers: Layers, tes_only: bool) -> (Vec<vk::Result>, Vec<Vec<u8>>) {
    let f = Fixture::new(layers);
    let d = &f.device.device;
    let cache = unsafe { d.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
        .expect("vkCreatePipelineCache");
    let mut results = Vec::new();
    let mut descs = vec![f.frag_color()];
    if tes_only {
        descs.push(f.tes_only(f.layout));
    }
    let (first, first_pipelines) = f.device.create_pipelines(cache, &descs, None);
    results.push(first);
    let data = unsafe { d.get_pipeline_cache_data(cache) };
    results.push(data.map_or_else(|e| e, |_| vk::Result::SUCCESS));
    let (second, second_pipelines) = f.device.create_pipelines(cache, &descs, None);
    results.push(second);
    // Only a cache hit may satisfy FAIL_ON_COMPILE; the driver decides, the layer must not.
    let flagged: Vec<_> = descs
        .into_iter()
        .map(|d| d.flags(FAIL_ON_COMPILE))
        .collect();
    results.push(f.outcome(&flagged, cache, None).0);
    let pixels = f
        .device
        .render(&f.instance, second_pipelines[0], f.pass, ATTACHMENTS, 3);
    unsafe {
        for p in first_pipelines.into_iter().chain(second_pipelines) {
            d.destroy_pipeline(p, None);
        }
        d.destroy_pipeline_cache(cache, None);
    }
    f.destroy();
    (results, pixels)
}

#[test]
fn pipeline_caches_work_for_rewritten_pipelines() {
    let _serial = serial();
    let (without, _) = through_a_cache(NO_LAYERS, false);
    let (with, pixels) = through_a_cache(WITH_VALIDATION, false);
    assert_eq!(with, without);
    assert_eq!(&with[..3], &[vk::Result::SUCCESS; 3]);
    // GL: gl_FragColor (0.25, 0.4, 0.75, 1) in every draw buffer, UNORM8.
    let expected: Vec<u8> = [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize);
    for (i, image) in pixels.iter().enumerate() {
        assert_eq!(image, &expected, "attachment {i}");
    }
    // With a generated TCS in the array, the cache still works and FAIL_ON_COMPILE still
    // gets the driver's answer.
    if !part_needs("its TES-only pipeline", &[Feature::TessellationShader]) {
        return;
    }
    let (with_tes, _) = through_a_cache(WITH_VALIDATION, true);
    assert_eq!(with_tes, without);
}
