/*
 * vk_glsem.h: the device extension implemented by the glsem layer
 * (VK_LAYER_GLSEM_gl_semantics).
 *
 * VK_GLSEM_tessellation_default_levels gives pipelines with a tessellation evaluation
 * shader and no control shader GL's default tessellation levels
 * (glPatchParameterfv(GL_PATCH_DEFAULT_OUTER_LEVEL / GL_PATCH_DEFAULT_INNER_LEVEL, ...)).
 *
 * VK_GLSEM_gl_state says "this device wants GL's rules": GL's point size state
 * (glPointSize, GL_PROGRAM_POINT_SIZE), the clip-distance enables (GL_CLIP_DISTANCEi),
 * GL's last-vertex provoking convention, GL's clip-space depth (-w..w), GL's window
 * coordinates (setting window_origin = flipped | lower_left | vulkan: gl_FragCoord, dFdy,
 * interpolateAtOffset, winding, gl_PointCoord and the tessellation domain origin as GL has
 * them, whichever way the application flips its viewport), GL's lines (Bresenham, wide
 * lines, stipple), gl_InstanceID without the base instance (shaderDrawParameters, enabled by
 * the layer where the driver has it), gl_Layer only on layered targets, and gl_SampleMask
 * without effect on single-sample pipelines, and GL's primitive modes (GL_QUADS,
 * GL_QUAD_STRIP, GL_POLYGON, GL_LINE_LOOP). (Vertex inputs no attribute feeds read
 * (0, 0, 0, 1) on every device, extension or not.)
 *
 * Enable them in VkDeviceCreateInfo::ppEnabledExtensionNames (they are listed by
 * vkEnumerateDeviceExtensionProperties with pLayerName = "VK_LAYER_GLSEM_gl_semantics"),
 * then get the commands with vkGetDeviceProcAddr. The state is per command buffer, GL's
 * initial value until set, reset by vkBeginCommandBuffer and command buffer/pool resets,
 * and applies to the draws recorded after the call. Secondary command buffers do not
 * inherit it.
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

#define VK_GLSEM_gl_state 1
#define VK_GLSEM_GL_STATE_SPEC_VERSION 1
#define VK_GLSEM_GL_STATE_EXTENSION_NAME "VK_GLSEM_gl_state"

/* glPointSize(size); initially 1.0. */
typedef void (VKAPI_PTR *PFN_vkCmdSetPointSizeGLSEM)(
    VkCommandBuffer commandBuffer, float size);
/* glEnable / glDisable(GL_PROGRAM_POINT_SIZE); initially VK_FALSE. */
typedef void (VKAPI_PTR *PFN_vkCmdSetProgramPointSizeEnableGLSEM)(
    VkCommandBuffer commandBuffer, VkBool32 enable);
/* glEnable / glDisable(GL_CLIP_DISTANCEi): bit i enables plane i (0..7); initially 0. */
typedef void (VKAPI_PTR *PFN_vkCmdSetClipDistanceEnableGLSEM)(
    VkCommandBuffer commandBuffer, uint32_t mask);
/* glLineStipple(factor, pattern) (compatibility profile): factor clamped to [1, 256];
 * initially 1 and 0xFFFF. Applies to pipelines the layer gave stippled Bresenham lines. */
typedef void (VKAPI_PTR *PFN_vkCmdSetLineStippleGLSEM)(
    VkCommandBuffer commandBuffer, uint32_t factor, uint16_t pattern);
/* glEnable / glDisable(GL_LINE_STIPPLE); initially VK_FALSE. */
typedef void (VKAPI_PTR *PFN_vkCmdSetLineStippleEnableGLSEM)(
    VkCommandBuffer commandBuffer, VkBool32 enable);
/* glPointParameteri(GL_POINT_SPRITE_COORD_ORIGIN, lowerLeft ? GL_LOWER_LEFT : GL_UPPER_LEFT);
 * initially VK_FALSE (GL_UPPER_LEFT). */
typedef void (VKAPI_PTR *PFN_vkCmdSetPointSpriteCoordOriginGLSEM)(
    VkCommandBuffer commandBuffer, VkBool32 lowerLeft);
/* glVertexAttrib4f (format VK_FORMAT_R32G32B32A32_SFLOAT), glVertexAttribI4i (_SINT) or
 * glVertexAttribI4ui (_UINT): GL's current value of generic attribute `location` (below
 * min(32, maxVertexInputAttributes)), the four 32-bit values at `value`; initially
 * (0, 0, 0, 1) of the type the shader reads. A vertex shader input the pipeline's
 * vertex-input state does not feed reads it, through a stride-0 vertex binding the layer
 * owns at maxVertexInputBindings - 1: the application must not use that binding. */
