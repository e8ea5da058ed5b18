//! Safe views of the create infos an application hands a hook. Each view has one `unsafe`
//! constructor, called at the hook boundary, that reads every application pointer the layer
//! uses (each `pNext` chain walked once); everything downstream works on the view's
//! references and slices, never on the application's raw pointers.

use ash::vk;
use smallvec::SmallVec;
use std::ffi::{c_void, CStr};
use std::mem::size_of;

use crate::layer::support::ffi::slice;
use glsem_abi::{is_chained_struct, ChainedStruct};

type Part = vk::GraphicsPipelineLibraryFlagsEXT;

/// A `pNext` chain, walked once: the structs in order.
pub(crate) struct Chain<'a> {
    links: Vec<&'a vk::BaseInStructure<'a>>,
}

impl<'a> Chain<'a> {
    /// # Safety
    /// `p_next` is NULL or a valid `pNext` chain that outlives `'a`.
    unsafe fn walk(p_next: *const c_void) -> Chain<'a> {
        let mut links = Vec::new();
        let mut p = p_next.cast::<vk::BaseInStructure<'a>>();
        // SAFETY: every struct of a valid chain (this function's contract) starts with
        // sType and pNext.
        while let Some(s) = unsafe { p.as_ref() } {
            links.push(s);
            p = s.p_next;
        }
        Chain { links }
    }

    /// The struct of `s_type` as a `T`.
    ///
    /// # Safety
    /// A struct of `s_type` is a `T`.
    unsafe fn find<T>(&self, s_type: vk::StructureType) -> Option<&'a T> {
        let s: &'a vk::BaseInStructure<'a> = self.links.iter().find(|s| s.s_type == s_type)?;
        // SAFETY: its sType says it is a `T` (this function's contract), and it lives as
        // long as the chain (`walk`'s contract).
        Some(unsafe { &*(s as *const vk::BaseInStructure<'a>).cast::<T>() })
    }

    /// The Vulkan struct `T` in the chain.
    pub fn get<T: vk::TaggedStructure>(&self) -> Option<&'a T> {
        // SAFETY: a struct of `T::STRUCTURE_TYPE` is a `T` (ash's `TaggedStructure`).
        unsafe { self.find::<T>(T::STRUCTURE_TYPE) }
    }

    /// The layer's own struct `T` in the chain.
    pub fn layer_struct<T: ChainedStruct>(&self) -> Option<&'a T> {
        // SAFETY: a struct of `T::S_TYPE` is a `T` (`ChainedStruct`'s contract).
        unsafe { self.find::<T>(T::S_TYPE) }
    }

    /// Whether every struct of the chain is one the layer defines (none: true).
    pub fn only_layer_structs(&self) -> bool {
        self.types().all(is_chained_struct)
    }

    pub fn contains(&self, s_type: vk::StructureType) -> bool {
        self.links.iter().any(|s| s.s_type == s_type)
    }

    /// The structure types in the chain, in order.
    pub fn types(&self) -> impl Iterator<Item = vk::StructureType> + '_ {
        self.links.iter().map(|s| s.s_type)
    }

    /// Whether the chain holds a struct of `s_type` that [`Chain::without`] can take out.
    pub fn can_unlink(&self, s_type: vk::StructureType) -> bool {
        self.types()
            .take_while(|&t| t != s_type)
            .all(|t| copy_size(t).is_some())
            && self.contains(s_type)
    }

    /// The chain without its struct of `s_type`. The application's structs are const, so
    /// the ones in front of it are copied into `copies` (which must outlive the returned
    /// chain) and relinked; the ones behind it stay the application's. `None` when a struct
    /// in front is one the layer cannot copy, or there is none of `s_type`.
    pub fn without(
        &self,
        s_type: vk::StructureType,
        copies: &mut Vec<Box<[u64]>>,
    ) -> Option<*const c_void> {
        self.contains(s_type)
            .then(|| self.unlinking(|t| t == s_type, copies))
            .flatten()
    }

    /// The chain without the structs the layer defines (`glsem_abi::CHAINED_STRUCTS`), as
    /// [`Chain::without`] takes one out; the chain itself where it holds none.
    pub fn without_layer_structs(&self, copies: &mut Vec<Box<[u64]>>) -> Option<*const c_void> {
        self.unlinking(is_chained_struct, copies)
    }

    /// The chain without the structs `drop` names: the ones in front of the last of them
    /// copied and relinked, the ones behind it the application's.
    fn unlinking(
        &self,
        drop: impl Fn(vk::StructureType) -> bool,
        copies: &mut Vec<Box<[u64]>>,
    ) -> Option<*const c_void> {
        let Some(at) = self.links.iter().rposition(|s| drop(s.s_type)) else {
            return Some(self.links.first().map_or(std::ptr::null(), |s| {
                (*s as *const vk::BaseInStructure<'_>).cast()
            }));
        };
        let kept: Vec<(&vk::BaseInStructure<'_>, usize)> = self.links[..at]
            .iter()
            .filter(|s| !drop(s.s_type))
            .map(|&s| Some((s, copy_size(s.s_type)?)))
            .collect::<Option<_>>()?;
        let mut next = self.links[at].p_next.cast::<c_void>();
        for &(src, size) in kept.iter().rev() {
            // u64 storage keeps the copy aligned for any Vulkan struct.
            let mut copy = vec![0u64; size.div_ceil(8)].into_boxed_slice();
            // SAFETY: `src` is a live struct (`walk`'s contract) of `size` bytes (its sType
            // says which); `copy` holds at least that many and starts with sType and pNext
            // too.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    (src as *const vk::BaseInStructure<'_>).cast::<u8>(),
                    copy.as_mut_ptr().cast::<u8>(),
                    size,
                );
                (*copy.as_mut_ptr().cast::<vk::BaseOutStructure<'_>>()).p_next = next as *mut _;
            }
            next = copy.as_ptr().cast();
            copies.push(copy);
        }
        Some(next)
    }
}

