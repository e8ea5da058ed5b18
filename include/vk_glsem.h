/*
 * vk_glsem.h: the device extension implemented by the glsem layer
 * (VK_LAYER_GLSEM_gl_semantics).
 *
 * VK_GLSEM_tessellation_default_levels gives pipelines with a tessellation evaluation
 * shader and no control shader GL's default tessellation levels
 * (glPatchParameterfv(GL_PATCH_DEFAULT_OUTER_LEVEL / GL_PATCH_DEFAULT_INNER_LEVEL, ...)).
 *
 * Enable it in VkDeviceCreateInfo::ppEnabledExtensionNames (it is listed by
 * vkEnumerateDeviceExtensionProperties with pLayerName = "VK_LAYER_GLSEM_gl_semantics"),
 * then get the command with vkGetDeviceProcAddr. The levels are per command buffer, 1.0
 * until set, reset to 1.0 by vkBeginCommandBuffer and command buffer/pool resets, and apply
 * to the draws recorded after the call.
 */
#ifndef VK_GLSEM_H_
#define VK_GLSEM_H_ 1

#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VK_GLSEM_tessellation_default_levels 1
#define VK_GLSEM_TESSELLATION_DEFAULT_LEVELS_SPEC_VERSION 1
#define VK_GLSEM_TESSELLATION_DEFAULT_LEVELS_EXTENSION_NAME "VK_GLSEM_tessellation_default_levels"

/* outer: the 4 outer levels; inner: the 2 inner levels (GL's array order). */
typedef void (VKAPI_PTR *PFN_vkCmdSetTessellationDefaultLevelsGLSEM)(
    VkCommandBuffer commandBuffer, const float outer[4], const float inner[2]);

#ifndef VK_NO_PROTOTYPES
/* Not exported by any library: call it through the pointer vkGetDeviceProcAddr returns. */
VKAPI_ATTR void VKAPI_CALL vkCmdSetTessellationDefaultLevelsGLSEM(
    VkCommandBuffer commandBuffer, const float outer[4], const float inner[2]);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VK_GLSEM_H_ */
