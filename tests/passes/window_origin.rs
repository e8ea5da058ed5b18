//! `window_y`: GL's window y in a fragment shader (`tests/spirv/window_origin/`). GL counts window
//! y up from the bottom row; with a flipped (negative) viewport Vulkan's framebuffer y counts
//! the other way, so y-valued built-ins and y derivatives turn over; with a positive one only
//! `gl_PointCoord` (whose origin GL chooses) may.

use crate::inspect::{
    builtin_var, compile, def, from_push_constant, is_float, loads_of, uses, valid,
};

use crate::location_bound::every_topic_shader;
use glsem_spirv::gl_state::{BLOCK_SIZE, FLAG_POINT_SPRITE_LOWER_LEFT};
use glsem_spirv::module::Module;
use glsem_spirv::scan::{scan, scan_without_bodies, Summary};
use glsem_spirv::window_origin::{fix_window_y, WindowYKey};
use spirv::{BuiltIn, Op, StorageClass};

const ENVS: [&str; 2] = ["vulkan1.0", "vulkan1.2"];
const FLIPPED: WindowYKey = WindowYKey {
    flipped: true,
    block_offset: 128 - BLOCK_SIZE,
};
const LOWER_LEFT: WindowYKey = WindowYKey {
    flipped: false,
    ..FLIPPED
};

/// The value a load of a built-in's y becomes: the one instruction using the loaded y.
fn fixed_y(m: &Module<'_>, builtin: BuiltIn) -> Vec<u32> {
    let var = builtin_var(m, builtin, StorageClass::Input).expect("the built-in is read");
    let mut ys = Vec::new();
    for load in loads_of(m, var) {
        let loaded = load.operand(1);
        let whole = m
            .type_of(load.operand(0))
            .is_some_and(|t| matches!(t, glsem_spirv::module::Type::Vector { .. }));
        if !whole && m.constant_u32(def(m, load.operand(2)).operand(3)) != Some(1) {
            continue; // x: untouched
        }
        let y = if whole {
            let extract = uses(m, loaded)
                .into_iter()
                .find(|i| i.op() == Some(Op::CompositeExtract) && i.operands()[3..] == [1])
                .expect("the whole vector's y is taken out");
            extract.operand(1)
        } else {
            loaded
        };
        ys.push(y);
    }
    ys
}

#[test]
fn flipped_frag_coord_is_height_minus_y_and_dfdy_and_offsets_turn_over() {
    for env in ENVS {
        let words = compile("window_origin", "window.frag", env);
        let out = fix_window_y(&words, "main", FLIPPED)
            .unwrap()
            .expect("gl_FragCoord is read");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        let ys = fixed_y(&m, BuiltIn::FragCoord);
        assert_eq!(ys.len(), 2, "the whole vector and its y");
        for y in ys {
            let sub = uses(&m, y);
            assert_eq!(sub.len(), 1, "the Vulkan y feeds only H - y");
            assert_eq!(sub[0].op(), Some(Op::FSub));
            assert_eq!(sub[0].operand(3), y);
            assert!(
                from_push_constant(&m, sub[0].operand(2)),
                "H from the block"
            );
        }
        let derivatives: Vec<_> = m
            .insts
            .iter()
            .filter(|i| matches!(i.op(), Some(Op::DPdy | Op::DPdyFine | Op::DPdyCoarse)))
            .collect();
        assert_eq!(derivatives.len(), 3);
        for d in derivatives {
            let negated = uses(&m, d.operand(1));
            assert_eq!(negated.len(), 1);
            assert_eq!(negated[0].op(), Some(Op::FNegate), "dFdy changes sign");
        }
        let at = m
            .insts
            .iter()
            .find(|i| i.op() == Some(Op::ExtInst) && i.operand(3) == 78)
            .expect("interpolateAtOffset");
        let offset = def(&m, at.operand(5));
        assert_eq!(offset.op(), Some(Op::CompositeInsert));
        assert_eq!(offset.operands()[4..], [1], "the y of the offset");
        let negated = def(&m, offset.operand(2));
        assert_eq!(negated.op(), Some(Op::FNegate));
        let y = def(&m, negated.operand(2));
        assert_eq!(y.op(), Some(Op::CompositeExtract));
        assert_eq!((y.operand(2), y.operand(3)), (offset.operand(3), 1));
    }
}

#[test]
fn lower_left_leaves_frag_coord_and_derivatives_as_vulkan_has_them() {
    let words = compile("window_origin", "window.frag", "vulkan1.0");
    assert_eq!(fix_window_y(&words, "main", LOWER_LEFT).unwrap(), None);
}

