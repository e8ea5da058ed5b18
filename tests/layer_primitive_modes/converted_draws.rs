//! Draws the layer converts on the GPU (`converted_draws`: the application's indices and
//! indirect commands read by the layer's compute shader, in the command stream): GL's line
//! loops, and GL's quads, quad strips and polygons on the index route
//! (`primitive_mode_route = indices`, what a device without `geometryShader` gets), for
//! indexed draws of 16- and 32-bit indices (8-bit: `tests/scenes/prim_line_loop_restart`),
//! indirect and
//! indexed-indirect draws with `drawCount` 2, primitive restart (GL 4.6 core 10.3.6: a new
//! primitive of the same mode begins; a quad begun before it is dropped), and indices
//! written earlier in the same command buffer; through the loader, lavapipe and the
//! validation layer. Quads take each quad's 4th index's flat colour (GL 4.6 compatibility
//! table 13.2); a loop lights `ring.vert`'s border, its closing segment the left column.

use crate::index_route::{assert_clean_but_settings, index_route_instance};
use crate::primitive_modes::{
    border, buffer_of, desc_in_mode, gl_mode, lit, red_of, reds, two_quads, QUADS,
};
use crate::support::*;
use ash::vk;
use glsem_abi::PrimitiveMode;

const GL_STATE: &std::ffi::CStr = c"VK_GLSEM_gl_state";
const RING: (&str, &str) = ("layer/ring.vert", "layer/plain.frag");

/// What a test records: the buffers it made, what it records before the render pass
/// begins, and its draw (after the bind).
struct Recording<'a> {
    buffers: Vec<HostBuffer>,
    before: Box<dyn FnOnce(vk::CommandBuffer) + 'a>,
    draw: Box<dyn FnOnce(vk::CommandBuffer) + 'a>,
}

/// Draws `vs` + `fs` in GL's `mode` (quads on the index route), primitive restart on where
/// `restart`, recording what `record` makes; the image. No validation message may come.
fn convert(
    mode: PrimitiveMode,
    restart: bool,
    (vs, fs): (&str, &str),
    record: impl for<'a> FnOnce(&'a Device, &Instance) -> Recording<'a>,
) -> Vec<u8> {
    let instance = index_route_instance();
    let core = vk::PhysicalDeviceFeatures::default().multi_draw_indirect(true);
    let device = instance.device_with_core(&[GL_STATE], core, &mut []);
    let (vs, fs) = (device.module(&glsl(vs)), device.module(&glsl(fs)));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let gl_mode = gl_mode(mode);
    let mut desc = desc_in_mode(&gl_mode, (vs, fs), layout, pass);
    // A strip topology, so that restart is valid for what the application names; the
    // layer draws GL's mode.
    desc.topology = vk::PrimitiveTopology::TRIANGLE_STRIP;
    desc.primitive_restart = restart;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let Recording {
        buffers,
        before,
        draw,
    } = record(&device, &instance);
    let images = device.render_after(&instance, pipelines[0], pass, (1, 0), before, draw);
    for buffer in buffers {
        device.destroy_buffer(buffer);
    }
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    assert_clean_but_settings(&instance);
    images.into_iter().next().unwrap()
}

/// `indices` in `index_type` (16-bit values packed two a word).
fn packed(indices: &[u32], index_type: vk::IndexType) -> Vec<u32> {
    match index_type {
        vk::IndexType::UINT16 => indices
            .chunks(2)
            .map(|pair| pair[0] | pair.get(1).map_or(0, |high| high << 16))
            .collect(),
        _ => indices.to_vec(),
    }
}

/// An indexed draw of `indices` in `index_type`: `vkCmdDrawIndexed` of them all, or (with
/// `commands`) `vkCmdDrawIndexedIndirect` of those `VkDrawIndexedIndirectCommand`s.
fn indexed<'a>(
    device: &'a Device,
    instance: &Instance,
    indices: &[u32],
    index_type: vk::IndexType,
    commands: Option<&[[u32; 5]]>,
) -> Recording<'a> {
    let index_buffer = buffer_of(
        device,
        instance,
        &packed(indices, index_type),
        vk::BufferUsageFlags::INDEX_BUFFER,
    );
    let (buffer, count) = (index_buffer.buffer, indices.len() as u32);
    let mut buffers = vec![index_buffer];
    let command_buffer = commands.map(|commands| {
        let words: Vec<u32> = commands.iter().flatten().copied().collect();
        let args = buffer_of(
            device,
            instance,
            &words,
            vk::BufferUsageFlags::INDIRECT_BUFFER,
        );
        let handle = (args.buffer, commands.len() as u32);
        buffers.push(args);
        handle
    });
    Recording {
        buffers,
        before: Box::new(|_| {}),
        draw: Box::new(move |cb| unsafe {
            let d = &device.device;
            d.cmd_bind_index_buffer(cb, buffer, 0, index_type);
            match command_buffer {
                Some((args, draws)) => d.cmd_draw_indexed_indirect(cb, args, 0, draws, 20),
                None => d.cmd_draw_indexed(cb, count, 1, 0, 0, 0),
            }
        }),
    }
}

