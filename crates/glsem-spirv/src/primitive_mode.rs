//! GL's quads, quad strips and polygons, drawn through a generated geometry shader
//! (docs/semantics.md, "primitive_mode").
//!
//! Vulkan has no topology for them, so the layer draws them with one whose primitives carry
//! exactly the vertices GL's primitive has, and a geometry shader that turns each into what
//! GL rasterizes; indexed, instanced, indirect and restarted draws need no index rewriting:
//!
//! | GL mode | topology | geometry shader input, per primitive |
//! | --- | --- | --- |
//! | `GL_QUADS` | `LINE_LIST_WITH_ADJACENCY` | the quad's 4 vertices |
//! | `GL_QUAD_STRIP` | `LINE_STRIP_WITH_ADJACENCY` | vertices i..i+3; quad i/2 when i is even, odd primitives emit nothing |
//! | `GL_POLYGON` | `TRIANGLE_FAN` | (v0, v(i+1), v(i+2)) under the last-vertex convention, (v(i+1), v(i+2), v0) under the first |
//!
//! What GL requires of them (GL 4.6 compatibility, table 13.2, 11.1.3.9, 14.6.4) and how:
//! - **Flat values** come from the quad's last vertex (quad strip: vertex 2i+2 of quad i) under
//!   the last-vertex convention, and from its first under the first-vertex one
//!   (`QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION` is true, as on Mesa), a polygon's from its
//!   first vertex under either. Filled, the quad is cut into two triangles along the diagonal
//!   from the provoking vertex, each emitted with that vertex where the pipeline's convention
//!   takes it; drawn as lines or points, every vertex takes the provoking vertex's values of
//!   the outputs the vertex shader declares `Flat`.
//! - **Polygon mode** `GL_LINE` draws a quad's own four edges (a closed line strip), never
//!   the diagonal; `GL_POINT` its four vertices. A polygon's closing edge is unknown to the
//!   shader (it sees one fan triangle at a time), so a polygon in `GL_LINE` mode is refused.
//! - **`gl_PrimitiveID`** counts quads (a strip's primitive i is quad i/2), 0 for a polygon.
//! - The triangles keep the quad's winding, so culling and `gl_FrontFacing` follow it.
//! - Everything else the vertex shader writes (its GL state, rewritten by the layer before,
//!   as the last stage it was) is copied unchanged, so every other semantic holds.

use super::error::PassError;
use super::module::{Editor, Instruction, Module, Name, Type};
use super::rule::{Rule, Semantic, SplitInterface};
use super::stage_writer::{interface_decoration, module_head, Source, StageWriter};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

/// GL's primitive modes drawn through the geometry shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlPrimitive {
    Quads,
    QuadStrip,
    Polygon,
}

/// What the rasterizer draws of a polygon (the pipeline's `polygonMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rasterized {
    Fill,
    Lines,
    Points,
}

/// Face culling the geometry shader does itself: drawn as lines or points, a quad reaches
/// the rasterizer as no polygon, but GL culls it as one before its polygon mode applies
/// (GL 4.6 compatibility 14.6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Culling {
    /// A primitive running counter-clockwise in normalized device coordinates (x right,
    /// y up) is front-facing: what the pipeline's front face and viewport make of it.
    pub front_ccw: bool,
    pub cull_front: bool,
    pub cull_back: bool,
}

/// What the generated geometry shader depends on besides the vertex shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PrimitiveGsKey {
    pub primitive: GlPrimitive,
    pub rasterized: Rasterized,
    /// The pipeline's provoking vertex mode is the last vertex (GL's convention).
    pub provoking_last: bool,
    /// The geometry shader may write `gl_PointSize` (`shaderTessellationAndGeometryPointSize`):
    /// points it emits take the vertex shader's size.
    pub point_size: bool,
    /// The pipeline culls faces (static state): lines and points of culled quads and
    /// polygons are not emitted.
    pub culling: Option<Culling>,
    /// The Location where the vertex shader passes the layer's copy of `gl_Layer` to a
    /// fragment shader made apart (possibly past what a geometry shader may read): the
    /// geometry shader writes it itself, as 0, the layer of a vertex shader that writes
    /// none (one that writes `gl_Layer` is refused).
    pub layer_copy: Option<u32>,
    /// The first of the Locations where the vertex shader writes the fragment line route's
    /// varyings for a fragment shader made apart ([`crate::line_fragment::LOCATIONS`] of
    /// them, at the device's last ones, past what a geometry shader may read): the geometry
    /// shader writes them itself, as 0. Its own lines are not on the route (the fragment
    /// side does not test them: the vertex shader's step is untested).
    pub route_copy: Option<u32>,
}

impl PrimitiveGsKey {
    /// Whether the geometry shader writes Location `location` itself (as 0) in place of
    /// passing the vertex shader's on: gl_Layer's copy and the line route's varyings.
    fn written_here(&self, location: u32) -> bool {
        self.layer_copy == Some(location)
            || self.route_copy.is_some_and(|first| {
                (first..first + crate::line_fragment::LOCATIONS).contains(&location)
            })
    }
}

