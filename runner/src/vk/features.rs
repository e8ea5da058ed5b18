//! `VkPhysicalDeviceFeatures` members a scene may need, and which SPIR-V capabilities need
//! them: a module that declares such a capability is invalid on a device that did not
//! enable the feature (VUID-VkShaderModuleCreateInfo-pCode-01091).

use ash::vk;
use spirv::Capability;

/// Declares [`CoreFeature`], its [`name`](CoreFeature::name) and its
/// [`field`](CoreFeature::field) from one list, `Variant => member, "specName";`, so that
/// the three cannot disagree.
macro_rules! core_features {
    ($($variant:ident => $field:ident, $name:literal;)*) => {
        /// A Vulkan 1.0 device feature, named as in the spec.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum CoreFeature {
            $($variant,)*
        }

        impl CoreFeature {
            /// The member's name in `VkPhysicalDeviceFeatures`, for SKIP messages.
            pub fn name(self) -> &'static str {
                match self {
                    $(CoreFeature::$variant => $name,)*
                }
            }

            /// The member itself.
            pub fn field(self, f: &mut vk::PhysicalDeviceFeatures) -> &mut vk::Bool32 {
                match self {
                    $(CoreFeature::$variant => &mut f.$field,)*
                }
            }
        }
    };
}

core_features! {
    TessellationShader => tessellation_shader, "tessellationShader";
    GeometryShader => geometry_shader, "geometryShader";
    ShaderFloat64 => shader_float64, "shaderFloat64";
    ShaderInt64 => shader_int64, "shaderInt64";
    ShaderInt16 => shader_int16, "shaderInt16";
    ShaderClipDistance => shader_clip_distance, "shaderClipDistance";
    ShaderCullDistance => shader_cull_distance, "shaderCullDistance";
    ShaderTessellationAndGeometryPointSize => shader_tessellation_and_geometry_point_size, "shaderTessellationAndGeometryPointSize";
    DualSrcBlend => dual_src_blend, "dualSrcBlend";
    SampleRateShading => sample_rate_shading, "sampleRateShading";
    ImageCubeArray => image_cube_array, "imageCubeArray";
    MultiViewport => multi_viewport, "multiViewport";
    ShaderImageGatherExtended => shader_image_gather_extended, "shaderImageGatherExtended";
    ShaderStorageImageExtendedFormats => shader_storage_image_extended_formats, "shaderStorageImageExtendedFormats";
    ShaderStorageImageMultisample => shader_storage_image_multisample, "shaderStorageImageMultisample";
    ShaderStorageImageReadWithoutFormat => shader_storage_image_read_without_format, "shaderStorageImageReadWithoutFormat";
    ShaderStorageImageWriteWithoutFormat => shader_storage_image_write_without_format, "shaderStorageImageWriteWithoutFormat";
    ShaderUniformBufferArrayDynamicIndexing => shader_uniform_buffer_array_dynamic_indexing, "shaderUniformBufferArrayDynamicIndexing";
    ShaderSampledImageArrayDynamicIndexing => shader_sampled_image_array_dynamic_indexing, "shaderSampledImageArrayDynamicIndexing";
    ShaderStorageBufferArrayDynamicIndexing => shader_storage_buffer_array_dynamic_indexing, "shaderStorageBufferArrayDynamicIndexing";
    ShaderStorageImageArrayDynamicIndexing => shader_storage_image_array_dynamic_indexing, "shaderStorageImageArrayDynamicIndexing";
    ShaderResourceMinLod => shader_resource_min_lod, "shaderResourceMinLod";
    ShaderResourceResidency => shader_resource_residency, "shaderResourceResidency";
    FillModeNonSolid => fill_mode_non_solid, "fillModeNonSolid";
    DrawIndirectFirstInstance => draw_indirect_first_instance, "drawIndirectFirstInstance";
}

