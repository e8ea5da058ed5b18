//! Barriers, copies and ranges of whole single-level, single-layer images.

use ash::vk;

/// A layout transition of a colour image (one level, one layer), queue ownership unchanged;
/// the access masks are the caller's to add.
pub fn image_barrier(
    image: vk::Image,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(color_range())
}

/// One side of an image layout transition: the stages and accesses that side covers and
/// the layout the image is in there.
#[derive(Debug, Clone, Copy)]
pub struct ImageUse {
    pub stage: vk::PipelineStageFlags,
    pub access: vk::AccessFlags,
    pub layout: vk::ImageLayout,
}

impl ImageUse {
    /// Written by a copy or clear.
    pub const TRANSFER_DST: ImageUse = ImageUse {
        stage: vk::PipelineStageFlags::TRANSFER,
        access: vk::AccessFlags::TRANSFER_WRITE,
        layout: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    };

    /// Read by a copy or blit.
    pub const TRANSFER_SRC: ImageUse = ImageUse {
        stage: vk::PipelineStageFlags::TRANSFER,
        access: vk::AccessFlags::TRANSFER_READ,
        layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    };

    /// Contents not kept: no access to wait for, ahead of `stage`.
    pub const fn discarded(stage: vk::PipelineStageFlags) -> ImageUse {
        ImageUse {
            stage,
            access: vk::AccessFlags::empty(),
            layout: vk::ImageLayout::UNDEFINED,
        }
    }
}

/// A buffer ↔ image copy of the whole `aspect` of a single-level, single-layer image.
pub fn whole_image_copy(
    aspect: vk::ImageAspectFlags,
    width: u32,
    height: u32,
) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: aspect,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        })
        .image_extent(vk::Extent3D {
            width,
            height,
            depth: 1,
        })
}

/// The whole of a single-level, single-layer colour image.
pub fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}