/// Builds the geometry shader that draws `key.primitive` after the vertex shader `vs`
/// (entry point `vs_entry`).
pub fn build_primitive_gs(
    vs: &[u32],
    vs_entry: &str,
    key: &PrimitiveGsKey,
) -> Result<Vec<u32>, PassError> {
    if key.primitive == GlPrimitive::Polygon && key.rasterized == Rasterized::Lines {
        return Err(unsupported(
            "GL_POLYGON in polygon mode GL_LINE (its closing edge is not known to a geometry \
             shader)"
                .into(),
        ));
    }
    let vs_module = Module::parse(vs)?;
    let ep = vs_module
        .entry_point(vs_entry, ExecutionModel::Vertex)
        .ok_or_else(|| unsupported(format!("no Vertex entry point {vs_entry:?}")))?;
    let head = module_head(&vs_module, Capability::Geometry);
    let head = Module::parse(&head)?;
    // Transform feedback captures the last stage: the geometry shader's outputs carry the
    // vertex shader's XFB decorations, and GL's quads and polygons are captured as the
    // triangles it emits.
    let captures = vs_module.has_execution_mode(ep.function, ExecutionMode::Xfb);
    let mut g = GsWriter {
        w: StageWriter::new(Editor::new(&head)),
        vertices: input_vertices(key.primitive),
        copies: Vec::new(),
        primitive_id: (0, 0),
        output_decoration: if captures {
            captured_decoration
        } else {
            interface_decoration
        },
    };
    if key.point_size && key.rasterized == Rasterized::Points {
        g.w.e.add_capability(Capability::GeometryPointSize);
    }
    for &var in &ep.interface {
        let Some((StorageClass::Output, pointee)) = vs_module.variable(var) else {
            continue;
        };
        if vs_module.is_builtin_block(pointee) {
            g.per_vertex_block(&vs_module, var, pointee, key)?;
            continue;
        }
        let location = vs_module.decoration(var, Decoration::Location);
        match vs_module.decoration(var, Decoration::BuiltIn) {
            None if location.is_some_and(|l| key.written_here(l[0])) => {
                g.zeroed_output(&vs_module, var, pointee)?
            }
            None => g.varying(&vs_module, var, pointee)?,
            Some(&[builtin]) => {
                if gs_writes(builtin, key) {
                    g.varying(&vs_module, var, pointee)?;
                } else if !gs_may_drop(builtin) {
                    return Err(unsupported(format!(
                        "a vertex shader writing BuiltIn {builtin}, which a geometry shader \
                         cannot read"
                    )));
                }
            }
            Some(_) => return Err(unsupported(format!("malformed BuiltIn on %{var}"))),
        }
    }
    let primitive_id = g.primitive_id(key.primitive);
    match key.culling.filter(|_| key.rasterized != Rasterized::Fill) {
        Some(culling) => {
            let kept = g.not_culled(key.primitive, culling, key.provoking_last);
            g.only_if(kept, |g| g.emit_all(key, primitive_id));
        }
        None => g.emit_all(key, primitive_id),
    }
    let (output, max_vertices) = match (key.primitive, key.rasterized) {
        (_, Rasterized::Fill) => (ExecutionMode::OutputTriangleStrip, 6),
        (_, Rasterized::Lines) => (ExecutionMode::OutputLineStrip, 5),
        (GlPrimitive::Polygon, Rasterized::Points) => (ExecutionMode::OutputPoints, 3),
        (_, Rasterized::Points) => (ExecutionMode::OutputPoints, 4),
    };
    let input = match key.primitive {
        GlPrimitive::Polygon => ExecutionMode::Triangles,
        _ => ExecutionMode::InputLinesAdjacency,
    };
    let max_vertices = [max_vertices];
    let mut modes: Vec<(ExecutionMode, &[u32])> = vec![
        (input, &[]),
        (ExecutionMode::Invocations, &[1]),
        (output, &[]),
        (ExecutionMode::OutputVertices, &max_vertices),
    ];
    if captures {
        modes.push((ExecutionMode::Xfb, &[]));
    }
    g.w.finish(&vs_module, ExecutionModel::Geometry, &modes, &[])
}

fn unsupported(what: String) -> PassError {
    PassError::Unsupported(what)
}

/// The decorations of a captured output: its interface's and its transform feedback's.
fn captured_decoration(d: Decoration) -> bool {
    interface_decoration(d)
        || matches!(
            d,
            Decoration::XfbBuffer | Decoration::XfbStride | Decoration::Offset | Decoration::Stream
        )
}

/// Whether the geometry shader passes on the vertex shader's `builtin`: the position, the
/// clip and cull distances, and the point size of the points it emits where it may write
/// one.
fn gs_writes(builtin: u32, key: &PrimitiveGsKey) -> bool {
    match builtin {
        b if b == BuiltIn::Position as u32
            || b == BuiltIn::ClipDistance as u32
            || b == BuiltIn::CullDistance as u32 =>
        {
            true
        }
        b if b == BuiltIn::PointSize as u32 => {
            key.point_size && key.rasterized == Rasterized::Points
        }
        _ => false,
    }
}