/// Sizes of the structs that may precede inline code in a stage's `pNext`
/// (VUID-VkPipelineShaderStageCreateInfo-pNext-pNext), or the library array in a pipeline's,
/// so that they can be copied.
fn copy_size(s_type: vk::StructureType) -> Option<usize> {
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
        T::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT => {
            size_of::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>()
        }
        T::PIPELINE_RENDERING_CREATE_INFO => size_of::<vk::PipelineRenderingCreateInfo<'_>>(),
        T::PIPELINE_CREATION_FEEDBACK_CREATE_INFO => {
            size_of::<vk::PipelineCreationFeedbackCreateInfo<'_>>()
        }
        T::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR => {
            size_of::<vk::PipelineCreateFlags2CreateInfoKHR<'_>>()
        }
        _ => return None,
    })
}

/// A nul-terminated entry point name as UTF-8 (`None`: NULL or not UTF-8).
///
/// # Safety
/// `name` is NULL or a nul-terminated string that outlives `'a`.
unsafe fn entry_name<'a>(name: *const std::ffi::c_char) -> Option<&'a str> {
    // SAFETY: a non-NULL `name` is nul-terminated and outlives `'a` (this function's
    // contract).
    (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_str().ok())?
}

/// Whole words of SPIR-V from a (pointer, size in bytes) pair.
///
/// # Safety
/// `code` is NULL or holds `size` bytes that outlive `'a`.
unsafe fn words<'a>(code: *const u32, size: usize) -> &'a [u32] {
    // SAFETY: this function's contract; whole words only.
    unsafe { slice(code, (size / 4).min(u32::MAX as usize) as u32) }
}

/// One `VkPipelineShaderStageCreateInfo`.
pub(crate) struct StageView<'a> {
    pub info: &'a vk::PipelineShaderStageCreateInfo<'a>,
    /// Code inline in the stage's `pNext` (a `VkShaderModuleCreateInfo`; `None` when the
    /// stage has a module).
    pub inline_code: Option<&'a [u32]>,
    pub chain: Chain<'a>,
}

