//! `instance_id`: GL's `gl_InstanceID` counts from 0 whatever the base instance (GL 4.6
//! §11.1.3.9), so every load of `InstanceIndex` becomes `InstanceIndex - BaseInstance`.

use crate::inspect::{builtin_var, compile, def, loads_of, uses, valid};

use glsem_spirv::instance_id::instance_id_without_base;
use glsem_spirv::module::Module;
use spirv::{BuiltIn, Capability, Op, StorageClass};

#[test]
fn every_instance_index_load_subtracts_the_base_instance() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("instance_id", "instance.vert", env);
        let out = instance_id_without_base(&words, "main")
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