/// Whether a `builtin` the geometry shader does not pass on changes nothing drawn (a point
/// size where no point is drawn); any other (`gl_Layer`, `gl_ViewportIndex`) a geometry
/// shader cannot read back.
fn gs_may_drop(builtin: u32) -> bool {
    builtin == BuiltIn::PointSize as u32
}

/// Where a fan triangle's v0, v(i+1) and v(i+2) arrive in `gl_in`: Vulkan orders a fan's
/// vertices by the provoking vertex mode.
fn fan_inputs(provoking_last: bool) -> [u32; 3] {
    match provoking_last {
        true => [0, 1, 2],
        false => [2, 0, 1],
    }
}

/// The vertices of one input primitive.
fn input_vertices(primitive: GlPrimitive) -> u32 {
    match primitive {
        GlPrimitive::Quads | GlPrimitive::QuadStrip => 4,
        GlPrimitive::Polygon => 3,
    }
}

/// One output the shader copies: `ty` from `input[vertex]` to `output`, or from member
/// `member.0` of `input[vertex]` to member `member.1` of `output`, or zero where `input` is
/// `None`; `flat`: the vertex shader declares it `Flat`.
struct Copy {
    ty: u32,
    input: Option<u32>,
    output: u32,
    member: Option<(u32, u32)>,
    flat: bool,
}

/// The geometry shader being written: a [`StageWriter`] over the vertex shader's
/// [`module_head`] and the outputs it copies.
struct GsWriter<'m, 'a> {
    w: StageWriter<'m, 'a>,
    vertices: u32,
    copies: Vec<Copy>,
    /// `gl_PrimitiveID` and the value every vertex writes to it.
    primitive_id: (u32, u32),
    /// The decorations its outputs (and their types) take from the vertex shader's.
    output_decoration: fn(Decoration) -> bool,
}

impl GsWriter<'_, '_> {
    /// `in[vertices]` and `out` for an output of the vertex shader (user-defined, or a
    /// built-in outside `gl_PerVertex`).
    fn varying(&mut self, vs: &Module<'_>, var: u32, pointee: u32) -> Result<(), PassError> {
        let located = vs.has_decoration(var, Decoration::Location)
            || vs.has_decoration(var, Decoration::BuiltIn)
            || vs
                .member_decorations
                .get(&pointee)
                .is_some_and(|d| d.iter().any(|(_, dec, _)| *dec == Decoration::Location));
        if !located {
            return Err(unsupported(format!(
                "vertex shader output %{var} has no Location"
            )));
        }
        let ty = self
            .w
            .copy_type(vs, Source::Vertex, pointee, self.output_decoration)?;
        let name = vs.names.get(&var).map(Name::decode).unwrap_or_default();
        let in_array = self.w.e.type_array(ty, self.vertices);
        let input = self
            .w
            .variable(StorageClass::Input, in_array, &format!("{name}_in"));
        let output = self.w.variable(StorageClass::Output, ty, &name);
        self.w
            .copy_decorations(vs, var, input, interface_decoration);
        self.w
            .copy_decorations(vs, var, output, self.output_decoration);
        self.copies.push(Copy {
            ty,
            input: Some(input),
            output,
            member: None,
            flat: vs.has_decoration(var, Decoration::Flat),
        });
        Ok(())
    }

    /// An output like the vertex shader's `var`, written with zero.
    fn zeroed_output(&mut self, vs: &Module<'_>, var: u32, pointee: u32) -> Result<(), PassError> {
        let ty = self
            .w
            .copy_type(vs, Source::Vertex, pointee, self.output_decoration)?;
        let name = vs.names.get(&var).map(Name::decode).unwrap_or_default();
        let output = self.w.variable(StorageClass::Output, ty, &name);
        self.w
            .copy_decorations(vs, var, output, self.output_decoration);
        self.copies.push(Copy {
            ty,
            input: None,
            output,
            member: None,
            flat: false,
        });
        Ok(())
    }