impl<'a> StageView<'a> {
    /// # Safety
    /// `info` is valid (Vulkan's valid usage) and outlives `'a`.
    unsafe fn new(info: &'a vk::PipelineShaderStageCreateInfo<'a>) -> StageView<'a> {
        // SAFETY: a valid stage's pNext chain, pName and code (this function's contract).
        unsafe {
            let chain = Chain::walk(info.p_next);
            let inline_code = if info.module == vk::ShaderModule::null() {
                chain
                    .find::<vk::ShaderModuleCreateInfo<'_>>(
                        vk::StructureType::SHADER_MODULE_CREATE_INFO,
                    )
                    .map(|ci| words(ci.p_code, ci.code_size))
            } else {
                None
            };
            StageView {
                info,
                inline_code,
                chain,
            }
        }
    }

    /// `pName` (`None`: not UTF-8), decoded where asked: a pass-through pipeline's path
    /// reads no name.
    pub fn entry(&self) -> Option<&'a str> {
        // SAFETY: a valid stage's pName, alive as long as the stage (the constructor's
        // contract).
        unsafe { entry_name(self.info.p_name) }
    }

    /// Whether the layer can substitute this stage's module: it has one, or its inline code
    /// can be taken out of its chain.
    pub fn patchable(&self) -> bool {
        self.info.module != vk::ShaderModule::null()
            || self
                .chain
                .can_unlink(vk::StructureType::SHADER_MODULE_CREATE_INFO)
    }
}

/// A state struct of a graphics pipeline and its `pNext` chain.
pub(crate) struct State<'a, T> {
    pub state: &'a T,
    pub chain: Chain<'a>,
}

impl<'a, T> State<'a, T> {
    /// # Safety
    /// `state` is NULL or valid, with a valid `pNext` chain, and outlives `'a`; `p_next`
    /// is its chain.
    unsafe fn read(state: *const T, p_next: impl FnOnce(&T) -> *const c_void) -> Option<Self> {
        // SAFETY: NULL or a valid `T` that outlives `'a` (this function's contract).
        let state: &'a T = unsafe { state.as_ref() }?;
        Some(State {
            state,
            // SAFETY: the state's valid `pNext` chain (this function's contract).
            chain: unsafe { Chain::walk(p_next(state)) },
        })
    }
}

impl<T> std::ops::Deref for State<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.state
    }
}

/// The vertex-input state with its arrays.
pub(crate) struct VertexInput<'a> {
    pub state: &'a vk::PipelineVertexInputStateCreateInfo<'a>,
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
}

/// A `VkGraphicsPipelineCreateInfo` as the layer reads it. States a library part does not
/// hold (whose pointers Vulkan ignores and may be garbage) are `None`.
pub(crate) struct PipelineView<'a> {
    pub info: &'a vk::GraphicsPipelineCreateInfo<'a>,
    /// Inline for a vertex and a fragment shader: the usual pipeline allocates nothing.
    pub stages: SmallVec<[StageView<'a>; 2]>,
    pub dynamic_state: Option<&'a vk::PipelineDynamicStateCreateInfo<'a>>,
    /// `dynamic_state`'s states.
    pub dynamic: &'a [vk::DynamicState],
    pub chain: Chain<'a>,
    /// The parts a graphics pipeline library holds (`None`: not a library part, it holds
    /// all).
    pub library_parts: Option<Part>,
    /// The libraries it links (`VkPipelineLibraryCreateInfoKHR`).
    pub libraries: Option<&'a [vk::Pipeline]>,
    /// The colour attachment formats of dynamic rendering, where the create info holds the
    /// fragment output interface without a render pass.
    pub color_formats: Option<&'a [vk::Format]>,
    /// Where the create info holds the vertex-input state and it is not dynamic.
    pub vertex_input: Option<VertexInput<'a>>,
    /// Where the create info holds the vertex-input state or the pre-rasterization shaders
    /// (a pre-rasterization library is given the same input-assembly state for GL's
    /// primitive mode).
    pub input_assembly: Option<State<'a, vk::PipelineInputAssemblyStateCreateInfo<'a>>>,
    pub tessellation: Option<State<'a, vk::PipelineTessellationStateCreateInfo<'a>>>,
    pub viewport: Option<State<'a, vk::PipelineViewportStateCreateInfo<'a>>>,
    /// Viewport 0 of a static viewport state where the create info holds it.
    pub first_viewport: Option<&'a vk::Viewport>,
    pub rasterization: Option<State<'a, vk::PipelineRasterizationStateCreateInfo<'a>>>,
    /// The provoking vertex mode chained to the rasterization state.
    pub provoking_vertex_mode: Option<vk::ProvokingVertexModeEXT>,
    pub multisample: Option<&'a vk::PipelineMultisampleStateCreateInfo<'a>>,
}

