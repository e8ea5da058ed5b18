/*
 * A C application of the VK_GLSEM_tessellation_default_levels extension: a graphics
 * pipeline with a vertex and a tessellation evaluation shader but no tessellation control
 * shader (what GL allows and Vulkan forbids), drawn through the glsem layer with default
 * tessellation levels set by vkCmdSetTessellationDefaultLevelsGLSEM (GL:
 * glPatchParameterfv(GL_PATCH_DEFAULT_OUTER_LEVEL / _INNER_LEVEL)).
 *
 * The left half of a 64x64 image is drawn with one set of levels, set before the
 * pipeline is bound; the right half with another, set while it is bound. The TES paints
 * green when it sees exactly its half's levels, red otherwise.
 *
 * Usage: tes_only VERT.spv TESE.spv FRAG.spv
 * Exit status 0 on success; otherwise it prints why. Validation errors fail the run when
 * VK_LAYER_KHRONOS_validation is installed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "vk_glsem.h"

#define WIDTH 64
#define HEIGHT 64
#define GLSEM_LAYER "VK_LAYER_GLSEM_gl_semantics"
#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

static int validation_errors;

#define CHECK(call)                                                                    \
    do {                                                                               \
        VkResult check_result_ = (call);                                               \
        if (check_result_ != VK_SUCCESS) {                                             \
            fprintf(stderr, "%s:%d: %s failed: VkResult %d\n", __FILE__, __LINE__, #call, \
                    (int)check_result_);                                               \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static void fail(const char *why)
{
    fprintf(stderr, "tes_only: %s\n", why);
    exit(1);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)types;
    (void)user;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        validation_errors++;
        fprintf(stderr, "validation error: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static uint32_t *read_spirv(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tes_only: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (length <= 0 || length % 4 != 0) {
        fprintf(stderr, "tes_only: %s is not SPIR-V\n", path);
        exit(1);
    }
    uint32_t *words = malloc((size_t)length);
    if (!words || fread(words, 1, (size_t)length, f) != (size_t)length)
        fail("cannot read a SPIR-V file");
    fclose(f);
    *size = (size_t)length;
    return words;
}

static int has_layer(const char *name)
{
    uint32_t count = 0;
    CHECK(vkEnumerateInstanceLayerProperties(&count, NULL));
    VkLayerProperties *layers = calloc(count, sizeof(*layers));
    CHECK(vkEnumerateInstanceLayerProperties(&count, layers));
    int found = 0;
    for (uint32_t i = 0; i < count; i++)
        found |= strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

static int has_instance_extension(const char *layer, const char *name)
{
    uint32_t count = 0;
    CHECK(vkEnumerateInstanceExtensionProperties(layer, &count, NULL));
    VkExtensionProperties *exts = calloc(count, sizeof(*exts));
    CHECK(vkEnumerateInstanceExtensionProperties(layer, &count, exts));
    int found = 0;
    for (uint32_t i = 0; i < count; i++)
        found |= strcmp(exts[i].extensionName, name) == 0;
    free(exts);
    return found;
}

/* The glsem layer advertises its device extension under its own name. */
static int layer_has_device_extension(VkPhysicalDevice gpu, const char *name)
{
    uint32_t count = 0;
    CHECK(vkEnumerateDeviceExtensionProperties(gpu, GLSEM_LAYER, &count, NULL));
    VkExtensionProperties *exts = calloc(count, sizeof(*exts));
    CHECK(vkEnumerateDeviceExtensionProperties(gpu, GLSEM_LAYER, &count, exts));
    int found = 0;
    for (uint32_t i = 0; i < count; i++)
        found |= strcmp(exts[i].extensionName, name) == 0;
    free(exts);
    return found;
}

static uint32_t memory_type(VkPhysicalDevice gpu, uint32_t bits, VkMemoryPropertyFlags flags)
{
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(gpu, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & flags) == flags)
            return i;
    fail("no suitable memory type");
    return 0;
}