/// `t`'s new value: `select(lower_left, when_set, when_clear)` of the Vulkan `t` and `1 - t`.
fn point_coord_select(key: WindowYKey, env: &str) -> (bool, bool) {
    let words = compile("window_origin", "point_coord.frag", env);
    let out = valid(fix_window_y(&words, "main", key).unwrap().unwrap(), env);
    let m = Module::parse(&out).unwrap();
    let ys = fixed_y(&m, BuiltIn::PointCoord);
    assert_eq!(ys.len(), 1);
    let t = ys[0];
    let select = uses(&m, t)
        .into_iter()
        .find(|i| i.op() == Some(Op::Select))
        .expect("t is chosen by the sprite origin");
    let condition = def(&m, select.operand(2));
    assert_eq!(condition.op(), Some(Op::INotEqual));
    let masked = def(&m, condition.operand(2));
    assert_eq!(masked.op(), Some(Op::BitwiseAnd));
    assert!(from_push_constant(&m, masked.operand(2)));
    let mask = def(&m, masked.operand(3));
    assert_eq!(mask.operand(2), FLAG_POINT_SPRITE_LOWER_LEFT);
    let is_one_minus_t = |id: u32| {
        let i = def(&m, id);
        i.op() == Some(Op::FSub) && is_float(&m, i.operand(2), 1.0) && i.operand(3) == t
    };
    let (when_set, when_clear) = (select.operand(3), select.operand(4));
    assert!(is_one_minus_t(when_set) != is_one_minus_t(when_clear));
    assert!(when_set == t || when_clear == t);
    (is_one_minus_t(when_set), is_one_minus_t(when_clear))
}

#[test]
fn point_coord_turns_over_where_gl_origin_and_viewport_disagree() {
    for env in ENVS {
        // Flipped: the framebuffer's top is GL's, so GL_UPPER_LEFT is Vulkan's t.
        assert_eq!(point_coord_select(FLIPPED, env), (true, false));
        // Positive viewport: the framebuffer's top is GL's bottom, so GL_LOWER_LEFT is.
        assert_eq!(point_coord_select(LOWER_LEFT, env), (false, true));
    }
}

#[test]
fn flipped_sample_position_counts_up_within_the_pixel() {
    for env in ENVS {
        let words = compile("window_origin", "sample_position.frag", env);
        let out = valid(fix_window_y(&words, "main", FLIPPED).unwrap().unwrap(), env);
        let m = Module::parse(&out).unwrap();
        let ys = fixed_y(&m, BuiltIn::SamplePosition);
        assert_eq!(ys.len(), 1);
        let sub = uses(&m, ys[0]);
        assert_eq!(sub.len(), 1);
        assert_eq!(sub[0].op(), Some(Op::FSub));
        assert!(is_float(&m, sub[0].operand(2), 1.0), "1 - y");
    }
    let words = compile("window_origin", "sample_position.frag", "vulkan1.0");
    assert_eq!(fix_window_y(&words, "main", LOWER_LEFT).unwrap(), None);
}

/// The scan tells the window-y step's fragment shaders from their header (`FragCoord`,
/// `PointCoord`, `interpolateAt*`) and, for a derivative alone, from their bodies; devices
/// where no rule reads window y (no `VK_GLSEM_gl_state`) take the scan without the bodies,
/// which differs from the whole scan in that alone, on every shader of every topic.
#[test]
fn the_scan_without_bodies_misses_only_a_derivative() {
    let words = compile("window_origin", "derivative_only.frag", "vulkan1.0");
    assert!(scan(&words).window_y, "a dFdy is GL's window y");
    assert!(!scan_without_bodies(&words).window_y);
    for name in ["window.frag", "point_coord.frag", "sample_position.frag"] {
        let words = compile("window_origin", name, "vulkan1.0");
        assert_eq!(scan_without_bodies(&words), scan(&words), "{name}");
    }
    let mut compared = 0;
    for (what, words) in every_topic_shader() {
        let whole = scan(&words);
        let header = scan_without_bodies(&words);
        let header_or_derivative = Summary {
            window_y: whole.window_y,
            ..header.clone()
        };
        assert_eq!(header_or_derivative, whole, "{what}");
        assert!(!header.window_y || whole.window_y, "{what}");
        compared += 1;
    }
    assert!(compared > 50, "only {compared} shaders compared");
}