impl<'a> PipelineView<'a> {
    /// Reads `info`'s stages, dynamic states, chained structs and state.
    ///
    /// # Safety
    /// Every pointer in `info` and its chains is valid as Vulkan's valid usage requires for
    /// `vkCreateGraphicsPipelines`, and outlives `'a`; the rasterization, viewport,
    /// tessellation and multisample state pointers are NULL or valid even where a library
    /// part ignores them.
    pub unsafe fn new(info: &'a vk::GraphicsPipelineCreateInfo<'a>) -> PipelineView<'a> {
        // SAFETY: valid pointers (this function's contract) for all that is read below;
        // each state is read only where the create info holds it, as noted.
        unsafe {
            let chain = Chain::walk(info.p_next);
            let library_parts = chain
                .find::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>(
                    vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
                )
                .map(|p| p.flags);
            let holds = |part: Part| library_parts.is_none_or(|p| p.intersects(part));
            let libraries = chain
                .find::<vk::PipelineLibraryCreateInfoKHR<'_>>(
                    vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
                )
                .map(|l| slice(l.p_libraries, l.library_count));
            let dynamic_state = info.p_dynamic_state.as_ref();
            let dynamic: &'a [vk::DynamicState] = dynamic_state
                .map(|d| slice(d.p_dynamic_states, d.dynamic_state_count))
                .unwrap_or(&[]);
            let color_formats = chain
                .find::<vk::PipelineRenderingCreateInfo<'_>>(
                    vk::StructureType::PIPELINE_RENDERING_CREATE_INFO,
                )
                .filter(|_| {
                    info.render_pass == vk::RenderPass::null()
                        && holds(Part::FRAGMENT_OUTPUT_INTERFACE)
                })
                .map(|r| slice(r.p_color_attachment_formats, r.color_attachment_count));
            let vertex_input = info
                .p_vertex_input_state
                .as_ref()
                .filter(|_| {
                    holds(Part::VERTEX_INPUT_INTERFACE)
                        && !dynamic.contains(&vk::DynamicState::VERTEX_INPUT_EXT)
                })
                .map(|state| VertexInput {
                    state,
                    bindings: slice(
                        state.p_vertex_binding_descriptions,
                        state.vertex_binding_description_count,
                    ),
                    attributes: slice(
                        state.p_vertex_attribute_descriptions,
                        state.vertex_attribute_description_count,
                    ),
                });
            let input_assembly =
                if holds(Part::VERTEX_INPUT_INTERFACE | Part::PRE_RASTERIZATION_SHADERS) {
                    State::read(info.p_input_assembly_state, |s| s.p_next)
                } else {
                    None
                };
            let rasterization = State::read(info.p_rasterization_state, |s| s.p_next);
            let provoking_vertex_mode = rasterization.as_ref().and_then(|r| {
                r.chain
                    .find::<vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT<'_>>(
                        vk::StructureType::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
                    )
                    .map(|p| p.provoking_vertex_mode)
            });
            let viewport = State::read(info.p_viewport_state, |s| s.p_next);
            // A dynamic viewport's array is ignored, as is a library part's without the
            // pre-rasterization shaders.
            let static_viewport = !dynamic.contains(&vk::DynamicState::VIEWPORT)
                && !dynamic.contains(&vk::DynamicState::VIEWPORT_WITH_COUNT);
            let first_viewport = viewport
                .as_ref()
                .filter(|_| static_viewport && holds(Part::PRE_RASTERIZATION_SHADERS))
                .and_then(|v| v.p_viewports.as_ref());
            PipelineView {
                info,
                stages: slice(info.p_stages, info.stage_count)
                    .iter()
                    .map(|s| StageView::new(s))
                    .collect(),
                dynamic_state,
                dynamic,
                library_parts,
                libraries,
                color_formats,
                vertex_input,
                input_assembly,
                tessellation: State::read(info.p_tessellation_state, |s| s.p_next),
                viewport,
                first_viewport,
                rasterization,
                provoking_vertex_mode,
                multisample: info.p_multisample_state.as_ref(),
                chain,
            }
        }
    }

    /// Views of `count` create infos at `infos`: inline for one, the usual count.
    ///
    /// # Safety
    /// As for [`PipelineView::new`], for each of `count` create infos at `infos`.
    pub unsafe fn all(
        infos: *const vk::GraphicsPipelineCreateInfo<'a>,
        count: u32,
    ) -> SmallVec<[PipelineView<'a>; 1]> {
        // SAFETY: `count` create infos at `infos`, each valid as `new` requires (this
        // function's contract).
        unsafe {
            slice(infos, count)
                .iter()
                .map(|ci| PipelineView::new(ci))
                .collect()
        }
    }

    pub fn is_dynamic(&self, state: vk::DynamicState) -> bool {
        self.dynamic.contains(&state)
    }
}