/// A `vkCmdDrawIndirect` of the `VkDrawIndirectCommand`s in `words` (four words each).
fn non_indexed_indirect<'a>(
    device: &'a Device,
    instance: &Instance,
    words: &[u32],
) -> Recording<'a> {
    let args = buffer_of(
        device,
        instance,
        words,
        vk::BufferUsageFlags::INDIRECT_BUFFER,
    );
    let (buffer, draws) = (args.buffer, (words.len() / 4) as u32);
    Recording {
        buffers: vec![args],
        before: Box::new(|_| {}),
        draw: Box::new(move |cb| unsafe {
            device.device.cmd_draw_indirect(cb, buffer, 0, draws, 16)
        }),
    }
}

/// The right quad first, its corners from the second: each quad's 4th index provokes it.
const SWAPPED: [u32; 8] = [5, 6, 7, 4, 2, 3, 0, 1];

/// The left half in vertex 1's colour, the right in vertex 4's: [`SWAPPED`] drawn.
fn swapped_quads() -> Vec<u8> {
    (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| match i % RENDER_SIZE < RENDER_SIZE / 2 {
            true => red_of(1),
            false => red_of(4),
        })
        .collect()
}

#[test]
fn indexed_quads_of_16_and_32_bit_indices_take_each_quads_fourth_index() {
    let _serial = serial();
    for index_type in [vk::IndexType::UINT16, vk::IndexType::UINT32] {
        let image = convert(PrimitiveMode::QUADS, false, QUADS, |device, instance| {
            indexed(device, instance, &SWAPPED, index_type, None)
        });
        assert_eq!(reds(&image), swapped_quads(), "{index_type:?}");
    }
}

#[test]
fn indirect_quads_draw_every_command_of_a_multi_draw() {
    let _serial = serial();
    // Two VkDrawIndexedIndirectCommands, a quad each: indices 0-3, then 4-7.
    let commands = [[4, 1, 0, 0, 0], [4, 1, 4, 0, 0]];
    let image = convert(PrimitiveMode::QUADS, false, QUADS, |device, instance| {
        indexed(
            device,
            instance,
            &SWAPPED,
            vk::IndexType::UINT32,
            Some(&commands),
        )
    });
    assert_eq!(reds(&image), swapped_quads());
    // Two VkDrawIndirectCommands: vertices 4-7, then 0-3.
    let image = convert(PrimitiveMode::QUADS, false, QUADS, |device, instance| {
        non_indexed_indirect(device, instance, &[4, 1, 4, 0, 4, 1, 0, 0])
    });
    assert_eq!(reds(&image), two_quads(0, 1));
}

#[test]
fn restart_begins_a_new_quad_and_drops_the_unfinished_one() {
    let _serial = serial();
    // `0 1` is dropped at the first restart; then the right quad, then the left one.
    let indices = [0, 1, 0xFFFF, 4, 5, 6, 7, 0xFFFF, 0, 1, 2, 3];
    let image = convert(PrimitiveMode::QUADS, true, QUADS, |device, instance| {
        indexed(device, instance, &indices, vk::IndexType::UINT16, None)
    });
    assert_eq!(reds(&image), two_quads(0, 1));
}

#[test]
fn indices_written_earlier_in_the_command_buffer_are_the_ones_drawn() {
    let _serial = serial();
    let image = convert(PrimitiveMode::QUADS, false, QUADS, |device, instance| {
        let words = packed(&SWAPPED, vk::IndexType::UINT32);
        // The buffer holds 0..8 when recording; the command buffer writes SWAPPED into it
        // before the render pass, with the barrier an application makes for index reads.
        let indices = buffer_of(
            device,
            instance,
            &[0, 1, 2, 3, 4, 5, 6, 7],
            vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        );
        let buffer = indices.buffer;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Recording {
            buffers: vec![indices],
            before: Box::new(move |cb| unsafe {
                let d = &device.device;
                d.cmd_update_buffer(cb, buffer, 0, &bytes);
                let barrier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::INDEX_READ);
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::VERTEX_INPUT,
                    vk::DependencyFlags::empty(),
                    &[barrier],
                    &[],
                    &[],
                );
            }),
            draw: Box::new(move |cb| unsafe {
                let d = &device.device;
                d.cmd_bind_index_buffer(cb, buffer, 0, vk::IndexType::UINT32);
                d.cmd_draw_indexed(cb, 8, 1, 0, 0, 0);
            }),
        }
    });
    assert_eq!(reds(&image), swapped_quads());
}