    /// Mirrors `gl_PerVertex`: `gl_in[]` has the vertex shader's block; `gl_out` the members
    /// a geometry shader may write (`gl_PointSize` only where it writes it).
    fn per_vertex_block(
        &mut self,
        vs: &Module<'_>,
        var: u32,
        block: u32,
        key: &PrimitiveGsKey,
    ) -> Result<(), PassError> {
        let Some(Type::Struct { members }) = vs.type_of(block) else {
            unreachable!("is_builtin_block checked the struct");
        };
        let members = members.clone();
        let in_block = self
            .w
            .copy_type(vs, Source::Vertex, block, interface_decoration)?;
        let in_array = self.w.e.type_array(in_block, self.vertices);
        let input = self.w.variable(StorageClass::Input, in_array, "gl_in");
        let mut kept = Vec::new();
        for (i, &member) in members.iter().enumerate() {
            let Some(builtin) = vs.member_builtin(block, i as u32) else {
                continue;
            };
            let written = gs_writes(builtin, key);
            if written {
                let ty = self
                    .w
                    .copy_type(vs, Source::Vertex, member, interface_decoration)?;
                kept.push((i as u32, ty, builtin));
            }
        }
        if kept.is_empty() {
            return Ok(());
        }
        let out_members: Vec<u32> = kept.iter().map(|&(_, ty, _)| ty).collect();
        let out_block = self.w.e.type_struct(&out_members);
        self.w.e.decorate(out_block, Decoration::Block, &[]);
        let member_decorations = vs.member_decorations.get(&block);
        for (j, &(i, _, builtin)) in kept.iter().enumerate() {
            self.w
                .e
                .member_decorate(out_block, j as u32, Decoration::BuiltIn, &[builtin]);
            // A captured built-in keeps its XFB offset.
            for (_, d, lits) in member_decorations
                .into_iter()
                .flatten()
                .filter(|(member, d, _)| *member == i && *d != Decoration::BuiltIn)
            {
                if (self.output_decoration)(*d) {
                    self.w.e.member_decorate(out_block, j as u32, *d, lits);
                }
            }
        }
        self.w.e.name(out_block, "gl_PerVertex");
        let output = self.w.variable(StorageClass::Output, out_block, "");
        self.w
            .copy_decorations(vs, var, output, self.output_decoration);
        for (j, &(i, ty, _)) in kept.iter().enumerate() {
            self.copies.push(Copy {
                ty,
                input: Some(input),
                output,
                member: Some((i, j as u32)),
                flat: false,
            });
        }
        Ok(())
    }

    /// Writes `gl_PrimitiveID`: quads counted from `gl_PrimitiveIDIn`. Returns the id of
    /// `gl_PrimitiveIDIn`'s value.
    fn primitive_id(&mut self, primitive: GlPrimitive) -> u32 {
        let int = self.w.e.type_int(32, true);
        let input = self.w.builtin(
            StorageClass::Input,
            int,
            "gl_PrimitiveIDIn",
            BuiltIn::PrimitiveId,
        );
        let output = self.w.builtin(
            StorageClass::Output,
            int,
            "gl_PrimitiveID",
            BuiltIn::PrimitiveId,
        );
        let (e, code) = (&mut self.w.e, &mut self.w.body);
        let incoming = e.load(code, int, input);
        let quad = match primitive {
            GlPrimitive::Quads => incoming,
            GlPrimitive::QuadStrip => {
                let one = e.constant_i32(1);
                e.binary(code, Op::ShiftRightArithmetic, int, incoming, one)
            }
            GlPrimitive::Polygon => e.constant_i32(0),
        };
        self.primitive_id = (output, quad);
        incoming
    }

    /// Copies every output from input vertex `vertex` (the `Flat` ones from `provoking`),
    /// then `OpEmitVertex`.
    fn emit_vertex(&mut self, vertex: u32, provoking: Option<u32>) {
        let (primitive_id, value) = self.primitive_id;
        self.w.e.store(&mut self.w.body, primitive_id, value);
        for k in 0..self.copies.len() {
            let c = &self.copies[k];
            let (ty, input, output, member, flat) = (c.ty, c.input, c.output, c.member, c.flat);
            let source = match (flat, provoking) {
                (true, Some(p)) => p,
                _ => vertex,
            };
            let e = &mut self.w.e;
            let Some(input) = input else {
                let zero = e.constant_null(ty);
                e.store(&mut self.w.body, output, zero);
                continue;
            };
            let index = e.constant_i32(source as i32);
            match member {
                None => self.w.copy_element(ty, (input, &[index]), (output, &[])),
                Some((i, j)) => {
                    let (i, j) = (e.constant_i32(i as i32), e.constant_i32(j as i32));
                    self.w
                        .copy_element(ty, (input, &[index, i]), (output, &[j]));
                }
            }
        }
        Instruction::emit_vertex().append_to(&mut self.w.body);
    }

    fn end_primitive(&mut self) {
        Instruction::end_primitive().append_to(&mut self.w.body);
    }

    /// Emits `vertices` (input indices) as one primitive.
    fn primitive(&mut self, vertices: &[u32], provoking: Option<u32>) {
        for &v in vertices {
            self.emit_vertex(v, provoking);
        }
        self.end_primitive();
    }

    /// Runs `body` only where `condition` (a bool id) holds.
    fn only_if(&mut self, condition: u32, body: impl FnOnce(&mut Self)) {
        let (then, merge) = (self.w.e.new_id(), self.w.e.new_id());
        let code = &mut self.w.body;
        Instruction::selection_merge(merge, 0).append_to(code);
        Instruction::branch_conditional(condition, then, merge).append_to(code);
        Instruction::label(then).append_to(code);
        body(self);
        let code = &mut self.w.body;
        Instruction::branch(merge).append_to(code);
        Instruction::label(merge).append_to(code);
    }