/// A `VkShaderCreateInfoEXT` as the layer reads it.
pub(crate) struct ShaderView<'a> {
    pub info: &'a vk::ShaderCreateInfoEXT<'a>,
    /// The SPIR-V words (`None`: not SPIR-V, or no code).
    pub code: Option<&'a [u32]>,
    /// `pName` (`None`: NULL or not UTF-8).
    pub entry: Option<&'a str>,
    pub push_constant_ranges: &'a [vk::PushConstantRange],
    pub set_layouts: &'a [vk::DescriptorSetLayout],
}

impl<'a> ShaderView<'a> {
    /// # Safety
    /// Every pointer in `info` is valid as Vulkan's valid usage requires for
    /// `vkCreateShadersEXT`, and outlives `'a`.
    pub unsafe fn new(info: &'a vk::ShaderCreateInfoEXT<'a>) -> ShaderView<'a> {
        // SAFETY: pCode holds codeSize bytes, pName is nul-terminated and the arrays hold
        // their counts (this function's contract).
        unsafe {
            ShaderView {
                info,
                code: (info.code_type == vk::ShaderCodeTypeEXT::SPIRV && !info.p_code.is_null())
                    .then(|| words(info.p_code.cast(), info.code_size)),
                entry: entry_name(info.p_name),
                push_constant_ranges: slice(
                    info.p_push_constant_ranges,
                    info.push_constant_range_count,
                ),
                set_layouts: slice(info.p_set_layouts, info.set_layout_count),
            }
        }
    }
}

#[cfg(test)]
// The tests build the chains they walk.
#[allow(clippy::undocumented_unsafe_blocks)]
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
        let code_type = vk::StructureType::SHADER_MODULE_CREATE_INFO;
        let mut copies = Vec::new();
        let app = unsafe { Chain::walk(head) };
        assert!(app.can_unlink(code_type));
        let chain = app.without(code_type, &mut copies).unwrap();
        use vk::StructureType as T;
        assert_eq!(
            unsafe { Chain::walk(chain) }.types().collect::<Vec<_>>(),
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
        let app = unsafe { Chain::walk(head) };
        assert!(!app.can_unlink(code_type));
        assert!(app.without(code_type, &mut copies).is_none());
    }
}