static VkShaderModule shader(VkDevice device, const char *path)
{
    size_t size;
    uint32_t *code = read_spirv(path, &size);
    VkShaderModuleCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = code,
    };
    VkShaderModule module;
    CHECK(vkCreateShaderModule(device, &info, NULL, &module));
    free(code);
    return module;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s VERT.spv TESE.spv FRAG.spv\n", argv[0]);
        return 2;
    }

    /* Instance: glsem, plus validation with a messenger that counts errors. */
    if (!has_layer(GLSEM_LAYER))
        fail(GLSEM_LAYER " is not installed (VK_ADD_LAYER_PATH?)");
    const char *layers[2] = {GLSEM_LAYER, VALIDATION_LAYER};
    uint32_t layer_count = has_layer(VALIDATION_LAYER) ? 2 : 1;
    int debug_utils = layer_count == 2 && has_instance_extension(VALIDATION_LAYER,
                                                                  VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (layer_count == 1)
        printf("tes_only: %s not installed, running without it\n", VALIDATION_LAYER);
    const char *instance_extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = on_message,
    };
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "tes_only",
        .apiVersion = VK_API_VERSION_1_1,
    };
    VkInstanceCreateInfo instance_info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = debug_utils ? &messenger_info : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = layer_count,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = debug_utils ? 1 : 0,
        .ppEnabledExtensionNames = instance_extensions,
    };
    VkInstance instance;
    CHECK(vkCreateInstance(&instance_info, NULL, &instance));
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (debug_utils) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create_messenger)
            fail("vkCreateDebugUtilsMessengerEXT missing");
        CHECK(create_messenger(instance, &messenger_info, NULL, &messenger));
    }

    /* The first device with tessellation shaders, a graphics queue and the extension. */
    uint32_t gpu_count = 0;
    CHECK(vkEnumeratePhysicalDevices(instance, &gpu_count, NULL));
    VkPhysicalDevice *gpus = calloc(gpu_count, sizeof(*gpus));
    CHECK(vkEnumeratePhysicalDevices(instance, &gpu_count, gpus));
    VkPhysicalDevice gpu = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    for (uint32_t i = 0; i < gpu_count && gpu == VK_NULL_HANDLE; i++) {
        VkPhysicalDeviceFeatures features;
        vkGetPhysicalDeviceFeatures(gpus[i], &features);
        if (!features.tessellationShader ||
            !layer_has_device_extension(gpus[i], VK_GLSEM_TESSELLATION_DEFAULT_LEVELS_EXTENSION_NAME))
            continue;
        uint32_t family_count = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(gpus[i], &family_count, NULL);
        VkQueueFamilyProperties *families = calloc(family_count, sizeof(*families));
        vkGetPhysicalDeviceQueueFamilyProperties(gpus[i], &family_count, families);
        for (uint32_t f = 0; f < family_count; f++) {
            if (families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
                gpu = gpus[i];
                queue_family = f;
                break;
            }
        }
        free(families);
    }
    free(gpus);
    if (gpu == VK_NULL_HANDLE)
        fail("no device with tessellationShader and " VK_GLSEM_TESSELLATION_DEFAULT_LEVELS_EXTENSION_NAME);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkPhysicalDeviceFeatures enabled = {.tessellationShader = VK_TRUE};
    const char *device_extensions[] = {VK_GLSEM_TESSELLATION_DEFAULT_LEVELS_EXTENSION_NAME};
    VkDeviceCreateInfo device_info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue_info,
        .enabledExtensionCount = 1,
        .ppEnabledExtensionNames = device_extensions,
        .pEnabledFeatures = &enabled,
    };
    VkDevice device;
    CHECK(vkCreateDevice(gpu, &device_info, NULL, &device));
    VkQueue queue;
    vkGetDeviceQueue(device, queue_family, 0, &queue);

    PFN_vkCmdSetTessellationDefaultLevelsGLSEM set_default_levels =
        (PFN_vkCmdSetTessellationDefaultLevelsGLSEM)vkGetDeviceProcAddr(
            device, "vkCmdSetTessellationDefaultLevelsGLSEM");
    if (!set_default_levels)
        fail("vkGetDeviceProcAddr(vkCmdSetTessellationDefaultLevelsGLSEM) returned NULL");

    /* Colour target and a host-visible buffer to read it back. */
    VkImageCreateInfo image_info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .extent = {WIDTH, HEIGHT, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VkImage image;
    CHECK(vkCreateImage(device, &image_info, NULL, &image));
    VkMemoryRequirements image_reqs;
    vkGetImageMemoryRequirements(device, image, &image_reqs);
    VkMemoryAllocateInfo image_alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = image_reqs.size,
        .memoryTypeIndex = memory_type(gpu, image_reqs.memoryTypeBits, 0),
    };
    VkDeviceMemory image_memory;
    CHECK(vkAllocateMemory(device, &image_alloc, NULL, &image_memory));
    CHECK(vkBindImageMemory(device, image, image_memory, 0));
    VkImageViewCreateInfo view_info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    VkImageView view;
    CHECK(vkCreateImageView(device, &view_info, NULL, &view));

    VkBufferCreateInfo buffer_info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = WIDTH * HEIGHT * 4,
        .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    };
    VkBuffer readback;
    CHECK(vkCreateBuffer(device, &buffer_info, NULL, &readback));
    VkMemoryRequirements buffer_reqs;
    vkGetBufferMemoryRequirements(device, readback, &buffer_reqs);
    VkMemoryAllocateInfo buffer_alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = buffer_reqs.size,
        .memoryTypeIndex = memory_type(gpu, buffer_reqs.memoryTypeBits,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT),
    };
    VkDeviceMemory buffer_memory;
    CHECK(vkAllocateMemory(device, &buffer_alloc, NULL, &buffer_memory));
    CHECK(vkBindBufferMemory(device, readback, buffer_memory, 0));

    /* Render pass: clear to blue, keep the result for the copy. */
    VkAttachmentDescription attachment = {
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    };
    VkAttachmentReference color_ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass = {
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color_ref,
    };
    VkSubpassDependency to_copy = {
        .srcSubpass = 0,
        .dstSubpass = VK_SUBPASS_EXTERNAL,
        .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
        .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
    };
    VkRenderPassCreateInfo pass_info = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &attachment,
        .subpassCount = 1,
        .pSubpasses = &subpass,
        .dependencyCount = 1,
        .pDependencies = &to_copy,
    };
    VkRenderPass pass;
    CHECK(vkCreateRenderPass(device, &pass_info, NULL, &pass));
    VkFramebufferCreateInfo fb_info = {
        .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
        .renderPass = pass,
        .attachmentCount = 1,
        .pAttachments = &view,
        .width = WIDTH,
        .height = HEIGHT,
        .layers = 1,
    };
    VkFramebuffer framebuffer;
    CHECK(vkCreateFramebuffer(device, &fb_info, NULL, &framebuffer));

    /* The pipeline: VS + TES + FS, no TCS. The layout is the application's (empty); the
     * layer reserves the levels' push-constant range in it. */
    VkPipelineLayoutCreateInfo layout_info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
    };
    VkPipelineLayout layout;
    CHECK(vkCreatePipelineLayout(device, &layout_info, NULL, &layout));
    VkShaderModule vert = shader(device, argv[1]);
    VkShaderModule tese = shader(device, argv[2]);
    VkShaderModule frag = shader(device, argv[3]);
    VkPipelineShaderStageCreateInfo stages[3] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
         VK_SHADER_STAGE_VERTEX_BIT, vert, "main", NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
         VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, tese, "main", NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
         VK_SHADER_STAGE_FRAGMENT_BIT, frag, "main", NULL},
    };
    VkPipelineVertexInputStateCreateInfo vertex_input = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
    };
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST,
    };
    VkPipelineTessellationStateCreateInfo tessellation = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
        .patchControlPoints = 3,
    };
    VkViewport viewport = {0.0f, 0.0f, WIDTH, HEIGHT, 0.0f, 1.0f};
    VkRect2D scissor = {{0, 0}, {WIDTH, HEIGHT}};
    VkPipelineViewportStateCreateInfo viewport_state = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .pViewports = &viewport,
        .scissorCount = 1,
        .pScissors = &scissor,
    };
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo multisample = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
    };
    VkPipelineColorBlendAttachmentState blend_attachment = {
        .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                          VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT,
    };
    VkPipelineColorBlendStateCreateInfo blend = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &blend_attachment,
    };
    VkGraphicsPipelineCreateInfo pipeline_info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .stageCount = 3,
        .pStages = stages,
        .pVertexInputState = &vertex_input,
        .pInputAssemblyState = &assembly,
        .pTessellationState = &tessellation,
        .pViewportState = &viewport_state,
        .pRasterizationState = &raster,
        .pMultisampleState = &multisample,
        .pColorBlendState = &blend,
        .layout = layout,
        .renderPass = pass,
        .subpass = 0,
    };
    VkPipeline pipeline;
    CHECK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &pipeline));

    /* Record: levels for the left half before the bind (pushed on bind), levels for the
     * right half while bound (pushed at once). */
    VkCommandPoolCreateInfo pool_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .queueFamilyIndex = queue_family,
    };
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &pool_info, NULL, &pool));
    VkCommandBufferAllocateInfo cmd_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkCommandBuffer cmd;
    CHECK(vkAllocateCommandBuffers(device, &cmd_info, &cmd));
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    CHECK(vkBeginCommandBuffer(cmd, &begin));
    VkClearValue clear = {.color = {{0.0f, 0.0f, 1.0f, 1.0f}}};
    VkRenderPassBeginInfo pass_begin = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
        .renderPass = pass,
        .framebuffer = framebuffer,
        .renderArea = {{0, 0}, {WIDTH, HEIGHT}},
        .clearValueCount = 1,
        .pClearValues = &clear,
    };
    vkCmdBeginRenderPass(cmd, &pass_begin, VK_SUBPASS_CONTENTS_INLINE);
    const float left_outer[4] = {2.0f, 3.0f, 4.0f, 5.0f};
    const float left_inner[2] = {6.0f, 7.0f};
    const float right_outer[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    const float right_inner[2] = {0.5f, 6.5f};
    set_default_levels(cmd, left_outer, left_inner);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    vkCmdDraw(cmd, 6, 1, 0, 0);
    set_default_levels(cmd, right_outer, right_inner);
    vkCmdDraw(cmd, 6, 1, 6, 0);
    vkCmdEndRenderPass(cmd);
    VkBufferImageCopy region = {
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {WIDTH, HEIGHT, 1},
    };
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &region);
    VkBufferMemoryBarrier to_host = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .buffer = readback,
        .size = VK_WHOLE_SIZE,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
                         NULL, 1, &to_host, 0, NULL);
    CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &cmd,
    };
    CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
    CHECK(vkQueueWaitIdle(queue));

    /* Every pixel green: both halves were covered and saw exactly their levels. */
    uint8_t *pixels;
    CHECK(vkMapMemory(device, buffer_memory, 0, VK_WHOLE_SIZE, 0, (void **)&pixels));
    int bad = 0;
    for (uint32_t y = 0; y < HEIGHT && !bad; y++) {
        for (uint32_t x = 0; x < WIDTH && !bad; x++) {
            const uint8_t *p = pixels + 4 * (y * WIDTH + x);
            if (p[0] != 0 || p[1] != 255 || p[2] != 0 || p[3] != 255) {
                fprintf(stderr,
                        "tes_only: pixel (%u, %u) is %u %u %u %u, expected 0 255 0 255 "
                        "(red: wrong levels in the TES; blue: not drawn)\n",
                        x, y, p[0], p[1], p[2], p[3]);
                bad = 1;
            }
        }
    }
    vkUnmapMemory(device, buffer_memory);

    vkDestroyCommandPool(device, pool, NULL);
    vkDestroyPipeline(device, pipeline, NULL);
    vkDestroyShaderModule(device, vert, NULL);
    vkDestroyShaderModule(device, tese, NULL);
    vkDestroyShaderModule(device, frag, NULL);
    vkDestroyPipelineLayout(device, layout, NULL);
    vkDestroyFramebuffer(device, framebuffer, NULL);
    vkDestroyRenderPass(device, pass, NULL);
    vkDestroyBuffer(device, readback, NULL);
    vkFreeMemory(device, buffer_memory, NULL);
    vkDestroyImageView(device, view, NULL);
    vkDestroyImage(device, image, NULL);
    vkFreeMemory(device, image_memory, NULL);
    vkDestroyDevice(device, NULL);
    if (messenger != VK_NULL_HANDLE) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy_messenger(instance, messenger, NULL);
    }
    vkDestroyInstance(instance, NULL);

    if (validation_errors)
        fail("validation errors (see above)");
    if (bad)
        return 1;
    printf("tes_only: both halves drawn with their default levels\n");
    return 0;
}