typedef void (VKAPI_PTR *PFN_vkCmdSetVertexAttribGLSEM)(
    VkCommandBuffer commandBuffer, uint32_t location, VkFormat format, const void* value);

/* GL's primitive modes without a Vulkan topology, by their GL enum values. */
typedef enum VkPrimitiveModeGLSEM {
    VK_PRIMITIVE_MODE_NONE_GLSEM = 0,            /* the Vulkan topology as it is */
    VK_PRIMITIVE_MODE_LINE_LOOP_GLSEM = 0x0002,  /* GL_LINE_LOOP */
    VK_PRIMITIVE_MODE_QUADS_GLSEM = 0x0007,      /* GL_QUADS */
    VK_PRIMITIVE_MODE_QUAD_STRIP_GLSEM = 0x0008, /* GL_QUAD_STRIP */
    VK_PRIMITIVE_MODE_POLYGON_GLSEM = 0x0009,    /* GL_POLYGON */
    VK_PRIMITIVE_MODE_MAX_ENUM_GLSEM = 0x7FFFFFFF
} VkPrimitiveModeGLSEM;

/* 'G' 'S' 'M' 1: far above every value Khronos allocates. */
#define VK_STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO_GLSEM ((VkStructureType)0x47534D01)

/* Chained to VkPipelineInputAssemblyStateCreateInfo of a whole pipeline:
 * glDrawArrays/glDrawElements(mode) with GL's mode. The layer sets the topology (the
 * application's `topology` is ignored) and, for quads, quad strips and polygons, adds a
 * geometry shader; a line loop is drawn as a line strip that the layer closes on non-indexed
 * draws (indexed and indirect ones stay open, with a warning). With pipeline libraries, both
 * the vertex-input library and the pre-rasterization library get the same input-assembly
 * state with this struct (Vulkan ignores it in the latter; the layer adds the geometry shader
 * there). GL refuses quads, quad strips and polygons with a geometry or tessellation shader,
 * and so does the layer (the pipeline fails with a "glsem: error:" line); line loops may
 * have a geometry shader. */
typedef struct VkPipelinePrimitiveModeCreateInfoGLSEM {
    VkStructureType sType;
    const void* pNext;
    VkPrimitiveModeGLSEM primitiveMode;
} VkPipelinePrimitiveModeCreateInfoGLSEM;

/* For shader objects: GL's primitive mode of the draws recorded next (initially
 * VK_PRIMITIVE_MODE_NONE_GLSEM); the layer binds its geometry shader and sets the topology. */
typedef void (VKAPI_PTR *PFN_vkCmdSetPrimitiveModeGLSEM)(
    VkCommandBuffer commandBuffer, VkPrimitiveModeGLSEM mode);

#ifndef VK_NO_PROTOTYPES
/* Not exported by any library: call them through the pointers vkGetDeviceProcAddr returns. */
VKAPI_ATTR void VKAPI_CALL vkCmdSetTessellationDefaultLevelsGLSEM(
    VkCommandBuffer commandBuffer, const float outer[4], const float inner[2]);
VKAPI_ATTR void VKAPI_CALL vkCmdSetPointSizeGLSEM(VkCommandBuffer commandBuffer, float size);
VKAPI_ATTR void VKAPI_CALL vkCmdSetProgramPointSizeEnableGLSEM(
    VkCommandBuffer commandBuffer, VkBool32 enable);
VKAPI_ATTR void VKAPI_CALL vkCmdSetClipDistanceEnableGLSEM(
    VkCommandBuffer commandBuffer, uint32_t mask);
VKAPI_ATTR void VKAPI_CALL vkCmdSetLineStippleGLSEM(
    VkCommandBuffer commandBuffer, uint32_t factor, uint16_t pattern);
VKAPI_ATTR void VKAPI_CALL vkCmdSetLineStippleEnableGLSEM(
    VkCommandBuffer commandBuffer, VkBool32 enable);
VKAPI_ATTR void VKAPI_CALL vkCmdSetPointSpriteCoordOriginGLSEM(
    VkCommandBuffer commandBuffer, VkBool32 lowerLeft);
VKAPI_ATTR void VKAPI_CALL vkCmdSetVertexAttribGLSEM(
    VkCommandBuffer commandBuffer, uint32_t location, VkFormat format, const void* value);
VKAPI_ATTR void VKAPI_CALL vkCmdSetPrimitiveModeGLSEM(
    VkCommandBuffer commandBuffer, VkPrimitiveModeGLSEM mode);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VK_GLSEM_H_ */
