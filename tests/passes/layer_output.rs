//! `layer_output`: a layer written on a framebuffer that is not layered has no effect (GL 3.2
//! core §4.4.7), so before every emit the written `gl_Layer` is gated by the block's flag.

use crate::inspect::{builtin_var, compile, def, from_push_constant, valid};

use spirv::{BuiltIn, Op, StorageClass};
use VkLayer_glsem::spirv::gl_state::{BLOCK_SIZE, FLAG_LAYERED};
use VkLayer_glsem::spirv::layer_output::gate_layer;
use VkLayer_glsem::spirv::module::Module;

#[test]
fn every_emit_writes_layered_then_layer_else_zero() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("layer_output", "layer.geom", env);
        let out = gate_layer(&words, "main", 128 - BLOCK_SIZE)
            .unwrap()
            .expect("gl_Layer is written");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        let layer = builtin_var(&m, BuiltIn::Layer, StorageClass::Output).unwrap();
        let emits: Vec<usize> = (0..m.insts.len())
            .filter(|&i| m.insts[i].op() == Some(Op::EmitVertex))
            .collect();
        assert!(!emits.is_empty());
        for emit in emits {
            let store = &m.insts[emit - 1];
            assert_eq!(
                store.op(),
                Some(Op::Store),
                "the gate right before the emit"
            );
            assert_eq!(store.operand(0), layer);
            let select = def(&m, store.operand(1));
            assert_eq!(select.op(), Some(Op::Select));
            let written = def(&m, select.operand(3));
            assert_eq!((written.op(), written.operand(2)), (Some(Op::Load), layer));
            assert_eq!(
                m.constant_u32(select.operand(4)),
                Some(0),
                "layer 0 otherwise"
            );
            let condition = def(&m, select.operand(2));
            let masked = def(&m, condition.operand(2));
            assert_eq!(masked.op(), Some(Op::BitwiseAnd));
            assert!(from_push_constant(&m, masked.operand(2)));
            assert_eq!(m.constant_u32(masked.operand(3)), Some(FLAG_LAYERED));
        }
    }
}