impl CoreFeature {
    /// The feature a capability needs, from the spec's "SPIR-V Environment" capability
    /// table; `None` for capabilities that core Vulkan always allows or that need an
    /// extension's feature struct instead (the runner does not enable those).
    pub fn for_capability(capability: Capability) -> Option<CoreFeature> {
        use Capability as C;
        use CoreFeature as F;
        Some(match capability {
            C::Geometry => F::GeometryShader,
            C::Tessellation => F::TessellationShader,
            C::Float64 => F::ShaderFloat64,
            C::Int64 => F::ShaderInt64,
            C::Int16 => F::ShaderInt16,
            C::ClipDistance => F::ShaderClipDistance,
            C::CullDistance => F::ShaderCullDistance,
            C::TessellationPointSize | C::GeometryPointSize => {
                F::ShaderTessellationAndGeometryPointSize
            }
            // interpolateAt*() and gl_SampleID/gl_SamplePosition both ride on per-sample
            // shading in Vulkan.
            C::SampleRateShading | C::InterpolationFunction => F::SampleRateShading,
            C::ImageCubeArray | C::SampledCubeArray => F::ImageCubeArray,
            C::MultiViewport => F::MultiViewport,
            C::ImageGatherExtended => F::ShaderImageGatherExtended,
            C::StorageImageExtendedFormats => F::ShaderStorageImageExtendedFormats,
            C::StorageImageMultisample => F::ShaderStorageImageMultisample,
            C::StorageImageReadWithoutFormat => F::ShaderStorageImageReadWithoutFormat,
            C::StorageImageWriteWithoutFormat => F::ShaderStorageImageWriteWithoutFormat,
            C::UniformBufferArrayDynamicIndexing => F::ShaderUniformBufferArrayDynamicIndexing,
            C::SampledImageArrayDynamicIndexing => F::ShaderSampledImageArrayDynamicIndexing,
            C::StorageBufferArrayDynamicIndexing => F::ShaderStorageBufferArrayDynamicIndexing,
            C::StorageImageArrayDynamicIndexing => F::ShaderStorageImageArrayDynamicIndexing,
            C::MinLod => F::ShaderResourceMinLod,
            C::SparseResidency => F::ShaderResourceResidency,
            _ => return None,
        })
    }
}

/// The features to enable for `needed`: every one set, the rest left off.
pub fn enabled<'a>(
    needed: impl IntoIterator<Item = &'a CoreFeature>,
) -> vk::PhysicalDeviceFeatures {
    let mut features = vk::PhysicalDeviceFeatures::default();
    for f in needed {
        *f.field(&mut features) = vk::TRUE;
    }
    features
}

/// The needed features `available` lacks, by name.
pub fn lacking<'a>(
    needed: impl IntoIterator<Item = &'a CoreFeature>,
    mut available: vk::PhysicalDeviceFeatures,
) -> Vec<&'static str> {
    needed
        .into_iter()
        .filter(|f| *f.field(&mut available) != vk::TRUE)
        .map(|f| f.name())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_functions_need_sample_rate_shading() {
        // The Vulkan spec's capability table: InterpolationFunction → sampleRateShading.
        assert_eq!(
            CoreFeature::for_capability(Capability::InterpolationFunction),
            Some(CoreFeature::SampleRateShading)
        );
        assert_eq!(
            CoreFeature::for_capability(Capability::SampleRateShading),
            Some(CoreFeature::SampleRateShading)
        );
        // Shader and Matrix are always allowed.
        assert_eq!(CoreFeature::for_capability(Capability::Shader), None);
        assert_eq!(CoreFeature::for_capability(Capability::Matrix), None);
    }

    #[test]
    fn enabled_sets_exactly_the_needed_members() {
        let f = enabled(&[CoreFeature::SampleRateShading, CoreFeature::ShaderFloat64]);
        assert_eq!(f.sample_rate_shading, vk::TRUE);
        assert_eq!(f.shader_float64, vk::TRUE);
        assert_eq!(f.geometry_shader, vk::FALSE);
        assert_eq!(f.tessellation_shader, vk::FALSE);
    }

    #[test]
    fn lacking_names_what_the_device_does_not_offer() {
        let available = vk::PhysicalDeviceFeatures {
            geometry_shader: vk::TRUE,
            ..Default::default()
        };
        let needed = [CoreFeature::GeometryShader, CoreFeature::ShaderCullDistance];
        assert_eq!(lacking(&needed, available), vec!["shaderCullDistance"]);
    }
}
