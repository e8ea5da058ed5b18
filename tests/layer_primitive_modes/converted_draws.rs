//! Draws the layer converts on the GPU (`converted_draws`: the application's indices and
//! indirect commands read by the layer's compute shader, in the command stream): GL's line
//! loops, and GL's quads, quad strips and polygons on the index route
//! (`primitive_mode_route = indices`, what a device without `geometryShader` gets), for
//! indexed draws of 8-, 16- and 32-bit indices, indirect and indexed-indirect draws with
//! `drawCount` 2 (every mode through every kind: the last test), primitive restart (GL 4.6 core 10.3.6: a new
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
const INDEX_TYPE_UINT8: &std::ffi::CStr = c"VK_EXT_index_type_uint8";
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
    // 8-bit indices where the driver has them (lavapipe does).
    let mut uint8 = vk::PhysicalDeviceIndexTypeUint8FeaturesEXT::default().index_type_uint8(true);
    let device = match has_device_extension(&instance, INDEX_TYPE_UINT8) {
        true => instance.device_with_core(&[GL_STATE, INDEX_TYPE_UINT8], core, &mut [&mut uint8]),
        false => instance.device_with_core(&[GL_STATE], core, &mut []),
    };
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

/// `indices` in `index_type` (8- and 16-bit values packed four and two a word).
fn packed(indices: &[u32], index_type: vk::IndexType) -> Vec<u32> {
    let per_word = match index_type {
        vk::IndexType::UINT8_EXT => 4,
        vk::IndexType::UINT16 => 2,
        _ => 1,
    };
    let bits = 32 / per_word;
    indices
        .chunks(per_word)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0, |word, (i, &index)| word | index << (bits * i))
        })
        .collect()
}

/// `indices` with [`RESTART`] replaced by `index_type`'s restart index (all ones).
fn restart_in(indices: &[u32], index_type: vk::IndexType) -> Vec<u32> {
    let restart = match index_type {
        vk::IndexType::UINT8_EXT => 0xFF,
        vk::IndexType::UINT16 => 0xFFFF,
        _ => u32::MAX,
    };
    indices
        .iter()
        .map(|&i| if i == RESTART { restart } else { i })
        .collect()
}

/// Where a primitive restart goes in the index lists below.
const RESTART: u32 = u32::MAX;

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

/// What GL draws for one of the index lists below.
#[derive(Clone, Copy)]
enum Expected {
    /// `ring.vert`'s closed loop ([`closed`]).
    Closed,
    /// Each half of the target in the flat colour of `(left, right)`'s vertex.
    Halves(u32, u32),
    /// `ring.vert`'s square filled: the 4 pixels inside its border.
    Inside,
}

impl Expected {
    fn check(self, image: &[u8], what: &str) {
        match self {
            Expected::Closed => closed(image, what),
            Expected::Halves(left, right) => {
                let halves: Vec<u8> = (0..RENDER_SIZE * RENDER_SIZE)
                    .map(|i| match i % RENDER_SIZE < RENDER_SIZE / 2 {
                        true => red_of(left),
                        false => red_of(right),
                    })
                    .collect();
                assert_eq!(reds(image), halves, "{what}");
            }
            Expected::Inside => {
                let mut inside = lit(image);
                inside.sort();
                assert_eq!(inside, [(1, 1), (1, 2), (2, 1), (2, 2)], "{what}");
            }
        }
    }
}