    /// Whether the input primitive survives `culling`, as a bool id: its facing from the
    /// signed area of its perimeter in normalized device coordinates.
    fn not_culled(
        &mut self,
        primitive: GlPrimitive,
        culling: Culling,
        provoking_last: bool,
    ) -> u32 {
        let Some(&Copy {
            input: Some(input),
            member: Some((position, _)),
            ..
        }) = self.copies.iter().find(|c| c.member.is_some())
        else {
            // No gl_Position reaches the shader: nothing to tell the facing from.
            return self.w.e.constant_bool(true);
        };
        let fan = fan_inputs(provoking_last);
        let perimeter: &[u32] = match primitive {
            GlPrimitive::Quads => &[0, 1, 2, 3],
            GlPrimitive::QuadStrip => &[0, 1, 3, 2],
            GlPrimitive::Polygon => &fan,
        };
        let (e, code) = (&mut self.w.e, &mut self.w.body);
        let float = e.type_float(32);
        let vec4 = e.type_vector(float, 4);
        let boolean = e.type_bool();
        let member = e.constant_i32(position as i32);
        let corners: Vec<(u32, u32)> = perimeter
            .iter()
            .map(|&v| {
                let index = e.constant_i32(v as i32);
                let p = e.access_chain_to(code, StorageClass::Input, vec4, input, &[index, member]);
                let p = e.load(code, vec4, p);
                let [x, y, w] = [0, 1, 3].map(|c| e.composite_extract(code, float, p, &[c]));
                (
                    e.binary(code, Op::FDiv, float, x, w),
                    e.binary(code, Op::FDiv, float, y, w),
                )
            })
            .collect();
        // Twice the signed area: the sum of x_i y_(i+1) - x_(i+1) y_i around the perimeter.
        let mut area = e.constant_f32(0.0);
        for (i, &(x0, y0)) in corners.iter().enumerate() {
            let (x1, y1) = corners[(i + 1) % corners.len()];
            let a = e.f_mul(code, float, x0, y1);
            let b = e.f_mul(code, float, x1, y0);
            let cross = e.binary(code, Op::FSub, float, a, b);
            area = e.f_add(code, float, area, cross);
        }
        let zero = e.constant_f32(0.0);
        let ccw = e.binary(code, Op::FOrdGreaterThan, boolean, area, zero);
        let front = match culling.front_ccw {
            true => ccw,
            false => e.unary(code, Op::LogicalNot, boolean, ccw),
        };
        let kept_if_front = e.constant_bool(!culling.cull_front);
        let kept_if_back = e.constant_bool(!culling.cull_back);
        e.select(code, boolean, front, kept_if_front, kept_if_back)
    }

    /// `gl_PrimitiveIDIn & mask == value`, as a bool id.
    fn primitive_id_is(&mut self, primitive_id: u32, mask: i32, value: i32) -> u32 {
        let (e, code) = (&mut self.w.e, &mut self.w.body);
        let int = e.type_int(32, true);
        let boolean = e.type_bool();
        let mask = e.constant_i32(mask);
        let value = e.constant_i32(value);
        let masked = e.bitwise_and(code, int, primitive_id, mask);
        e.binary(code, Op::IEqual, boolean, masked, value)
    }

    /// The primitives GL draws of one input primitive.
    fn emit_all(&mut self, key: &PrimitiveGsKey, primitive_id: u32) {
        match key.primitive {
            GlPrimitive::Quads => self.quad([0, 1, 2, 3], key),
            GlPrimitive::QuadStrip => {
                // Primitive i of the adjacency strip holds vertices i..i+3: quad i/2 when i
                // is even; its perimeter runs 2i, 2i+1, 2i+3, 2i+2.
                let even = self.primitive_id_is(primitive_id, 1, 0);
                self.only_if(even, |g| g.quad([0, 1, 3, 2], key));
            }
            GlPrimitive::Polygon => {
                // Fan triangle i arrives as (v0, v(i+1), v(i+2)) under the last-vertex
                // convention and as (v(i+1), v(i+2), v0) under the first (Vulkan's fan
                // order follows the provoking vertex mode); v0 provokes.
                let [v0, next, after] = fan_inputs(key.provoking_last);
                let first_triangle = self.primitive_id_is(primitive_id, -1, 0);
                match key.rasterized {
                    Rasterized::Fill if key.provoking_last => {
                        self.primitive(&[next, after, v0], Some(v0))
                    }
                    Rasterized::Fill => self.primitive(&[v0, next, after], Some(v0)),
                    // Every vertex once: v0 and v1 with the first triangle, v(i+2) with each.
                    Rasterized::Points | Rasterized::Lines => {
                        self.only_if(first_triangle, |g| {
                            g.primitive(&[v0], Some(v0));
                            g.primitive(&[next], Some(v0));
                        });
                        self.primitive(&[after], Some(v0));
                    }
                }
            }
        }
    }

