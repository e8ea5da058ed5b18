//! `instance_id`: GL's `gl_InstanceID` counts from 0 whatever the base instance (GL 4.6
//! §11.1.3.9), so every load of `InstanceIndex` becomes `InstanceIndex - BaseInstance`.

use crate::inspect::{builtin_var, compile, def, loads_of, uses, valid};

use glsem_spirv::gl_state::{BASE_INSTANCE, BLOCK_SIZE};
use glsem_spirv::instance_id::{instance_id_without_base, InstanceBase};
use glsem_spirv::module::Module;
use spirv::{BuiltIn, Capability, Op, StorageClass};

#[test]
fn every_instance_index_load_subtracts_the_base_instance() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("instance_id", "instance.vert", env);
        let out = instance_id_without_base(&words, "main", InstanceBase::BuiltIn)
            .unwrap()
            .expect("gl_InstanceIndex is read");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        assert!(m.declares_capability(Capability::DrawParameters));
        let index = builtin_var(&m, BuiltIn::InstanceIndex, StorageClass::Input).unwrap();
        let base = builtin_var(&m, BuiltIn::BaseInstance, StorageClass::Input)
            .expect("BaseInstance declared");
        let loads = loads_of(&m, index);
        assert_eq!(loads.len(), 2);
        for load in loads {
            let sub = uses(&m, load.operand(1));
            assert_eq!(sub.len(), 1, "only the subtraction sees Vulkan's index");
            assert_eq!(sub[0].op(), Some(Op::ISub));
            assert_eq!(sub[0].operand(2), load.operand(1));
            let base_load = def(&m, sub[0].operand(3));
            assert_eq!(
                (base_load.op(), base_load.operand(2)),
                (Some(Op::Load), base)
            );
        }
    }
}

/// Without `shaderDrawParameters` there is no `BaseInstance`: the base comes from the
/// GL-state block's `base_instance`, which the layer pushes at each draw.
#[test]
fn without_draw_parameters_the_base_is_read_from_the_gl_state_block() {
    let block_offset = 128 - BLOCK_SIZE;
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("instance_id", "instance.vert", env);
        let out = instance_id_without_base(&words, "main", InstanceBase::GlState { block_offset })
            .unwrap()
            .expect("gl_InstanceIndex is read");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        assert!(!m.declares_capability(Capability::DrawParameters));
        assert!(builtin_var(&m, BuiltIn::BaseInstance, StorageClass::Input).is_none());
        let index = builtin_var(&m, BuiltIn::InstanceIndex, StorageClass::Input).unwrap();
        let loads = loads_of(&m, index);
        assert_eq!(loads.len(), 2);
        for load in loads {
            let sub = uses(&m, load.operand(1));
            assert_eq!(sub[0].op(), Some(Op::ISub));
            // InstanceIndex - int(block.base_instance), the member at the block's +36.
            let cast = def(&m, sub[0].operand(3));
            assert_eq!(cast.op(), Some(Op::Bitcast));
            let base_load = def(&m, cast.operand(2));
            assert_eq!(base_load.op(), Some(Op::Load));
            let chain = def(&m, base_load.operand(2));
            assert_eq!(chain.op(), Some(Op::AccessChain));
            let (storage, block) = m.variable(chain.operand(2)).unwrap();
            assert_eq!(storage, StorageClass::PushConstant);
            let member = m.constant_u32(chain.operand(3)).unwrap();
            assert_eq!(
                m.member_decoration_literal(block, member, spirv::Decoration::Offset),
                Some(block_offset + BASE_INSTANCE)
            );
        }
    }
}