/// One GL mode: its shaders, an index list and a restarted one with what GL draws for each,
/// and a vertex count with what GL's non-indexed draw of `0, 1, …` draws.
struct ModeCase {
    name: &'static str,
    mode: PrimitiveMode,
    shaders: (&'static str, &'static str),
    indices: (&'static [u32], Expected),
    restarted: (&'static [u32], Expected),
    vertices: (u32, Expected),
}

/// Each mode the layer converts, with indices whose GL result is known: a quad's flat colour
/// is its 4th vertex's (GL 4.6 compatibility table 13.2), a strip's quad i is provoked by
/// vertex 2i + 3, a restart begins a new primitive of the same mode and drops an unfinished
/// one (GL 4.6 core 10.3.6).
fn mode_cases() -> [ModeCase; 4] {
    let strip = ("layer/quad_strip.vert", "layer/flat_color.frag");
    [
        ModeCase {
            name: "GL_LINE_LOOP",
            mode: PrimitiveMode::LINE_LOOP,
            shaders: RING,
            indices: (&[0, 1, 2, 3], Expected::Closed),
            // `0 1` closed back over itself, then the loop: the restart joins nothing.
            restarted: (&[0, 1, RESTART, 0, 1, 2, 3], Expected::Closed),
            vertices: (4, Expected::Closed),
        },
        ModeCase {
            name: "GL_QUADS",
            mode: PrimitiveMode::QUADS,
            shaders: QUADS,
            indices: (&SWAPPED, Expected::Halves(1, 4)),
            restarted: (
                &[0, 1, RESTART, 4, 5, 6, 7, RESTART, 0, 1, 2, 3],
                Expected::Halves(3, 7),
            ),
            vertices: (8, Expected::Halves(3, 7)),
        },
        ModeCase {
            name: "GL_QUAD_STRIP",
            mode: PrimitiveMode::QUAD_STRIP,
            shaders: strip,
            // The 7th index makes no quad.
            indices: (&[0, 1, 2, 3, 4, 5, 6], Expected::Halves(3, 5)),
            restarted: (&[0, 1, 2, 3, RESTART, 2, 3, 4, 5], Expected::Halves(3, 5)),
            vertices: (7, Expected::Halves(3, 5)),
        },
        ModeCase {
            name: "GL_POLYGON",
            mode: PrimitiveMode::POLYGON,
            shaders: RING,
            indices: (&[0, 1, 2, 3], Expected::Inside),
            // A polygon of two vertices draws nothing.
            restarted: (&[0, 1, RESTART, 0, 1, 2, 3], Expected::Inside),
            vertices: (4, Expected::Inside),
        },
    ]
}

#[test]
fn every_mode_through_every_draw_kind_index_type_and_restart() {
    let _serial = serial();
    let mut index_types = vec![vk::IndexType::UINT16, vk::IndexType::UINT32];
    if has_device_extension(&index_route_instance(), INDEX_TYPE_UINT8) {
        index_types.insert(0, vk::IndexType::UINT8_EXT);
    }
    for case in mode_cases() {
        let name = case.name;
        for &index_type in &index_types {
            for (restart, (list, expected)) in [(false, case.indices), (true, case.restarted)] {
                let indices = restart_in(list, index_type);
                let n = indices.len() as u32;
                let image = convert(case.mode, restart, case.shaders, |device, instance| {
                    indexed(device, instance, &indices, index_type, None)
                });
                let what = format!("{name}, vkCmdDrawIndexed, {index_type:?}, restart {restart}");
                expected.check(&image, &what);
                // The list twice over in the buffer, one command each (drawCount 2).
                let twice = [&indices[..], &indices[..]].concat();
                let commands = [[n, 1, 0, 0, 0], [n, 1, n, 0, 0]];
                let image = convert(case.mode, restart, case.shaders, |device, instance| {
                    indexed(device, instance, &twice, index_type, Some(&commands))
                });
                let what = format!(
                    "{name}, vkCmdDrawIndexedIndirect x2, {index_type:?}, restart {restart}"
                );
                expected.check(&image, &what);
            }
        }
        let (count, expected) = case.vertices;
        let image = convert(case.mode, false, case.shaders, |device, instance| {
            non_indexed_indirect(device, instance, &[count, 1, 0, 0, count, 1, 0, 0])
        });
        expected.check(&image, &format!("{name}, vkCmdDrawIndirect x2"));
    }
}