    /// One quad with perimeter `p` (input indices in GL's order around it).
    fn quad(&mut self, p: [u32; 4], key: &PrimitiveGsKey) {
        // The provoking vertex's place on the perimeter: the quad's last vertex (a strip's
        // 2i+2) or its first.
        let at = match (key.provoking_last, key.primitive) {
            (true, GlPrimitive::QuadStrip) => 2,
            (true, _) => 3,
            (false, _) => 0,
        };
        let v = |k: usize| p[(at + k) % 4];
        match key.rasterized {
            // Two triangles cut along the diagonal from the provoking vertex, each naming it
            // where the convention takes it; both keep the quad's winding. The outputs the
            // vertex shader declares flat take its values at every vertex too, whatever
            // vertex the rasterizer takes them from.
            Rasterized::Fill if key.provoking_last => {
                self.primitive(&[v(1), v(2), v(0)], Some(v(0)));
                self.primitive(&[v(2), v(3), v(0)], Some(v(0)));
            }
            Rasterized::Fill => {
                self.primitive(&[v(0), v(1), v(2)], Some(v(0)));
                self.primitive(&[v(0), v(2), v(3)], Some(v(0)));
            }
            Rasterized::Lines => self.primitive(&[p[0], p[1], p[2], p[3], p[0]], Some(v(0))),
            Rasterized::Points => {
                for corner in p {
                    self.primitive(&[corner], Some(v(0)));
                }
            }
        }
    }
}

/// The step: GL's quads, quad strips or polygons through a geometry shader the layer
/// generates after the vertex shader (as it is after every other step).
impl Rule for PrimitiveGsKey {
    const SEMANTIC: Semantic = Semantic::PrimitiveMode;

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "GL's {:?} drawn through a generated geometry shader ({:?}, provoking vertex {})",
            self.primitive,
            self.rasterized,
            if self.provoking_last { "last" } else { "first" }
        )
    }
}

/// The step's pipeline state: GL's line loops, a line strip the layer closes on
/// non-indexed draws.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CloseLineLoops;

impl Rule for CloseLineLoops {
    const SEMANTIC: Semantic = Semantic::PrimitiveMode;
    const NOTE: &'static str =
        "GL's line loops: a line strip closed by the layer on non-indexed draws";
}

/// How a device draws GL's quads, quad strips and polygons (setting `primitive_mode_route`;
/// `auto` takes [`PrimitiveRoute::Geometry`] where the device enabled `geometryShader`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrimitiveRoute {
    /// A generated geometry shader ([`PrimitiveGsKey`]): every draw kind.
    Geometry,
    /// No geometry shader ([`IndexedPrimitive`]): the pipeline draws a triangle, line or
    /// point list, and each non-indexed draw becomes an indexed draw of the layer's.
    Indices,
}

/// The step of the route without a geometry shader: the pipeline draws
/// [`IndexedPrimitive::list`] (the layer sets the topology) and every `vkCmdDraw` of it
/// becomes an indexed draw of [`IndexedPrimitive::index_count`] indices from a buffer of
/// the layer's holding [`IndexedPrimitive::indices`], offset by the draw's first vertex.
///
/// The indices give what the geometry shader gives: each quad cut along the diagonal from
/// its provoking vertex into two triangles that name it where the convention takes it,
/// both winding as the quad (a quad strip's quad i runs 2i, 2i+1, 2i+3, 2i+2); a polygon a
/// fan from its first vertex, which provokes every triangle; drawn as lines, a quad's four
/// edges (a polygon's, closed by a second draw), never a diagonal; as points, its corners.
/// Incomplete trailing primitives are dropped. `gl_PrimitiveID` is the fragment shader's
/// business ([`GlPrimitiveId`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexedPrimitive {
    pub primitive: GlPrimitive,
    pub rasterized: Rasterized,
    /// The pipeline's provoking vertex mode is the last vertex (GL's convention).
    pub provoking_last: bool,
}

/// The list a pipeline on the index route draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum List {
    Triangles,
    Lines,
    Points,
}

impl IndexedPrimitive {
    /// The list topology the pipeline draws.
    pub fn list(&self) -> List {
        match self.rasterized {
            Rasterized::Fill => List::Triangles,
            Rasterized::Lines => List::Lines,
            Rasterized::Points => List::Points,
        }
    }

