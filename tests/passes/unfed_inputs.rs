//! `unfed_inputs`: an attribute no array feeds reads GL's current value, initially
//! (0, 0, 0, 1) (GL 4.6 §10.2–10.3): each unfed input becomes a `Private` variable so
//! initialized.

use crate::inspect::{compile, def, valid};

use glsem_spirv::module::Module;
use glsem_spirv::unfed_inputs::default_unfed_inputs;
use spirv::{Decoration, Op, StorageClass};

/// The scalar words of constant `id`, composites flattened.
fn constant_words(m: &Module<'_>, id: u32) -> Vec<u32> {
    let c = def(m, id);
    match c.op() {
        Some(Op::Constant) => vec![c.operand(2)],
        Some(Op::ConstantComposite) => c.operands()[2..]
            .iter()
            .flat_map(|&part| constant_words(m, part))
            .collect(),
        other => panic!("not a constant: {other:?}"),
    }
}

#[test]
fn unfed_inputs_start_at_gl_initial_current_value() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("unfed_inputs", "inputs.vert", env);
        let out = default_unfed_inputs(&words, "main", &[0])
            .unwrap()
            .expect("locations 1 to 5 are unfed");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        let mut initial = Vec::new();
        for &var in m.globals.keys() {
            let inst = m.insts.at(m.globals[&var]);
            if inst.op() != Some(Op::Variable) {
                continue;
            }
            match m.variable(var) {
                Some((StorageClass::Private, _)) => {
                    assert!(m.decoration(var, Decoration::Location).is_none());
                    initial.push(constant_words(&m, inst.operand(3)));
                }
                Some((StorageClass::Input, _)) => {
                    assert_eq!(m.decoration(var, Decoration::Location), Some(&[0][..]));
                }
                _ => {}
            }
        }
        initial.sort();
        let (zero, one) = (0.0f32.to_bits(), 1.0f32.to_bits());
        let mut expected = vec![
            vec![zero, zero, zero],       // vec3: (0, 0, 0)
            vec![0, 0],                   // ivec2: (0, 0)
            vec![zero, zero, zero, zero], // mat2: each column (0, 0)
            vec![zero, zero, zero, one],  // vec4: (0, 0, 0, 1)
        ];
        expected.sort();
        assert_eq!(initial, expected);
    }
}