/// Whether a loop's pixels are `ring.vert`'s border: on drivers whose lines are not GL's
/// diamond-exit ones, its left column at least (the closing segment).
fn closed(image: &[u8], what: &str) {
    let lit = lit(image);
    if lit != border() && !on_lavapipe() {
        assert!(
            lit.contains(&(0, 1)) && lit.contains(&(0, 2)),
            "{what}: {lit:?}"
        );
        return;
    }
    assert_eq!(lit, border(), "{what}");
}

#[test]
fn indexed_indirect_and_restarted_line_loops_are_closed() {
    let _serial = serial();
    for index_type in [vk::IndexType::UINT16, vk::IndexType::UINT32] {
        let image = convert(PrimitiveMode::LINE_LOOP, false, RING, |device, instance| {
            indexed(device, instance, &[0, 1, 2, 3], index_type, None)
        });
        closed(&image, &format!("vkCmdDrawIndexed, {index_type:?}"));
    }
    // Two commands, the same loop from indices 4-7 (vertices 4-7 are ring.vert's 0-3).
    let commands = [[4, 1, 0, 0, 0], [4, 1, 4, 0, 0]];
    let image = convert(PrimitiveMode::LINE_LOOP, false, RING, |device, instance| {
        let indices = [0, 1, 2, 3, 4, 5, 6, 7];
        indexed(
            device,
            instance,
            &indices,
            vk::IndexType::UINT32,
            Some(&commands),
        )
    });
    closed(&image, "vkCmdDrawIndexedIndirect, drawCount 2");
    let image = convert(PrimitiveMode::LINE_LOOP, false, RING, |device, instance| {
        non_indexed_indirect(device, instance, &[4, 1, 0, 0])
    });
    closed(&image, "vkCmdDrawIndirect");
    // The loop drawn as `0 1` (one segment, closed back over itself), restart, `0 1 2 3`:
    // each closed; the restart joins nothing.
    let image = convert(PrimitiveMode::LINE_LOOP, true, RING, |device, instance| {
        let indices = [0, 1, 0xFFFF, 0, 1, 2, 3];
        indexed(device, instance, &indices, vk::IndexType::UINT16, None)
    });
    closed(&image, "restarted");
}

#[test]
fn indexed_quad_strips_and_polygons_are_drawn_from_their_indices() {
    let _serial = serial();
    let strip = ("layer/quad_strip.vert", "layer/flat_color.frag");
    // Quad i of a strip is vertices 2i, 2i+1, 2i+3, 2i+2, provoked by 2i+3: the left half
    // from vertex 3, the right from vertex 5 (quad_strip.vert).
    let halves: Vec<u8> = (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| match i % RENDER_SIZE < RENDER_SIZE / 2 {
            true => red_of(3),
            false => red_of(5),
        })
        .collect();
    let image = convert(
        PrimitiveMode::QUAD_STRIP,
        false,
        strip,
        |device, instance| {
            indexed(
                device,
                instance,
                &[0, 1, 2, 3, 4, 5, 6],
                vk::IndexType::UINT32,
                None,
            )
        },
    );
    assert_eq!(reds(&image), halves, "the 7th index makes no quad");
    // Restart: `0 1 2 3` is the left quad, `2 3 4 5` after it the right one (a strip begun
    // again), each provoked by its own 4th vertex.
    let indices = [0, 1, 2, 3, 0xFFFF, 2, 3, 4, 5];
    let image = convert(
        PrimitiveMode::QUAD_STRIP,
        true,
        strip,
        |device, instance| indexed(device, instance, &indices, vk::IndexType::UINT16, None),
    );
    assert_eq!(reds(&image), halves, "restarted strip");
    // A polygon of ring.vert's square, from indices through an indexed-indirect draw: its
    // inside filled (the pixels 1..2 of the 4x4 target), nothing outside.
    let commands = [[4, 1, 0, 0, 0]];
    let image = convert(PrimitiveMode::POLYGON, false, RING, |device, instance| {
        indexed(
            device,
            instance,
            &[0, 1, 2, 3],
            vk::IndexType::UINT32,
            Some(&commands),
        )
    });
    let mut inside = lit(&image);
    inside.sort();
    assert_eq!(inside, [(1, 1), (1, 2), (2, 1), (2, 2)]);
}