    /// The indices of one period (a quad; a polygon's triangle, edge or vertex), relative
    /// to its first vertex, except a polygon's `0`, which is the polygon's first vertex
    /// (see [`IndexedPrimitive::indices`]).
    pub fn period(&self) -> &'static [u32] {
        use GlPrimitive::*;
        use Rasterized::*;
        match (self.primitive, self.rasterized, self.provoking_last) {
            // Cut along the diagonal from the provoking vertex (the 4th, else the 1st).
            (Quads, Fill, true) => &[0, 1, 3, 1, 2, 3],
            (Quads, Fill, false) => &[0, 1, 2, 0, 2, 3],
            (Quads, Lines, _) => &[0, 1, 1, 2, 2, 3, 3, 0],
            (Quads, Points, _) => &[0, 1, 2, 3],
            // Quad i's perimeter runs 2i, 2i+1, 2i+3, 2i+2; 2i+3 provokes under the last
            // vertex convention, 2i under the first (as the geometry shader cuts it).
            (QuadStrip, Fill, true) => &[2, 0, 3, 0, 1, 3],
            (QuadStrip, Fill, false) => &[0, 1, 3, 0, 3, 2],
            (QuadStrip, Lines, _) => &[0, 1, 1, 3, 3, 2, 2, 0],
            (QuadStrip, Points, _) => &[0, 1, 3, 2],
            // Fan triangle i: (v(i+1), v(i+2), v0) or (v0, v(i+1), v(i+2)); v0 provokes.
            (Polygon, Fill, true) => &[1, 2, 0],
            (Polygon, Fill, false) => &[0, 1, 2],
            (Polygon, Lines, _) => &[0, 1],
            (Polygon, Points, _) => &[0],
        }
    }

    /// The vertices from one period to the next.
    pub fn stride(&self) -> u32 {
        match self.primitive {
            GlPrimitive::Quads => 4,
            GlPrimitive::QuadStrip => 2,
            GlPrimitive::Polygon => 1,
        }
    }

    /// The periods a draw of `vertex_count` vertices makes: GL drops an incomplete
    /// trailing quad, the odd vertex of a quad strip, and a polygon of fewer than three
    /// vertices.
    pub fn periods(&self, vertex_count: u32) -> u32 {
        match self.primitive {
            GlPrimitive::Quads => vertex_count / 4,
            GlPrimitive::QuadStrip if vertex_count >= 4 => (vertex_count - 2) / 2,
            GlPrimitive::Polygon if vertex_count >= 3 => match self.rasterized {
                Rasterized::Fill => vertex_count - 2,
                // Its edges but the closing one ([`IndexedPrimitive::closing_edge`]).
                Rasterized::Lines => vertex_count - 1,
                Rasterized::Points => vertex_count,
            },
            _ => 0,
        }
    }

    /// The indices a draw of `vertex_count` vertices takes from the start of the buffer.
    pub fn index_count(&self, vertex_count: u32) -> u64 {
        u64::from(self.periods(vertex_count)) * self.period().len() as u64
    }

    /// Drawn as lines, a polygon's closing edge `(n − 1, 0)` is a draw of its own.
    pub fn closing_edge(&self) -> bool {
        self.primitive == GlPrimitive::Polygon && self.rasterized == Rasterized::Lines
    }

    /// The buffer's indices for `periods` periods (draws of up to that many).
    pub fn indices(&self, periods: u32) -> Vec<u32> {
        let (period, stride) = (self.period(), self.stride());
        let polygon = self.primitive == GlPrimitive::Polygon;
        (0..periods)
            .flat_map(|p| {
                period.iter().map(move |&i| match (polygon, i) {
                    // A fan's centre: the polygon's first vertex, in every period.
                    (true, 0) if self.rasterized == Rasterized::Fill => 0,
                    _ => p * stride + i,
                })
            })
            .collect()
    }

    /// What the fragment shader's `gl_PrimitiveID` becomes: the list's primitive id shifted
    /// right by this (2 triangles, 4 lines or 4 points a quad), or 0 for a polygon (one a
    /// draw).
    pub fn primitive_id(&self) -> GlPrimitiveId {
        match (self.primitive, self.rasterized) {
            (GlPrimitive::Polygon, _) => GlPrimitiveId { shift: None },
            (_, Rasterized::Fill) => GlPrimitiveId { shift: Some(1) },
            _ => GlPrimitiveId { shift: Some(2) },
        }
    }
}

impl Rule for IndexedPrimitive {
    const SEMANTIC: Semantic = Semantic::PrimitiveMode;

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "GL's {:?} drawn as a {:?} list of the layer's indices on non-indexed draws \
             (provoking vertex {})",
            self.primitive,
            self.list(),
            if self.provoking_last { "last" } else { "first" }
        )
    }
}

/// The fragment shader's `gl_PrimitiveID` on the index route: counts GL's primitives, not
/// the list's (`shift`: the list's primitives a GL primitive makes, as a power of two;
/// `None`: always 0, a polygon being the one primitive of its draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlPrimitiveId {
    pub shift: Option<u32>,
}

impl Rule for GlPrimitiveId {
    const SEMANTIC: Semantic = Semantic::PrimitiveMode;
    const STAGE: Option<crate::rule::Stage> = Some(crate::rule::Stage::Fragment);
    const NOTE: &'static str = "gl_PrimitiveID counts GL's quads or polygons";

    fn rewrite(&self, words: &[u32], entry: &str) -> super::error::PassResult {
        gl_primitive_id(words, entry, self.shift)
    }
}

/// Rewrites every load of `PrimitiveId` in fragment entry point `entry` to
/// `PrimitiveId >> shift`, or to 0 where `shift` is `None`. `Ok(None)` when it reads none.
pub fn gl_primitive_id(words: &[u32], entry: &str, shift: Option<u32>) -> super::error::PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let Some((id, _)) = m
        .builtin_variables(ep, StorageClass::Input, BuiltIn::PrimitiveId)
        .next()
    else {
        return Ok(None);
    };
    let loads: Vec<usize> = m
        .call_tree_insts(ep.function)
        .filter(|&i| m.insts.at(i).op() == Some(Op::Load) && m.insts.at(i).operand(2) == id)
        .collect();
    if loads.is_empty() {
        return Ok(None);
    }
    let mut e = Editor::new(&m);
    for index in loads {
        let load = m.insts.at(index);
        let (ty, result) = (load.operand(0), load.operand(1));
        let ops = load.operands();
        let mut code = Vec::new();
        let value = e.load_with_access(&mut code, ty, ops[2], &ops[3..]);
        let (op, by) = match shift {
            Some(shift) => (Op::ShiftRightArithmetic, e.constant_i32(shift as i32)),
            None => (Op::BitwiseAnd, e.constant_i32(0)),
        };
        e.binary_as(&mut code, op, ty, result, value, by);
        e.replace(index, code);
    }
    Ok(Some(e.finish()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(primitive: GlPrimitive, rasterized: Rasterized, last: bool) -> IndexedPrimitive {
        IndexedPrimitive {
            primitive,
            rasterized,
            provoking_last: last,
        }
    }

    /// The indices a draw of `n` vertices takes.
    fn draw(p: IndexedPrimitive, n: u32) -> Vec<u32> {
        let mut all = p.indices(p.periods(n));
        all.truncate(p.index_count(n) as usize);
        all
    }

    /// Twice the signed area of triangle (a, b, c) of `points`.
    fn area(points: &[(f32, f32)], [a, b, c]: [u32; 3]) -> f32 {
        let (a, b, c) = (points[a as usize], points[b as usize], points[c as usize]);
        (b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1)
    }

    #[test]
    fn quads_provoke_from_their_4th_vertex_and_wind_as_the_quad() {
        // Two counter-clockwise quads and one incomplete (GL drops it).
        let points = [(0., 0.), (1., 0.), (1., 1.), (0., 1.)];
        let points: Vec<(f32, f32)> = (0..3)
            .flat_map(|q| points.map(|(x, y)| (x + 2. * q as f32, y)))
            .collect();
        let p = indexed(GlPrimitive::Quads, Rasterized::Fill, true);
        let indices = draw(p, 11);
        assert_eq!(indices, [0, 1, 3, 1, 2, 3, 4, 5, 7, 5, 6, 7]);
        for (t, tri) in indices.chunks(3).enumerate() {
            let quad = t as u32 / 2;
            assert_eq!(tri[2], 4 * quad + 3, "GL's provoking vertex, last");
            assert!(area(&points, [tri[0], tri[1], tri[2]]) > 0.0);
        }
        let first = draw(indexed(GlPrimitive::Quads, Rasterized::Fill, false), 4);
        assert_eq!(first, [0, 1, 2, 0, 2, 3]);
    }

    #[test]
    fn quad_strips_provoke_from_2i_plus_3_and_drop_the_odd_vertex() {
        // GL's 1-based quad i of a strip: 2i-1, 2i, 2i+2, 2i+1, provoked by 2i+2.
        let points: Vec<(f32, f32)> = (0..7).map(|v| ((v / 2) as f32, (v % 2) as f32)).collect();
        let p = indexed(GlPrimitive::QuadStrip, Rasterized::Fill, true);
        let indices = draw(p, 7);
        assert_eq!(indices.len(), 12);
        let winding = area(&points, [0, 1, 3]).signum();
        for (t, tri) in indices.chunks(3).enumerate() {
            let quad = t as u32 / 2;
            assert_eq!(tri[2], 2 * quad + 3);
            assert!(tri.iter().all(|&v| (2 * quad..2 * quad + 4).contains(&v)));
            assert_eq!(area(&points, [tri[0], tri[1], tri[2]]).signum(), winding);
        }
        assert!(draw(p, 3).is_empty());
        let lines = draw(indexed(GlPrimitive::QuadStrip, Rasterized::Lines, true), 6);
        assert_eq!(lines, [0, 1, 1, 3, 3, 2, 2, 0, 2, 3, 3, 5, 5, 4, 4, 2]);
    }

    #[test]
    fn polygons_are_fans_provoked_by_their_first_vertex() {
        let p = indexed(GlPrimitive::Polygon, Rasterized::Fill, true);
        assert_eq!(draw(p, 5), [1, 2, 0, 2, 3, 0, 3, 4, 0]);
        let first = indexed(GlPrimitive::Polygon, Rasterized::Fill, false);
        assert_eq!(draw(first, 4), [0, 1, 2, 0, 2, 3]);
        assert!(draw(p, 2).is_empty());
        let lines = indexed(GlPrimitive::Polygon, Rasterized::Lines, true);
        assert_eq!(draw(lines, 4), [0, 1, 1, 2, 2, 3]);
        assert!(lines.closing_edge());
        let points = indexed(GlPrimitive::Polygon, Rasterized::Points, true);
        assert_eq!(draw(points, 3), [0, 1, 2]);
    }

    #[test]
    fn quads_as_lines_are_their_four_edges_never_the_diagonal() {
        let p = indexed(GlPrimitive::Quads, Rasterized::Lines, true);
        assert_eq!(draw(p, 7), [0, 1, 1, 2, 2, 3, 3, 0]);
        assert_eq!(p.list(), List::Lines);
        assert_eq!(p.primitive_id(), GlPrimitiveId { shift: Some(2) });
    }
}
