//! GL's compatibility profile (`GL COMPAT >= x.y`, and GLSL 1.10-1.30, its languages),
//! emulated on the core-profile runner.
//!
//! glslang compiles no compatibility-profile GLSL for Vulkan, nor desktop GLSL below 1.40,
//! and Vulkan has no fixed-function state. [`lower`] rewrites a compatibility scene into a
//! core one that does what GL's compatibility profile does (GL 3.2 compatibility, GLSL 1.50
//! compatibility, GLSL 1.10-1.30), so that the rest of the runner plays it unchanged:
//!
//! - The conventional vertex position `gl_Vertex` is generic attribute 0, which piglit binds
//!   to `piglit_vertex` (and `draw rect` feeds it when the program has no `piglit_vertex`):
//!   it becomes the input `piglit_vertex`.
//! - The built-in matrices become uniforms: `ortho` is piglit's `glOrtho` into the
//!   projection matrix with an identity modelview; both start as identity.
//! - The compatibility varyings (`gl_FrontColor`, `gl_BackColor`, their secondary colours,
//!   `gl_TexCoord[]`, `gl_ClipVertex`) travel in one interface block that every stage of the
//!   program declares alike, each colour with the interpolation qualifier a shader
//!   redeclares it with (`flat out vec4 gl_BackColor;`; `gl_Color` names the front and back
//!   colour). The fragment shader's `gl_Color` / `gl_SecondaryColor` are the front colours,
//!   or, where the scene enables `GL_VERTEX_PROGRAM_TWO_SIDE`, the back colours of
//!   back-facing primitives; where it sets `shade model flat`, the colours no qualifier
//!   names also travel flat, and the fragment shader reads that copy while the shade model
//!   is flat (uniforms `glsem_TwoSide`, `glsem_ShadeFlat`).
//! - The last stage before rasterization clamps the colours to [0, 1] as it emits a vertex
//!   (`GL_CLAMP_VERTEX_COLOR` is `GL_TRUE` by default).
//! - User clip planes: `clip plane i a b c d` is `glClipPlane` with the identity modelview,
//!   so the eye-space plane is the given one. When the last stage writes no
//!   `gl_ClipDistance`, it writes clip distance i = dot(clip vertex, plane i) for the eight
//!   planes, the clip vertex being `gl_ClipVertex` where that stage writes it, else
//!   `gl_Position`; `enable GL_CLIP_PLANEi` selects them through the layer's GL state.
//! - Without a fragment shader, fixed-function fragment processing (no texturing, fog or
//!   colour sum enabled) outputs the interpolated primary colour.
//! - `attribute` / `varying` become `in` / `out`; sources below GLSL 1.50 compile as 1.50,
//!   names they may use that later GLSL made keywords renamed, GLSL 1.10's texture
//!   functions as the GLSL 1.30 ones (`shadow*` returning GL's depth texture mode's vec4).
//! - A vertex shader's `gl_Color` is an input fed GL's current colour (`color`);
//!   `gl_MultiTexCoord0` is `piglit_texcoord`; `ftransform()` the modelview-projection
//!   transform. Without a vertex stage, GL's fixed-function one is generated.
//! - Display lists (`newlist`, `endlist`, `calllist`, `deletelist`) are played out: the
//!   commands GL compiles into a list are replayed where it is called.
//!
//! GL's primitive modes (`GL_QUADS`, `GL_QUAD_STRIP`, `GL_POLYGON`) are not lowered here: the
//! player draws them through the layer's primitive-mode API (`VK_GLSEM_gl_state`).
//! Anything else of the compatibility profile (other built-ins, lighting, texture
//! coordinates as attributes, ...) makes the scene SKIP naming it.

use std::collections::{BTreeMap, BTreeSet};

use crate::scene::{
    Command, CompatCommand, DepthMode, Limit, Line, ScalarKind, Scene, SceneError, Shader,
    ShaderStage, Uniform, UniformData, CLIP_PLANES,
};

/// GL_MAX_TEXTURE_COORDS where a program never sizes `gl_TexCoord` (Mesa's value).
const TEX_COORDS: u32 = 8;

/// Rewrites a compatibility scene into a core one (see the module documentation); leaves a
/// core scene as it is.
pub fn lower(scene: &mut Scene) -> Result<(), SceneError> {
    if !scene.require.compat {
        return Ok(());
    }
    let commands = play_lists(std::mem::take(&mut scene.commands))?;
    let pre_rasterization = [
        ShaderStage::Vertex,
        ShaderStage::TessControl,
        ShaderStage::TessEval,
        ShaderStage::Geometry,
    ];
    if !scene.passthrough_vs && !pre_rasterization.iter().any(|&s| scene.has_stage(s)) {
        scene.shaders.insert(0, fixed_function_vertex(scene));
    }
    let clip_planes = commands
        .iter()
        .any(|l| matches!(l.command, Command::Compat(CompatCommand::ClipPlane(..))));
    let colors = ColorState {
        two_side: (commands.iter())
            .any(|l| matches!(l.command, Command::Compat(CompatCommand::TwoSide(true)))),
        shade_flat: (commands.iter()).any(|l| {
            matches!(
                l.command,
                Command::Compat(CompatCommand::ShadeModel { flat: true })
            )
        }),
    };
    let program = translate(scene, clip_planes, colors)?;
    if program.clip {
        scene
            .require
            .limits
            .push((Limit::ClipDistances, CLIP_PLANES));
    }
    scene.commands = lower_commands(scene, &program, commands)?;
    Ok(())
}

/// Display lists played out: a list's commands where it is called (and where it is made,
/// with `GL_COMPILE_AND_EXECUTE`). Commands GL does not compile into a list run at once.
fn play_lists(commands: Vec<Line>) -> Result<Vec<Line>, SceneError> {
    let mut out = Vec::new();
    let mut list: Vec<Line> = Vec::new();
    // While a list is being made: whether its commands also run.
    let mut making: Option<bool> = None;
    for line in commands {
        let skip = |why: &str| SceneError::Skip(format!("line {}: {why}", line.number));
        match (&line.command, making) {
            (Command::Compat(CompatCommand::NewList { execute }), None) => {
                list.clear();
                making = Some(*execute);
            }
            (Command::Compat(CompatCommand::EndList), Some(_)) => making = None,
            (Command::Compat(CompatCommand::CallList), None) => out.extend(list.iter().cloned()),
            (Command::Compat(CompatCommand::DeleteList), None) => list.clear(),
            (
                Command::Compat(
                    CompatCommand::NewList { .. }
                    | CompatCommand::EndList
                    | CompatCommand::CallList
                    | CompatCommand::DeleteList,
                ),
                _,
            ) => return Err(skip("nested or unbalanced display list commands")),
            (Command::Probe(_) | Command::ProbeDepth { .. } | Command::Tolerance(_), _) => {
                // glReadPixels is not compiled into a list; tolerances are piglit's.
                out.push(line);
            }
            (
                Command::Clear
                | Command::ClearColor(_)
                | Command::ClearDepth(_)
                | Command::DrawRect(_)
                | Command::DrawArrays {
                    indirect: false, ..
                }
                | Command::DrawElements {
                    indirect: false, ..
                }
                | Command::PatchVertices(_)
                | Command::DefaultOuterLevels(_)
                | Command::DefaultInnerLevels(_)
                | Command::Uniform(_)
                | Command::Enable(..)
                | Command::DepthFunc(_)
                | Command::PointSize(_)
                | Command::PolygonMode(_)
                | Command::Compat(
                    CompatCommand::Ortho(_)
                    | CompatCommand::Frustum(_)
                    | CompatCommand::Color(_)
                    | CompatCommand::ClipPlane(..)
                    | CompatCommand::TwoSide(_)
                    | CompatCommand::ShadeModel { .. },
                ),
                Some(execute),
            ) => {
                if execute {
                    out.push(line.clone());
                }
                list.push(line);
            }
            (_, Some(_)) => {
                return Err(skip(
                    "a command in a display list that the runner does not compile into one",
                ))
            }
            (_, None) => out.push(line),
        }
    }
    Ok(out)
}

/// GL's fixed-function vertex processing, for a program without a vertex shader (GLSL
/// 1.10 compatibility, section 7's built-ins, translated like any vertex shader): the
/// vertex transformed by the modelview-projection matrix, the current colour, and texture
/// coordinate set 0 where a shader reads `gl_TexCoord` (texture matrices are the identity,
/// texture coordinate generation is off).
fn fixed_function_vertex(scene: &Scene) -> Shader {
    let tex_coord = scene.shaders.iter().any(|s| {
        tokenize(&strip_comments(&s.source))
            .iter()
            .any(|t| t.text == "gl_TexCoord")
    });
    let tex_coord = if tex_coord {
        "    gl_TexCoord[0] = gl_MultiTexCoord0;\n"
    } else {
        ""
    };
    Shader {
        stage: ShaderStage::Vertex,
        source: format!(
            "void main()\n{{\n    gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;\n    \
             gl_FrontColor = gl_Color;\n{tex_coord}}}\n"
        ),
        first_line: 0,
    }
}

/// What the translation of the program's shaders declared, for the commands.
struct Program {
    /// The built-in matrices the shaders use, by uniform name.
    matrices: BTreeSet<Matrix>,
    /// The last stage computes clip distances from the clip planes.
    clip: bool,
    /// The vertex shader reads the current colour (`gl_Color`, the input `CURRENT_COLOR`).
    current_color: bool,
    /// The samplers that `shadow*` functions read, with GL's depth texture mode.
    depth_mode_samplers: BTreeSet<String>,
    /// The fragment stage declares `TWO_SIDE_UNIFORM` / `SHADE_FLAT_UNIFORM`.
    two_side: bool,
    shade_flat: bool,
}

/// Which colour state the scene's commands change, so that the fragment stage must choose
/// its colours as they say.
#[derive(Debug, Clone, Copy, Default)]
struct ColorState {
    /// It enables `GL_VERTEX_PROGRAM_TWO_SIDE`.
    two_side: bool,
    /// It sets `shade model flat`.
    shade_flat: bool,
}

impl ColorState {
    fn dynamic(self) -> bool {
        self.two_side || self.shade_flat
    }
}

/// `GL_VERTEX_PROGRAM_TWO_SIDE` (int, 0 or 1) in the fragment stage.
const TWO_SIDE_UNIFORM: &str = "glsem_TwoSide";
/// Whether the shade model is flat (int, 0 or 1) in the fragment stage.
const SHADE_FLAT_UNIFORM: &str = "glsem_ShadeFlat";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Matrix {
    ModelView,
    Projection,
    ModelViewProjection,
}

impl Matrix {
    fn by_name(name: &str) -> Option<Matrix> {
        Some(match name {
            "gl_ModelViewMatrix" => Matrix::ModelView,
            "gl_ProjectionMatrix" => Matrix::Projection,
            "gl_ModelViewProjectionMatrix" => Matrix::ModelViewProjection,
            _ => return None,
        })
    }

    fn uniform(self) -> &'static str {
        match self {
            Matrix::ModelView => "glsem_ModelViewMatrix",
            Matrix::Projection => "glsem_ProjectionMatrix",
            Matrix::ModelViewProjection => "glsem_ModelViewProjectionMatrix",
        }
    }
}

const CLIP_PLANE_UNIFORM: &str = "glsem_ClipPlane";
/// The vertex input of GL's current colour (`gl_Color` of a vertex shader), fed by its
/// current value (`color`, GL's `glColor4f`).
const CURRENT_COLOR: &str = "glsem_Color";
/// The prefix of the uniform holding the depth texture mode of the sampler it names.
const DEPTH_MODE_UNIFORM: &str = "glsem_DepthMode_";

/// A compatibility varying: a member of the `glsem_Compat` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Member {
    FrontColor,
    BackColor,
    FrontSecondaryColor,
    BackSecondaryColor,
    TexCoord,
    ClipVertex,
}

impl Member {
    /// The member a pre-rasterization stage writes (or reads from `gl_in[i]`) by this name.
    fn output(name: &str) -> Option<Member> {
        Some(match name {
            "gl_FrontColor" => Member::FrontColor,
            "gl_BackColor" => Member::BackColor,
            "gl_FrontSecondaryColor" => Member::FrontSecondaryColor,
            "gl_BackSecondaryColor" => Member::BackSecondaryColor,
            "gl_TexCoord" => Member::TexCoord,
            "gl_ClipVertex" => Member::ClipVertex,
            _ => return None,
        })
    }

    /// The member a fragment shader reads by this name: the front colours, as two-sided
    /// colouring (GL_VERTEX_PROGRAM_TWO_SIDE) is off.
    fn fragment_input(name: &str) -> Option<Member> {
        Some(match name {
            "gl_Color" => Member::FrontColor,
            "gl_SecondaryColor" => Member::FrontSecondaryColor,
            "gl_TexCoord" => Member::TexCoord,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Member::FrontColor => "FrontColor",
            Member::BackColor => "BackColor",
            Member::FrontSecondaryColor => "FrontSecondaryColor",
            Member::BackSecondaryColor => "BackSecondaryColor",
            Member::TexCoord => "TexCoord",
            Member::ClipVertex => "ClipVertex",
        }
    }

    fn is_color(self) -> bool {
        !matches!(self, Member::TexCoord | Member::ClipVertex)
    }

    /// The built-in a pre-rasterization stage writes, or, for the front colours, the one the
    /// fragment stage reads.
    fn gl_name(self) -> &'static str {
        match self {
            Member::FrontColor => "gl_Color / gl_FrontColor",
            Member::BackColor => "gl_BackColor",
            Member::FrontSecondaryColor => "gl_SecondaryColor / gl_FrontSecondaryColor",
            Member::BackSecondaryColor => "gl_BackSecondaryColor",
            Member::TexCoord => "gl_TexCoord",
            Member::ClipVertex => "gl_ClipVertex",
        }
    }

    /// The back colour of a front one.
    fn back(self) -> Option<Member> {
        match self {
            Member::FrontColor => Some(Member::BackColor),
            Member::FrontSecondaryColor => Some(Member::BackSecondaryColor),
            _ => None,
        }
    }

    /// The function a fragment shader reads a front colour through when the colour
    /// state is dynamic.
    fn fragment_function(self) -> Option<&'static str> {
        match self {
            Member::FrontColor => Some("glsem_Color"),
            Member::FrontSecondaryColor => Some("glsem_SecondaryColor"),
            _ => None,
        }
    }
}

/// Compatibility-profile built-ins the emulation does not cover (GLSL 1.50 compatibility,
/// section 7); a shader naming one SKIPs.
const UNSUPPORTED: &[&str] = &[
    "gl_Normal",
    "gl_FogCoord",
    "gl_FogFragCoord",
    "gl_TextureMatrix",
    "gl_NormalMatrix",
    "gl_NormalScale",
    "gl_ClipPlane",
    "gl_Point",
    "gl_FrontMaterial",
    "gl_BackMaterial",
    "gl_LightSource",
    "gl_LightModel",
    "gl_FrontLightModelProduct",
    "gl_BackLightModelProduct",
    "gl_FrontLightProduct",
    "gl_BackLightProduct",
    "gl_TextureEnvColor",
    "gl_Fog",
];

fn unsupported(name: &str) -> bool {
    UNSUPPORTED.contains(&name)
        || (name.starts_with("gl_MultiTexCoord") && name != "gl_MultiTexCoord0")
        || name.starts_with("gl_EyePlane")
        || name.starts_with("gl_ObjectPlane")
        || (name.starts_with("gl_") && name.ends_with("Matrix") && Matrix::by_name(name).is_none())
        || (name.starts_with("gl_") && name.contains("MatrixInverse"))
        || (name.starts_with("gl_") && name.contains("MatrixTranspose"))
}

/// What a [`Token`] is: enough of GLSL's lexical structure to rename words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Ident,
    Space,
    Directive,
    Other,
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    pub(crate) text: String,
}

/// The source with its comments turned into spaces (newlines kept, so lines keep their
/// numbers).
pub(crate) fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
                out.push(' ');
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The source as tokens whose texts, joined, give it back.
pub(crate) fn tokenize(source: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let kind = if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                if chars[i] == '\n' {
                    line_start = true;
                }
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Space,
                text: chars[start..i].iter().collect(),
            });
            continue;
        } else if c == '#' && line_start {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            Kind::Directive
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            Kind::Other
        } else {
            i += 1;
            Kind::Other
        };
        line_start = false;
        tokens.push(Token {
            kind,
            text: chars[start..i].iter().collect(),
        });
    }
    tokens
}

/// What translating one shader found.
#[derive(Default)]
struct Translated {
    tokens: Vec<Token>,
    /// Declared `#version` (0: none).
    version: u32,
    /// Token index after which the prelude goes (`None`: before everything).
    prelude_after: Option<usize>,
    members: BTreeSet<Member>,
    /// Sizes `gl_TexCoord` was redeclared with.
    tex_coord_sizes: Vec<u32>,
    /// The interpolation qualifier a redeclaration gives a colour (`flat`, `smooth`,
    /// `noperspective`).
    qualifiers: BTreeMap<Member, String>,
    matrices: BTreeSet<Matrix>,
    /// `gl_Vertex` was read and `piglit_vertex` needs declaring.
    declare_vertex: bool,
    /// `gl_MultiTexCoord0` was read: the input `piglit_texcoord`.
    declare_tex_coord: bool,
    /// `gl_Color` of a vertex shader was read: the input `CURRENT_COLOR`.
    current_color: bool,
    /// The samplers `shadow*` functions read (each with its depth mode uniform).
    depth_mode_samplers: BTreeSet<String>,
    /// The stage writes `gl_ClipVertex` itself.
    writes_clip_vertex: bool,
    /// The stage names `gl_ClipDistance`.
    clip_distance: bool,
    /// The `{` of a redeclared `out gl_PerVertex` block.
    out_block: Option<usize>,
    /// The name of `main`, renamed `glsem_main` for the epilogue to run after it.
    main_at: Option<usize>,
}

const QUALIFIERS: &[&str] = &[
    "in",
    "out",
    "varying",
    "flat",
    "smooth",
    "noperspective",
    "centroid",
    "invariant",
];

fn translate_shader(
    shader: &Shader,
    last: bool,
    default_version: u32,
    colors: ColorState,
) -> Result<Translated, SceneError> {
    let tokens = tokenize(&strip_comments(&shader.source));
    let mut r = ShaderRewrite {
        sig: (0..tokens.len())
            .filter(|&i| tokens[i].kind != Kind::Space)
            .collect(),
        t: Translated {
            tokens,
            ..Translated::default()
        },
        stage: shader.stage,
        last,
        declared_vertex: None,
        version: 0,
        colors,
    };
    r.read_directives()?;
    r.version = match r.t.version {
        0 => default_version,
        v => v,
    };
    // The type `piglit_vertex` is declared with, if it is.
    r.declared_vertex = r
        .sig
        .windows(2)
        .find(|w| r.t.tokens[w[1]].text == "piglit_vertex")
        .map(|w| r.t.tokens[w[0]].text.clone());
    r.remove_redeclarations()?;
    r.rename_built_ins()?;
    Ok(r.t)
}

/// One shader's tokens being translated.
struct ShaderRewrite {
    t: Translated,
    /// The indices of the tokens that are not spaces.
    sig: Vec<usize>,
    stage: ShaderStage,
    /// The stage is the last before the fragment stage.
    last: bool,
    declared_vertex: Option<String>,
    /// The GLSL version the shader is written in.
    version: u32,
    colors: ColorState,
}

impl ShaderRewrite {
    /// The text of the `k`th token that is not a space.
    fn text(&self, k: usize) -> String {
        self.sig
            .get(k)
            .map(|&i| self.t.tokens[i].text.clone())
            .unwrap_or_default()
    }

    fn skip(&self, why: String) -> SceneError {
        SceneError::Skip(format!("{:?} shader: {why}", self.stage))
    }

    /// `#version` and where the prelude goes: after the leading directives. Macros are not
    /// expanded here: a directive naming a built-in would escape the rewrite.
    fn read_directives(&mut self) -> Result<(), SceneError> {
        for &i in &self.sig {
            let t = &mut self.t;
            // The prelude must not land inside a conditional (`#ifdef GL_ES` …).
            if t.tokens[i].kind != Kind::Directive || t.tokens[i].text.trim().starts_with("#if") {
                break;
            }
            t.prelude_after = Some(i);
            if let Some(v) = t.tokens[i].text.trim().strip_prefix("#version") {
                t.version = v
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                if v.split_whitespace().nth(1) == Some("es") {
                    return Err(self.skip("GLSL ES in a compatibility scene".into()));
                }
                t.tokens[i].text = format!("#version {}", t.version.max(150));
            }
        }
        let tokens = &self.t.tokens;
        if let Some(name) = self
            .sig
            .iter()
            .filter(|&&i| tokens[i].kind == Kind::Directive)
            .flat_map(|&i| tokenize(tokens[i].text.trim_start_matches('#')))
            .map(|token| token.text)
            .find(|w| {
                unsupported(w)
                    || Member::output(w).is_some()
                    || Member::fragment_input(w).is_some()
                    || Matrix::by_name(w).is_some()
                    || w == "gl_Vertex"
            })
        {
            return Err(self.skip(format!("a preprocessor directive names `{name}`")));
        }
        Ok(())
    }

    /// Redeclarations of compatibility varyings (top level or in a gl_PerVertex block) go:
    /// the block declares them.
    fn remove_redeclarations(&mut self) -> Result<(), SceneError> {
        let mut statement = 0;
        for k in 0..self.sig.len() {
            let word = self.text(k);
            if word == "{"
                && k >= 2
                && self.text(k - 1) == "gl_PerVertex"
                && self.text(k - 2) == "out"
            {
                self.t.out_block = Some(self.sig[k]);
            }
            if matches!(word.as_str(), "{" | "}")
                || self.t.tokens[self.sig[k]].kind == Kind::Directive
            {
                statement = k + 1;
                continue;
            }
            if word != ";" {
                continue;
            }
            let all: Vec<String> = (statement..k).map(|j| self.text(j)).collect();
            let qualifiers = all
                .iter()
                .take_while(|w| QUALIFIERS.contains(&w.as_str()))
                .count();
            let words = &all[qualifiers..];
            let named = match words {
                [ty, name] | [ty, name, _, _] | [ty, name, _, _, _] if ty == "vec4" => {
                    Member::output(name).or_else(|| Member::fragment_input(name))
                }
                _ => None,
            };
            if let Some(member) = named {
                // A colour keeps its interpolation qualifier in the block (`gl_Color` and
                // `gl_SecondaryColor` name the back colour's too).
                for q in &all[..qualifiers] {
                    match q.as_str() {
                        "in" | "out" | "varying" => {}
                        "smooth" | "flat" | "noperspective" if member.is_color() => {
                            let fragment = self.stage == ShaderStage::Fragment;
                            let back = member.back().filter(|_| fragment);
                            for m in std::iter::once(member).chain(back) {
                                self.t.qualifiers.insert(m, q.clone());
                            }
                        }
                        _ => {
                            return Err(self.skip(format!("`{q}` on the redeclared `{}`", words[1])))
                        }
                    }
                }
                if member == Member::TexCoord && words.len() == 5 {
                    let size = words[3]
                        .parse()
                        .map_err(|_| self.skip(format!("gl_TexCoord sized `{}`", words[3])))?;
                    self.t.tex_coord_sizes.push(size);
                }
                for &i in &self.sig[statement..=k] {
                    self.t.tokens[i].text.clear();
                }
            }
            statement = k + 1;
        }
        Ok(())
    }

    /// Renames the compatibility built-ins and qualifiers to what the prelude declares.
    fn rename_built_ins(&mut self) -> Result<(), SceneError> {
        let mut replace: Vec<Option<String>> = vec![None; self.t.tokens.len()];
        for k in 0..self.sig.len() {
            let i = self.sig[k];
            let token = &self.t.tokens[i];
            if token.kind != Kind::Ident || token.text.is_empty() || replace[i].is_some() {
                continue;
            }
            replace[i] = self.replacement(k, &mut replace)?;
        }
        for (token, new) in self.t.tokens.iter_mut().zip(replace) {
            if let Some(new) = new {
                token.text = new;
            }
        }
        Ok(())
    }

    /// What the `k`th token (an identifier) becomes, if anything.
    fn replacement(
        &mut self,
        k: usize,
        replace: &mut [Option<String>],
    ) -> Result<Option<String>, SceneError> {
        let stage = self.stage;
        let i = self.sig[k];
        let word = self.t.tokens[i].text.clone();
        // `gl_in[i].gl_X` is rewritten from `gl_in`; a plain `gl_X` is this stage's own.
        let member = match stage {
            _ if k > 0 && self.text(k - 1) == "." => None,
            ShaderStage::Fragment => Member::fragment_input(&word),
            _ => Member::output(&word),
        };
        Ok(match (word.as_str(), member, Matrix::by_name(&word)) {
            ("attribute", ..) if stage == ShaderStage::Vertex => Some("in".into()),
            ("varying", ..) => match stage {
                ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry => {
                    Some("out".into())
                }
                ShaderStage::Fragment => Some("in".into()),
                _ => return Err(self.skip("`varying` in a tessellation control shader".into())),
            },
            ("gl_Vertex", ..) if stage == ShaderStage::Vertex => Some(self.vertex()?.into()),
            ("ftransform", ..)
                if stage == ShaderStage::Vertex
                    && self.text(k + 1) == "("
                    && self.text(k + 2) == ")" =>
            {
                // GL's fixed-function transform, which ftransform() is invariant with.
                let vertex = self.vertex()?;
                self.t.matrices.insert(Matrix::ModelViewProjection);
                replace[self.sig[k + 1]] = Some(String::new());
                replace[self.sig[k + 2]] = Some(String::new());
                Some(format!(
                    "({} * {vertex})",
                    Matrix::ModelViewProjection.uniform()
                ))
            }
            ("gl_Color", ..) if stage == ShaderStage::Vertex => {
                self.t.current_color = true;
                Some(CURRENT_COLOR.into())
            }
            ("gl_MultiTexCoord0", ..) if stage == ShaderStage::Vertex => {
                // What `draw rect tex` feeds, as piglit's glTexCoordPointer does.
                self.t.declare_tex_coord = true;
                Some("piglit_texcoord".into())
            }
            ("gl_SecondaryColor", ..) if stage == ShaderStage::Vertex => {
                return Err(self.skip(format!(
                    "the conventional attribute `{word}` is not emulated"
                )))
            }
            (old, ..) if self.text(k + 1) == "(" && old_texture_function(old).is_some() => {
                self.old_texture_call(k, replace)?
            }
            ("lowp" | "mediump" | "highp", ..)
                if self.version < 130
                    && self
                        .sig
                        .get(k + 1)
                        .is_none_or(|&n| self.t.tokens[n].kind != Kind::Ident) =>
            {
                // A precision word before no type is a name (GLSL 1.30 made them keywords;
                // GL compilers take them as qualifiers earlier too).
                Some(format!("glsem_{word}"))
            }
            (_, None, None)
                if self.t.tokens[i].kind == Kind::Ident
                    && later_keyword(&word).is_some_and(|v| v > self.version) =>
            {
                // A name this GLSL version leaves free that 1.50 made a keyword.
                Some(format!("glsem_{word}"))
            }
            ("gl_in" | "gl_out", ..) if self.text(k + 1) == "[" => {
                self.per_vertex_member(k, &word, replace)
            }
            (_, Some(member), _) if stage == ShaderStage::Fragment => {
                self.t.members.insert(member);
                match member.fragment_function().filter(|_| self.colors.dynamic()) {
                    Some(function) => {
                        // The back colour too, which two-sided colouring may read.
                        self.t
                            .members
                            .extend(member.back().filter(|_| self.colors.two_side));
                        Some(format!("{function}()"))
                    }
                    None => Some(format!("glsem_in.{}", member.name())),
                }
            }
            (_, Some(member), _) => {
                self.t.members.insert(member);
                self.t.writes_clip_vertex |= member == Member::ClipVertex;
                Some(format!("glsem_out.{}", member.name()))
            }
            (_, _, Some(matrix)) => {
                self.t.matrices.insert(matrix);
                Some(matrix.uniform().into())
            }
            ("EmitVertex", ..) if stage == ShaderStage::Geometry => Some("glsem_EmitVertex".into()),
            ("EmitStreamVertex", ..) => {
                return Err(self.skip("EmitStreamVertex (vertex streams) is not emulated".into()))
            }
            ("main", ..)
                if self.last
                    && k > 0
                    && self.text(k - 1) == "void"
                    && stage != ShaderStage::Geometry =>
            {
                self.t.main_at = Some(i);
                Some("glsem_main".into())
            }
            ("gl_ClipDistance", ..) => {
                self.t.clip_distance = true;
                None
            }
            _ if unsupported(&word) => {
                return Err(self.skip(format!(
                    "the compatibility-profile built-in `{word}` is not emulated"
                )))
            }
            _ => None,
        })
    }

    /// What `gl_Vertex` (generic attribute 0) reads: `piglit_vertex`, declared here unless
    /// the shader declares it.
    fn vertex(&mut self) -> Result<&'static str, SceneError> {
        match self.declared_vertex.as_deref() {
            None => self.t.declare_vertex = true,
            Some("vec4") => {}
            Some(ty) => {
                return Err(self.skip(format!(
                    "gl_Vertex (generic attribute 0) with `{ty} piglit_vertex`"
                )))
            }
        }
        Ok("piglit_vertex")
    }

    /// A call of a GLSL 1.10 texture function (the `k`th token, before its `(`): the
    /// overloaded function of GLSL 1.30 that does the same, which glslang compiles for
    /// Vulkan (where `texture2D` & co name texture types). A `shadow*` call's result
    /// depends on its sampler's depth texture mode: `shadow2D(s, …)` becomes
    /// `glsem_depth_mode(texture(s, …), glsem_DepthMode_s)`.
    fn old_texture_call(
        &mut self,
        k: usize,
        replace: &mut [Option<String>],
    ) -> Result<Option<String>, SceneError> {
        let old = self.text(k);
        let Some((new, shadow)) = old_texture_function(&old) else {
            return Ok(None);
        };
        if !shadow {
            return Ok(Some(new.into()));
        }
        let sampler = self.text(k + 2);
        let close = self.closing(k + 1);
        let plain_sampler =
            self.t.tokens[self.sig[k + 2]].kind == Kind::Ident && self.text(k + 3) == ",";
        let Some(close) = close.filter(|_| plain_sampler) else {
            return Err(self.skip(format!("`{old}` of a sampler expression")));
        };
        replace[self.sig[close]] = Some(format!("), {DEPTH_MODE_UNIFORM}{sampler})"));
        self.t.depth_mode_samplers.insert(sampler);
        Ok(Some(format!("glsem_depth_mode({new}")))
    }

    /// The index of the `)` closing the `(` at `open`.
    fn closing(&self, open: usize) -> Option<usize> {
        let mut depth = 0;
        for j in open..self.sig.len() {
            match self.text(j).as_str() {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// `gl_in[i].gl_FrontColor` → `glsem_in[i].FrontColor` (`word`, the `k`th token, is
    /// `gl_in` or `gl_out`); `None` for another member.
    fn per_vertex_member(
        &mut self,
        k: usize,
        word: &str,
        replace: &mut [Option<String>],
    ) -> Option<String> {
        let mut depth = 0;
        let mut close = None;
        for j in k + 1..self.sig.len() {
            match self.text(j).as_str() {
                "[" => depth += 1,
                "]" => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let (j, member) = close
            .filter(|&j| self.text(j + 1) == ".")
            .and_then(|j| Some((j, Member::output(&self.text(j + 2))?)))?;
        self.t.members.insert(member);
        replace[self.sig[j + 2]] = Some(member.name().into());
        Some(if word == "gl_in" {
            "glsem_in".into()
        } else {
            "glsem_out".into()
        })
    }
}

/// GLSL 1.10's texture functions: the GLSL 1.30 function doing the same, and whether it
/// is a `shadow*` function (its result is a vec4 by the depth texture mode).
pub(crate) fn old_texture_function(name: &str) -> Option<(&'static str, bool)> {
    let (shadow, rest) = match name.strip_prefix("shadow") {
        Some(rest) => (true, rest),
        None => (false, name.strip_prefix("texture")?),
    };
    let dims: &[&str] = if shadow {
        &["1D", "2D", "2DRect"]
    } else {
        &["1D", "2D", "3D", "Cube", "2DRect"]
    };
    let suffix = dims.iter().find_map(|d| rest.strip_prefix(d))?;
    let new = match suffix {
        "" => "texture",
        "Proj" => "textureProj",
        "Lod" => "textureLod",
        "ProjLod" => "textureProjLod",
        _ => return None,
    };
    Some((new, shadow))
}

/// The GLSL version that made `word` a keyword, for names older versions leave free.
fn later_keyword(word: &str) -> Option<u32> {
    Some(match word {
        "centroid" | "invariant" => 120,
        w if w.starts_with("mat") && w.len() == 6 && w.as_bytes()[4] == b'x' => 120,
        "flat" | "smooth" | "noperspective" | "uint" | "uvec2" | "uvec3" | "uvec4" => 130,
        _ => return None,
    })
}

/// Translates every shader of the scene (and adds the fixed-function fragment shader).
fn translate(
    scene: &mut Scene,
    clip_planes: bool,
    colors: ColorState,
) -> Result<Program, SceneError> {
    let (last, fixed_function_fragment) = program_stages(scene)?;
    // piglit gives a shader without `#version` the `[require]`d one (else GLSL 1.10).
    let source_version = scene.require.glsl_version.unwrap_or(110);
    let mut translated: Vec<(usize, Translated)> = Vec::new();
    for (index, shader) in scene.shaders.iter().enumerate() {
        translated.push((
            index,
            translate_shader(shader, shader.stage == last, source_version, colors)?,
        ));
    }
    let mut members: BTreeSet<Member> = translated
        .iter()
        .flat_map(|(_, t)| t.members.iter().copied())
        .collect();
    if fixed_function_fragment {
        members.insert(Member::FrontColor);
        if colors.two_side {
            members.insert(Member::BackColor);
        }
    }
    colour_qualifiers_match(scene, &translated, last)?;
    // The first redeclaration's qualifier (where they differ, the stages do not use both).
    let mut qualifiers: BTreeMap<Member, String> = BTreeMap::new();
    for (_, t) in &translated {
        for (m, q) in &t.qualifiers {
            qualifiers.entry(*m).or_insert_with(|| q.clone());
        }
    }
    // The fragment stage reads its colours through `glsem_Color()`: it reads a front colour
    // while the state is dynamic (or GL's fixed function does).
    let color_functions = colors.dynamic()
        && (fixed_function_fragment
            || translated.iter().any(|(i, t)| {
                scene.shaders[*i].stage == ShaderStage::Fragment
                    && t.members.iter().any(|m| m.fragment_function().is_some())
            }));
    if !members.is_empty() && scene.passthrough_vs {
        return Err(SceneError::Skip(
            "`vertex shader passthrough` with compatibility varyings".into(),
        ));
    }
    let tex_coords = translated
        .iter()
        .flat_map(|(_, t)| t.tex_coord_sizes.iter().copied())
        .max()
        .unwrap_or(TEX_COORDS);
    let last_translated = translated
        .iter()
        .find(|(i, _)| scene.shaders[*i].stage == last)
        .map(|(_, t)| t);
    let clip = clip_planes && !last_translated.is_some_and(|t| t.clip_distance);
    let clip_vertex = last_translated.is_some_and(|t| t.writes_clip_vertex);
    let colors = ColorState {
        two_side: colors.two_side && color_functions,
        shade_flat: colors.shade_flat && color_functions,
    };
    let interface = Interface::new(
        &members,
        &qualifiers,
        colors,
        tex_coords,
        (clip, clip_vertex),
        last,
    );

    let mut program = Program {
        matrices: BTreeSet::new(),
        clip,
        current_color: false,
        depth_mode_samplers: BTreeSet::new(),
        two_side: colors.two_side,
        shade_flat: colors.shade_flat,
    };
    let version = scene.require.glsl_version.unwrap_or(150).max(150);
    let mut sources = Vec::new();
    for (index, t) in &mut translated {
        let stage = scene.shaders[*index].stage;
        program.matrices.extend(t.matrices.iter().copied());
        program.current_color |= t.current_color;
        program
            .depth_mode_samplers
            .extend(t.depth_mode_samplers.iter().cloned());
        sources.push((*index, interface.stage_source(t, stage, version)));
    }
    for (index, source) in sources {
        scene.shaders[index].source = source;
    }
    if fixed_function_fragment {
        scene.shaders.push(Shader {
            stage: ShaderStage::Fragment,
            source: format!(
                "#version {version}\n{}{}void main()\n{{\n    gl_FragColor = {};\n}}\n",
                interface.block("in", "glsem_in"),
                interface.color_functions,
                if color_functions {
                    "glsem_Color()"
                } else {
                    "glsem_in.FrontColor"
                }
            ),
            first_line: 0,
        });
    }
    Ok(program)
}

/// GLSL 1.30 §4.3.7: `gl_Color` and the front and back colours the last stage before the
/// fragment stage writes must be redeclared with the same interpolation qualifier (or none),
/// where both are statically used; likewise `gl_SecondaryColor`. Else GL fails to link:
/// `Err` of a `link error: …`.
fn colour_qualifiers_match(
    scene: &Scene,
    translated: &[(usize, Translated)],
    last: ShaderStage,
) -> Result<(), SceneError> {
    // Whether a stage's units use the member, and the qualifier they redeclare it with.
    let stage = |stage: ShaderStage, m: Member| {
        let units = || {
            (translated.iter())
                .filter(move |(i, _)| scene.shaders[*i].stage == stage)
                .map(|(_, t)| t)
        };
        let used = units().any(|t| t.members.contains(&m));
        let qualifier = units().find_map(|t| t.qualifiers.get(&m).cloned());
        (used, qualifier)
    };
    for front in [Member::FrontColor, Member::FrontSecondaryColor] {
        let (read, fragment) = stage(ShaderStage::Fragment, front);
        for written in std::iter::once(front).chain(front.back()) {
            let (used, pre_rasterization) = stage(last, written);
            if read && used && fragment != pre_rasterization {
                let q = |q: &Option<String>| q.clone().unwrap_or_else(|| "no".into());
                return Err(SceneError::Fail(format!(
                    "link error: the fragment shader's {} has {} interpolation qualifier, \
                     the {last:?} shader's {} {}",
                    front.gl_name(),
                    q(&fragment),
                    written.gl_name(),
                    q(&pre_rasterization),
                )));
            }
        }
    }
    Ok(())
}

/// The last stage before the fragment stage, and whether the fragment stage is GL's fixed
/// function; skips what a compatibility scene cannot be here.
fn program_stages(scene: &Scene) -> Result<(ShaderStage, bool), SceneError> {
    let graphics = [
        ShaderStage::Vertex,
        ShaderStage::TessControl,
        ShaderStage::TessEval,
        ShaderStage::Geometry,
        ShaderStage::Fragment,
    ];
    let stages: Vec<ShaderStage> = graphics
        .into_iter()
        .filter(|&s| scene.has_stage(s) || (s == ShaderStage::Vertex && scene.passthrough_vs))
        .collect();
    if stages.is_empty() || scene.has_stage(ShaderStage::Compute) {
        return Err(SceneError::Skip(
            "a compatibility scene without a vertex shader".into(),
        ));
    }
    // Each unit of a stage declares what its own translation uses; a geometry stage's
    // units would each define the epilogue's `glsem_EmitVertex`.
    for stage in stages.iter().filter(|&&s| s == ShaderStage::Geometry) {
        if scene.shaders.iter().filter(|s| s.stage == *stage).count() > 1 {
            return Err(SceneError::Skip(format!(
                "compatibility {stage:?} shader in several compilation units"
            )));
        }
    }
    let last = *stages
        .iter()
        .rev()
        .find(|&&s| s != ShaderStage::Fragment)
        .unwrap_or(&ShaderStage::Vertex);
    Ok((last, !stages.contains(&ShaderStage::Fragment)))
}

/// The `glsem_Compat` block the stages pass the compatibility varyings in, and the
/// epilogue of the last stage before the fragment stage.
struct Interface {
    /// The block's members, declared.
    block_body: String,
    /// Clamps the colours and computes the clip distances.
    epilogue: String,
    clip: bool,
    last: ShaderStage,
    has_members: bool,
    /// The fragment stage's `glsem_Color()` and `glsem_SecondaryColor()` with the
    /// uniforms they read, where the colour state is dynamic.
    color_functions: String,
}

impl Interface {
    fn new(
        members: &BTreeSet<Member>,
        qualifiers: &BTreeMap<Member, String>,
        colors: ColorState,
        tex_coords: u32,
        (clip, clip_vertex): (bool, bool),
        last: ShaderStage,
    ) -> Interface {
        // The colours the shade model makes flat: a flat copy travels beside each.
        let flat_copy =
            |m: &Member| colors.shade_flat && m.is_color() && !qualifiers.contains_key(m);
        let block_body: String = members
            .iter()
            .map(|m| match m {
                Member::TexCoord => format!(" vec4 TexCoord[{tex_coords}];"),
                m => {
                    let q = qualifiers
                        .get(m)
                        .map(|q| format!("{q} "))
                        .unwrap_or_default();
                    let copy = if flat_copy(m) {
                        format!(" flat vec4 {}_flat;", m.name())
                    } else {
                        String::new()
                    };
                    format!(" {q}vec4 {};{copy}", m.name())
                }
            })
            .collect();
        let mut epilogue = String::new();
        for m in members.iter().filter(|m| m.is_color()) {
            let name = m.name();
            epilogue += &format!("    glsem_out.{name} = clamp(glsem_out.{name}, 0.0, 1.0);\n");
            if flat_copy(m) {
                epilogue += &format!("    glsem_out.{name}_flat = glsem_out.{name};\n");
            }
        }
        let mut color_functions = String::new();
        if colors.two_side {
            color_functions += &format!("uniform int {TWO_SIDE_UNIFORM};\n");
        }
        if colors.shade_flat {
            color_functions += &format!("uniform int {SHADE_FLAT_UNIFORM};\n");
        }
        // The colour as the shade model says, if the block holds it.
        let read = |m: Member| {
            let name = m.name();
            if !members.contains(&m) {
                None
            } else if flat_copy(&m) {
                Some(format!(
                    "({SHADE_FLAT_UNIFORM} != 0 ? glsem_in.{name}_flat : glsem_in.{name})"
                ))
            } else {
                Some(format!("glsem_in.{name}"))
            }
        };
        if colors.dynamic() {
            for front in [Member::FrontColor, Member::FrontSecondaryColor] {
                let (Some(function), Some(value)) = (front.fragment_function(), read(front)) else {
                    continue;
                };
                let value = match front.back().and_then(read).filter(|_| colors.two_side) {
                    Some(back) => {
                        format!("{TWO_SIDE_UNIFORM} != 0 && !gl_FrontFacing ? {back} : {value}")
                    }
                    None => value,
                };
                color_functions += &format!("vec4 {function}()\n{{\n    return {value};\n}}\n");
            }
        }
        if clip {
            let source = if clip_vertex {
                "glsem_out.ClipVertex"
            } else {
                "gl_Position"
            };
            for i in 0..CLIP_PLANES {
                epilogue += &format!(
                    "    gl_ClipDistance[{i}] = dot({source}, {CLIP_PLANE_UNIFORM}[{i}]);\n"
                );
            }
        }
        Interface {
            block_body,
            epilogue,
            clip,
            last,
            has_members: !members.is_empty(),
            color_functions,
        }
    }

    fn block(&self, qualifier: &str, instance: &str) -> String {
        format!(
            "{qualifier} glsem_Compat {{{} }} {instance};\n",
            self.block_body
        )
    }

    /// What goes before a stage's own code: the block, uniforms and declarations its
    /// translation uses.
    fn prelude(&self, t: &mut Translated, stage: ShaderStage) -> String {
        let mut prelude = String::new();
        if self.has_members {
            prelude += &match stage {
                ShaderStage::Vertex => self.block("out", "glsem_out"),
                ShaderStage::TessControl => {
                    self.block("in", "glsem_in[]") + &self.block("out", "glsem_out[]")
                }
                ShaderStage::TessEval | ShaderStage::Geometry => {
                    self.block("in", "glsem_in[]") + &self.block("out", "glsem_out")
                }
                _ => self.block("in", "glsem_in") + &self.color_functions,
            };
        }
        for m in &t.matrices {
            prelude += &format!("uniform mat4 {};\n", m.uniform());
        }
        if t.declare_vertex {
            prelude += "in vec4 piglit_vertex;\n";
        }
        if t.declare_tex_coord {
            prelude += "in vec4 piglit_texcoord;\n";
        }
        if t.current_color {
            prelude += &format!("in vec4 {CURRENT_COLOR};\n");
        }
        for sampler in &t.depth_mode_samplers {
            prelude += &format!("uniform int {DEPTH_MODE_UNIFORM}{sampler};\n");
        }
        if !t.depth_mode_samplers.is_empty() {
            // GL_DEPTH_TEXTURE_MODE (`DepthMode`): the comparison result r as a colour.
            prelude += "vec4 glsem_depth_mode(float r, int mode)\n{\n    \
                return mode == 1 ? vec4(r) : mode == 2 ? vec4(0.0, 0.0, 0.0, r)\n        \
                : mode == 3 ? vec4(r, 0.0, 0.0, 1.0) : vec4(r, r, r, 1.0);\n}\n";
        }
        if stage == self.last && self.clip {
            prelude += &format!("uniform vec4 {CLIP_PLANE_UNIFORM}[{CLIP_PLANES}];\n");
            if let Some(i) = t.out_block {
                t.tokens[i].text += &format!(" float gl_ClipDistance[{CLIP_PLANES}];");
            }
        }
        if stage == ShaderStage::Geometry {
            prelude += "void glsem_EmitVertex();\n";
        }
        prelude
    }

    /// The translated stage's GLSL: the prelude after its leading directives (line numbers
    /// reset to the original's), its tokens, and the epilogue after its `main` or in its
    /// `EmitVertex`.
    fn stage_source(&self, t: &mut Translated, stage: ShaderStage, version: u32) -> String {
        let prelude = self.prelude(t, stage);
        let epilogue = &self.epilogue;
        let wrap_main = stage == self.last
            && stage != ShaderStage::Geometry
            && !epilogue.is_empty()
            && t.main_at.is_some();
        if let Some(i) = t.main_at.filter(|_| !wrap_main) {
            t.tokens[i].text = "main".into();
        }
        let mut source = String::new();
        let mut line = 1;
        if t.prelude_after.is_none() {
            let reset = crate::fixes::line_reset(version, 1);
            source += &format!("#version {version}\n{prelude}{reset}\n");
        } else if t.version == 0 {
            source += &format!("#version {version}\n");
        }
        for (i, token) in t.tokens.iter().enumerate() {
            source += &token.text;
            line += token.text.matches('\n').count();
            if t.prelude_after == Some(i) {
                let reset = crate::fixes::line_reset(version, line + 1);
                source += &format!("\n{prelude}{reset}");
            }
        }
        if stage == ShaderStage::Geometry {
            source += &format!("\nvoid glsem_EmitVertex()\n{{\n{epilogue}    EmitVertex();\n}}\n");
        } else if wrap_main {
            source += &format!("\nvoid main()\n{{\n    glsem_main();\n{epilogue}}}\n");
        }
        source
    }
}

/// The commands with the compatibility ones replaced by core ones.
fn lower_commands(
    scene: &mut Scene,
    program: &Program,
    commands: Vec<Line>,
) -> Result<Vec<Line>, SceneError> {
    let mut out = Vec::new();
    let first_line = commands.first().map_or(0, |l| l.number);
    let identity: [f32; 16] = std::array::from_fn(|i| if i % 5 == 0 { 1.0 } else { 0.0 });
    let push_matrices = |out: &mut Vec<Line>, number: usize, projection: [f32; 16]| {
        for m in &program.matrices {
            let value = match m {
                Matrix::ModelView => identity,
                Matrix::Projection | Matrix::ModelViewProjection => projection,
            };
            out.push(Line {
                number,
                command: Command::Uniform(Uniform {
                    type_name: "mat4".into(),
                    name: m.uniform().into(),
                    index: None,
                    columns: 4,
                    rows: 4,
                    data: UniformData::F32(value.to_vec()),
                }),
            });
        }
    };
    // GL's initial matrices.
    push_matrices(&mut out, first_line, identity);
    let color = |number: usize, rgba: [f32; 4]| Line {
        number,
        command: Command::VertexAttrib {
            name: CURRENT_COLOR.into(),
            kind: ScalarKind::Float,
            value: rgba.map(f32::to_bits),
        },
    };
    if program.current_color {
        // GL's initial current colour.
        out.push(color(first_line, [1.0; 4]));
    }
    // The depth texture mode of each unit's texture, and the unit of each sampler that
    // `shadow*` reads (GL's initial unit 0): the `glsem_DepthMode_*` uniforms of a draw.
    let mut depth_modes: BTreeMap<u32, DepthMode> = BTreeMap::new();
    let mut sampler_units: BTreeMap<&str, i32> = BTreeMap::new();
    let mut active_unit = 0;
    for line in commands {
        let number = line.number;
        if matches!(
            line.command,
            Command::DrawArrays { .. }
                | Command::DrawElements { .. }
                | Command::DrawRect(_)
                | Command::XfbDrawArrays { .. }
        ) {
            for sampler in &program.depth_mode_samplers {
                let unit = sampler_units.get(sampler.as_str()).copied().unwrap_or(0);
                let mode = u32::try_from(unit)
                    .ok()
                    .and_then(|u| depth_modes.get(&u))
                    .copied()
                    .unwrap_or_default();
                out.push(Line {
                    number,
                    command: Command::Uniform(Uniform {
                        type_name: "int".into(),
                        name: format!("{DEPTH_MODE_UNIFORM}{sampler}"),
                        index: None,
                        columns: 1,
                        rows: 1,
                        data: UniformData::I32(vec![mode as i32]),
                    }),
                });
            }
        }
        match &line.command {
            Command::Texture { unit, .. } => {
                // A new texture object, with GL's initial depth texture mode.
                depth_modes.remove(unit);
                active_unit = *unit;
            }
            Command::Uniform(Uniform {
                name,
                index: None,
                data: UniformData::I32(units),
                ..
            }) => {
                if let (Some(sampler), [unit]) = (
                    program.depth_mode_samplers.get(name.as_str()),
                    units.as_slice(),
                ) {
                    sampler_units.insert(sampler, *unit);
                }
            }
            _ => {}
        }
        match line.command {
            Command::Compat(CompatCommand::Color(rgba)) => {
                if program.current_color {
                    out.push(color(number, rgba));
                }
            }
            Command::Compat(CompatCommand::DepthMode(mode)) => {
                depth_modes.insert(active_unit, mode);
            }
            Command::Compat(CompatCommand::TwoSide(on)) => {
                if program.two_side {
                    out.push(int_uniform(number, TWO_SIDE_UNIFORM, on));
                }
            }
            Command::Compat(CompatCommand::ShadeModel { flat }) => {
                if program.shade_flat {
                    out.push(int_uniform(number, SHADE_FLAT_UNIFORM, flat));
                }
            }
            Command::Compat(CompatCommand::Ortho(bounds)) => {
                let [l, r, b, t] = bounds.unwrap_or([
                    0.0,
                    scene.require.width as f64,
                    0.0,
                    scene.require.height as f64,
                ]);
                push_matrices(&mut out, number, ortho([l, r, b, t]));
            }
            Command::Compat(CompatCommand::Frustum(bounds)) => {
                push_matrices(&mut out, number, frustum(bounds));
            }
            Command::Compat(CompatCommand::ClipPlane(i, plane)) => {
                if program.clip {
                    out.push(Line {
                        number,
                        command: Command::Uniform(Uniform {
                            type_name: "vec4".into(),
                            name: CLIP_PLANE_UNIFORM.into(),
                            index: Some(i),
                            columns: 1,
                            rows: 4,
                            data: UniformData::F32(plane.iter().map(|&v| v as f32).collect()),
                        }),
                    });
                }
            }
            Command::Compat(_) => {
                return Err(SceneError::Fail(format!(
                    "line {number}: display list command out of place"
                )))
            }
            command => out.push(Line { number, command }),
        }
    }
    Ok(out)
}

/// `uniform int NAME 0|1`.
fn int_uniform(number: usize, name: &str, on: bool) -> Line {
    Line {
        number,
        command: Command::Uniform(Uniform {
            type_name: "int".into(),
            name: name.into(),
            index: None,
            columns: 1,
            rows: 1,
            data: UniformData::I32(vec![i32::from(on)]),
        }),
    }
}

/// `glOrtho(l, r, b, t, -1, 1)` on an identity matrix, column-major.
fn ortho([l, r, b, t]: [f64; 4]) -> [f32; 16] {
    let m = [
        2.0 / (r - l),
        0.0,
        0.0,
        0.0,
        0.0,
        2.0 / (t - b),
        0.0,
        0.0,
        0.0,
        0.0,
        -1.0,
        0.0,
        -(r + l) / (r - l),
        -(t + b) / (t - b),
        0.0,
        1.0,
    ];
    m.map(|v| v as f32)
}

/// `glFrustum(l, r, b, t, n, f)` on an identity matrix, column-major.
fn frustum([l, r, b, t, n, f]: [f64; 6]) -> [f32; 16] {
    let m = [
        2.0 * n / (r - l),
        0.0,
        0.0,
        0.0,
        0.0,
        2.0 * n / (t - b),
        0.0,
        0.0,
        (r + l) / (r - l),
        (t + b) / (t - b),
        -(f + n) / (f - n),
        -1.0,
        0.0,
        0.0,
        -2.0 * f * n / (f - n),
        0.0,
    ];
    m.map(|v| v as f32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Mode;

    /// The scene as the player gets it: parsed, then lowered.
    fn parse(text: &str) -> Result<Scene, SceneError> {
        let mut scene = crate::scene::parse(text)?;
        lower(&mut scene)?;
        Ok(scene)
    }

    const REQUIRE: &str = "[require]\nGL COMPAT >= 3.2\nGLSL >= 1.50\n";

    fn lowered(rest: &str) -> Scene {
        parse(&format!("{REQUIRE}{rest}")).unwrap()
    }

    fn source(scene: &Scene, stage: ShaderStage) -> &str {
        &scene
            .shaders
            .iter()
            .find(|s| s.stage == stage)
            .unwrap()
            .source
    }

    fn uniforms(scene: &Scene) -> Vec<&Uniform> {
        scene
            .commands
            .iter()
            .filter_map(|l| match &l.command {
                Command::Uniform(u) => Some(u),
                _ => None,
            })
            .collect()
    }

    const VS_CLIP_VERTEX: &str = "[vertex shader]\n#version 150 compatibility\n\
        void main() { gl_Position = gl_Vertex; gl_ClipVertex = gl_Vertex * 2.0; }\n";

    #[test]
    fn clip_vertex_gives_clip_distances_from_the_planes() {
        let scene = lowered(&format!(
            "{VS_CLIP_VERTEX}[test]\nclip plane 1 0 1 0 -2.5\nenable GL_CLIP_PLANE1\ndraw rect -1 -1 2 2\n"
        ));
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(vs.starts_with("#version 150\n"), "{vs}");
        assert!(vs.contains("in vec4 piglit_vertex;"), "{vs}");
        assert!(
            vs.contains("glsem_out.ClipVertex = piglit_vertex * 2.0;"),
            "{vs}"
        );
        assert!(
            vs.contains("gl_ClipDistance[1] = dot(glsem_out.ClipVertex, glsem_ClipPlane[1]);"),
            "{vs}"
        );
        let plane = uniforms(&scene)
            .into_iter()
            .find(|u| u.name == "glsem_ClipPlane")
            .unwrap();
        assert_eq!(plane.index, Some(1));
        assert_eq!(plane.data, UniformData::F32(vec![0.0, 1.0, 0.0, -2.5]));
        assert!(scene.require.limits.contains(&(Limit::ClipDistances, 8)));
        assert!(
            scene
                .commands
                .iter()
                .any(|l| l.command
                    == Command::Enable(crate::scene::Capability::ClipDistance(1), true))
        );
    }

    #[test]
    fn without_clip_vertex_the_position_is_clipped() {
        let scene = lowered(
            "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; }\n\
             [test]\nclip plane 0 1 0 0 0\ndraw rect -1 -1 2 2\n",
        );
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(vs.contains("gl_ClipDistance[0] = dot(gl_Position, glsem_ClipPlane[0]);"));
    }

    #[test]
    fn written_clip_distances_replace_the_planes() {
        let scene = lowered(
            "[vertex shader]\nout float gl_ClipDistance[1];\n\
             void main() { gl_Position = gl_Vertex; gl_ClipDistance[0] = 1.0; }\n\
             [test]\nclip plane 0 1 0 0 0\ndraw rect -1 -1 2 2\n",
        );
        assert!(!source(&scene, ShaderStage::Vertex).contains("glsem_ClipPlane"));
        assert!(uniforms(&scene).iter().all(|u| u.name != "glsem_ClipPlane"));
    }

    #[test]
    fn clip_vertex_of_a_redeclared_block_travels_to_the_last_stage() {
        let scene = lowered(
            "[vertex shader]\nout gl_PerVertex { vec4 gl_Position; vec4 gl_ClipVertex; };\n\
             void main() { gl_Position = gl_Vertex; gl_ClipVertex = gl_Position; }\n\
             [geometry shader]\nlayout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\n\
             in gl_PerVertex { vec4 gl_Position; vec4 gl_ClipVertex; } gl_in[];\n\
             out gl_PerVertex { vec4 gl_Position; };\n\
             void main() { for (int i = 0; i < 3; i++) { gl_Position = gl_in[i].gl_Position; \
             gl_ClipVertex = gl_in[i].gl_ClipVertex; EmitVertex(); } }\n\
             [test]\nclip plane 0 1 0 0 0\ndraw rect -1 -1 2 2\n",
        );
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(!vs.contains("gl_ClipVertex"), "{vs}");
        assert!(!vs.contains("gl_ClipDistance"), "{vs}");
        let gs = source(&scene, ShaderStage::Geometry);
        assert!(
            gs.contains("glsem_out.ClipVertex = glsem_in[i].ClipVertex;"),
            "{gs}"
        );
        assert!(gs.contains("glsem_EmitVertex();"), "{gs}");
        // The last stage's redeclared block gets the clip distances.
        assert!(
            gs.contains("out gl_PerVertex { float gl_ClipDistance[8];"),
            "{gs}"
        );
        assert!(gs.contains("dot(glsem_out.ClipVertex, glsem_ClipPlane[7]);\n    EmitVertex();"));
    }

    #[test]
    fn colours_clamp_in_the_last_stage_only() {
        let scene = lowered(
            "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; gl_FrontColor = vec4(2.0); }\n\
             [geometry shader]\nlayout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\n\
             void main() { for (int i = 0; i < 3; i++) { gl_Position = gl_in[i].gl_Position; \
             gl_FrontColor = gl_in[i].gl_FrontColor - 1.0; EmitVertex(); } }\n\
             [fragment shader]\nvoid main() { gl_FragColor = gl_Color; }\n\
             [test]\ndraw rect -1 -1 2 2\n",
        );
        assert!(!source(&scene, ShaderStage::Vertex).contains("clamp"));
        let gs = source(&scene, ShaderStage::Geometry);
        assert!(
            gs.contains("glsem_out.FrontColor = glsem_in[i].FrontColor - 1.0;"),
            "{gs}"
        );
        assert!(gs.contains("glsem_out.FrontColor = clamp(glsem_out.FrontColor, 0.0, 1.0);"));
        let fs = source(&scene, ShaderStage::Fragment);
        assert!(fs.contains("gl_FragColor = glsem_in.FrontColor;"), "{fs}");
    }

    #[test]
    fn fixed_function_fragment_outputs_the_primary_colour() {
        let scene = lowered(
            "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; gl_FrontColor = vec4(1.0); }\n\
             [test]\ndraw rect -1 -1 2 2\n",
        );
        let fs = source(&scene, ShaderStage::Fragment);
        assert!(
            fs.contains("in glsem_Compat { vec4 FrontColor; } glsem_in;"),
            "{fs}"
        );
        assert!(fs.contains("gl_FragColor = glsem_in.FrontColor;"), "{fs}");
        // The vertex shader is last: its colour is clamped after its main.
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(vs.contains("void glsem_main()"), "{vs}");
        assert!(
            vs.contains("glsem_main();\n    glsem_out.FrontColor = clamp("),
            "{vs}"
        );
    }

    #[test]
    fn tex_coord_redeclarations_size_the_block() {
        let scene = lowered(
            "[vertex shader]\nout vec4 gl_TexCoord[5];\n\
             void main() { gl_Position = gl_Vertex; gl_TexCoord[4] = vec4(1.0); }\n\
             [fragment shader]\n#version 110\nvarying vec4 gl_TexCoord[5];\n\
             void main() { gl_FragColor = gl_TexCoord[4]; }\n[test]\ndraw rect -1 -1 2 2\n",
        );
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(
            vs.contains("out glsem_Compat { vec4 TexCoord[5]; } glsem_out;"),
            "{vs}"
        );
        assert!(!vs.contains("gl_TexCoord"), "{vs}");
        let fs = source(&scene, ShaderStage::Fragment);
        assert!(fs.starts_with("#version 150\n"), "{fs}");
        assert!(fs.contains("gl_FragColor = glsem_in.TexCoord[4];"), "{fs}");
        assert!(!fs.contains("varying"), "{fs}");
    }

    #[test]
    fn attribute_and_varying_become_in_and_out() {
        let scene = lowered(
            "[vertex shader]\n#version 120\nattribute vec2 pos;\nvarying float v;\n\
             void main() { gl_Position = vec4(pos, 0, 1); v = 1.0; }\n\
             [fragment shader]\n#version 120\nvarying float v;\nvoid main() { gl_FragColor = vec4(v); }\n\
             [test]\ndraw rect -1 -1 2 2\n",
        );
        assert!(source(&scene, ShaderStage::Vertex).contains("in vec2 pos;\nout float v;"));
        assert!(source(&scene, ShaderStage::Fragment).contains("in float v;"));
    }

    #[test]
    fn matrices_start_as_identity_and_ortho_sets_the_projection() {
        let scene = lowered(
            "[vertex shader]\nvoid main() { gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex; }\n\
             [test]\northo 0 1 0 2\ndraw rect 0 0 1 1\n",
        );
        assert!(source(&scene, ShaderStage::Vertex)
            .contains("gl_Position = glsem_ModelViewProjectionMatrix * piglit_vertex;"));
        let set = uniforms(&scene);
        assert_eq!(set.len(), 2);
        let identity = [
            1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
        ];
        assert_eq!(set[0].data, UniformData::F32(identity.to_vec()));
        // glOrtho(0, 1, 0, 2, -1, 1), column-major.
        let ortho = [
            2., 0., 0., 0., 0., 1., 0., 0., 0., 0., -1., 0., -1., -1., 0., 1.,
        ];
        assert_eq!(set[1].data, UniformData::F32(ortho.to_vec()));
    }

    #[test]
    fn display_lists_replay_where_called() {
        let scene = lowered(
            "[vertex shader]\nin vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n\
             [test]\nnewlist GL_COMPILE\npatch parameter vertices 3\nclear\nendlist\n\
             probe all rgba 0 0 0 0\npatch parameter vertices 4\ncalllist\ndeletelist\ncalllist\n\
             newlist GL_COMPILE_AND_EXECUTE\nclear color 1 0 0 1\nendlist\n",
        );
        let got: Vec<&Command> = scene.commands.iter().map(|l| &l.command).collect();
        assert!(matches!(
            got.as_slice(),
            [
                Command::Probe(_),
                Command::PatchVertices(4),
                Command::PatchVertices(3),
                Command::Clear,
                Command::ClearColor(_),
            ]
        ));
    }

    #[test]
    fn commands_a_list_cannot_hold_skip() {
        let e = parse(&format!(
            "{REQUIRE}[vertex shader]\nvoid main() {{ gl_Position = gl_Vertex; }}\n\
             [test]\nnewlist GL_COMPILE\nssbo 0 16\nendlist\n"
        ))
        .unwrap_err();
        assert!(matches!(e, SceneError::Skip(_)), "{e}");
    }

    #[test]
    fn primitive_modes_are_left_to_the_layer() {
        let scene = lowered(
            "[vertex shader]\nin vec4 piglit_vertex;\n\
             void main() { gl_Position = piglit_vertex; }\n\
             [fragment shader]\nout vec4 c;\nvoid main() { c = vec4(gl_PrimitiveID); }\n\
             [vertex data]\npiglit_vertex/float/1\n0\n1\n2\n3\n4\n5\n\
             [test]\nprovoking vertex first\ndraw arrays GL_QUADS 0 4\n\
             draw arrays instanced GL_QUAD_STRIP 0 6 2\ndraw arrays GL_POLYGON 0 5\n",
        );
        // No vertices appended, no triangles: the draws are GL's, for the player to draw
        // through the layer; gl_PrimitiveID is GL's own.
        assert_eq!(scene.vertex_data.as_ref().unwrap().vertex_count, 6);
        let draws: Vec<(Mode, u32, u32)> = scene
            .commands
            .iter()
            .filter_map(|l| match l.command {
                Command::DrawArrays {
                    mode,
                    count,
                    instances,
                    ..
                } => Some((mode, count, instances)),
                _ => None,
            })
            .collect();
        assert_eq!(
            draws,
            [
                (Mode::Quads, 4, 1),
                (Mode::QuadStrip, 6, 2),
                (Mode::Polygon, 5, 1)
            ]
        );
        let fs = source(&scene, ShaderStage::Fragment);
        assert!(fs.contains("c = vec4(gl_PrimitiveID);"), "{fs}");
        assert!(!scene
            .commands
            .iter()
            .any(|l| matches!(l.command, Command::Uniform(_))));
    }

    const GLSL_110: &str = "[require]\nGLSL >= 1.10\n";

    #[test]
    fn glsl_110_without_a_vertex_shader_gets_the_fixed_function_one() {
        let scene = parse(&format!(
            "{GLSL_110}[fragment shader]\nvoid main() {{ gl_FragColor = gl_Color + gl_TexCoord[0]; }}\n\
             [test]\ncolor 0.25 0.5 0.75 1.0\ndraw rect tex -1 -1 2 2 0 0 1 1\n"
        ))
        .unwrap();
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(vs.starts_with("#version 150\n"), "{vs}");
        assert!(
            vs.contains("gl_Position = glsem_ModelViewProjectionMatrix * piglit_vertex;"),
            "{vs}"
        );
        assert!(vs.contains("glsem_out.FrontColor = glsem_Color;"), "{vs}");
        assert!(
            vs.contains("glsem_out.TexCoord[0] = piglit_texcoord;"),
            "{vs}"
        );
        let colors: Vec<[u32; 4]> = scene
            .commands
            .iter()
            .filter_map(|l| match &l.command {
                Command::VertexAttrib { name, value, .. } if name == CURRENT_COLOR => Some(*value),
                _ => None,
            })
            .collect();
        // GL's initial current colour, then `color`'s.
        assert_eq!(
            colors,
            vec![
                [1.0f32; 4].map(f32::to_bits),
                [0.25f32, 0.5, 0.75, 1.0].map(f32::to_bits)
            ]
        );
    }

    #[test]
    fn glsl_110_texture_functions_become_glsl_130_ones() {
        let scene = parse(&format!(
            "{GLSL_110}[vertex shader]\nvoid main() {{ gl_Position = ftransform(); }}\n\
             [fragment shader]\nuniform sampler2D s;\nuniform sampler2DShadow t;\n\
             void main() {{ gl_FragColor = texture2DProj(s, vec3(0.5)) + shadow2D(t, vec3(0.5)); }}\n\
             [test]\nuniform int t 1\ntexture shadow2D 1 (4, 4)\ntexparameter 2D depth_mode alpha\n\
             draw rect -1 -1 2 2\n"
        ))
        .unwrap();
        assert!(source(&scene, ShaderStage::Vertex)
            .contains("gl_Position = (glsem_ModelViewProjectionMatrix * piglit_vertex);"));
        let fs = source(&scene, ShaderStage::Fragment);
        assert!(
            fs.contains(
                "textureProj(s, vec3(0.5)) + glsem_depth_mode(texture(t, vec3(0.5)), glsem_DepthMode_t)"
            ),
            "{fs}"
        );
        let mode = uniforms(&scene)
            .into_iter()
            .find(|u| u.name == "glsem_DepthMode_t")
            .unwrap();
        assert_eq!(mode.data, UniformData::I32(vec![DepthMode::Alpha as i32]));
    }

    #[test]
    fn names_later_glsl_made_keywords_are_renamed() {
        let scene = parse(&format!(
            "{GLSL_110}[vertex shader]\nvoid main() {{ float flat = 1.0; gl_Position = vec4(flat); }}\n"
        ))
        .unwrap();
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(vs.contains("float glsem_flat = 1.0;"), "{vs}");
    }

    #[test]
    fn built_ins_not_emulated_skip() {
        for built_in in [
            "gl_Normal",
            "gl_MultiTexCoord1",
            "gl_NormalMatrix[0]",
            "gl_SecondaryColor",
        ] {
            let e = parse(&format!(
                "{REQUIRE}[vertex shader]\nvoid main() {{ gl_Position = vec4({built_in}.x); }}\n"
            ))
            .unwrap_err();
            let SceneError::Skip(why) = e else {
                panic!("{built_in}: {e}")
            };
            assert!(why.contains(built_in.split('[').next().unwrap()), "{why}");
        }
    }

    #[test]
    fn what_the_rewrite_cannot_see_skips() {
        for vs in [
            "#define COLOR gl_FrontColor\nvoid main() { gl_Position = gl_Vertex; COLOR = vec4(1.0); }",
            // gl_Vertex is generic attribute 0: all four components of piglit_vertex.
            "in vec2 piglit_vertex;\nvoid main() { gl_Position = gl_Vertex; }",
        ] {
            let e = parse(&format!("{REQUIRE}[vertex shader]\n{vs}\n")).unwrap_err();
            assert!(matches!(e, SceneError::Skip(_)), "{e}");
        }
    }

    #[test]
    fn colours_keep_their_interpolation_qualifiers_and_others_skip() {
        // `gl_Color` names the front and the back colour.
        let scene = lowered(
            "[vertex shader]\nnoperspective out vec4 gl_FrontSecondaryColor;\n\
             flat out vec4 gl_BackColor;\n\
             void main() { gl_Position = gl_Vertex; gl_BackColor = vec4(1.0);\n\
             gl_FrontSecondaryColor = vec4(0.5); }\n\
             [fragment shader]\nflat in vec4 gl_Color;\nvoid main() { gl_FragColor = gl_Color; }\n",
        );
        let fs = source(&scene, ShaderStage::Fragment);
        for stage in [ShaderStage::Vertex, ShaderStage::Fragment] {
            let source = source(&scene, stage);
            for member in [
                " flat vec4 FrontColor;",
                " flat vec4 BackColor;",
                " noperspective vec4 FrontSecondaryColor;",
            ] {
                assert!(source.contains(member), "{member} in {source}");
            }
        }
        // Without two-sided colouring or a shade model, the front colour as it is.
        assert!(fs.contains("gl_FragColor = glsem_in.FrontColor;"), "{fs}");
        for qualifier in ["centroid", "invariant"] {
            let e = parse(&format!(
                "{REQUIRE}[vertex shader]\nvoid main() {{ gl_Position = gl_Vertex; }}\n\
                 [fragment shader]\n{qualifier} in vec4 gl_Color;\n\
                 void main() {{ gl_FragColor = gl_Color; }}\n"
            ))
            .unwrap_err();
            assert!(matches!(e, SceneError::Skip(_)), "{e}");
        }
    }

    #[test]
    fn colours_both_stages_use_with_other_qualifiers_fail_to_link() {
        let program = |vs_decl: &str, vs_use: &str, fs_decl: &str, fs_use: &str| {
            parse(&format!(
                "[require]\nGLSL >= 1.30\n[vertex shader]\n{vs_decl}\n\
                 void main() {{ gl_Position = vec4(0); {vs_use} }}\n\
                 [fragment shader]\n{fs_decl}\nout vec4 c;\nvoid main() {{ c = {fs_use}; }}\n"
            ))
        };
        let link_error = |r: Result<Scene, SceneError>| matches!(r, Err(SceneError::Fail(m)) if crate::glsl::is_link_error(&m));
        // No qualifier differs from `smooth`; the back colour counts as the front one does.
        assert!(link_error(program(
            "",
            "gl_FrontColor = vec4(1);",
            "smooth in vec4 gl_Color;",
            "gl_Color"
        )));
        assert!(link_error(program(
            "noperspective out vec4 gl_BackSecondaryColor;",
            "gl_BackSecondaryColor = vec4(0); gl_FrontSecondaryColor = vec4(1);",
            "noperspective in vec4 gl_SecondaryColor;",
            "gl_SecondaryColor"
        )));
        // Alike, or one side unused: it links.
        assert!(program(
            "flat out vec4 gl_BackColor;",
            "gl_BackColor = vec4(1);",
            "flat in vec4 gl_Color;",
            "gl_Color"
        )
        .is_ok());
        assert!(program(
            "flat out vec4 gl_BackColor;",
            "",
            "in vec4 gl_Color;",
            "gl_Color"
        )
        .is_ok());
        assert!(program(
            "flat out vec4 gl_FrontColor;",
            "gl_FrontColor = vec4(1);",
            "smooth in vec4 gl_Color;",
            "vec4(0)"
        )
        .is_ok());
    }

    #[test]
    fn two_sided_colouring_and_the_shade_model_choose_the_fragment_colour() {
        let scene = lowered(
            "[vertex shader]\n\
             void main() { gl_Position = gl_Vertex; gl_FrontColor = vec4(1.0); gl_BackColor = vec4(0.5); }\n\
             [fragment shader]\nvoid main() { gl_FragColor = gl_Color + gl_TexCoord[0]; }\n\
             [test]\nenable GL_VERTEX_PROGRAM_TWO_SIDE\nshade model flat\ndraw rect -1 -1 2 2\n\
             shade model smooth\ndisable GL_VERTEX_PROGRAM_TWO_SIDE\n",
        );
        let (vs, fs) = (
            source(&scene, ShaderStage::Vertex),
            source(&scene, ShaderStage::Fragment),
        );
        // The unqualified colours travel twice, their flat copies written as they are
        // clamped.
        for source in [vs, fs] {
            for member in [
                " vec4 FrontColor; flat vec4 FrontColor_flat;",
                " vec4 BackColor; flat vec4 BackColor_flat;",
            ] {
                assert!(source.contains(member), "{member} in {source}");
            }
        }
        for copy in [
            "glsem_out.FrontColor_flat = glsem_out.FrontColor;",
            "glsem_out.BackColor_flat = glsem_out.BackColor;",
        ] {
            assert!(vs.contains(copy), "{vs}");
        }
        assert!(fs.contains("uniform int glsem_TwoSide;"), "{fs}");
        assert!(fs.contains("uniform int glsem_ShadeFlat;"), "{fs}");
        assert!(
            fs.contains(
                "return glsem_TwoSide != 0 && !gl_FrontFacing \
                 ? (glsem_ShadeFlat != 0 ? glsem_in.BackColor_flat : glsem_in.BackColor) \
                 : (glsem_ShadeFlat != 0 ? glsem_in.FrontColor_flat : glsem_in.FrontColor);"
            ),
            "{fs}"
        );
        assert!(
            fs.contains("gl_FragColor = glsem_Color() + glsem_in.TexCoord[0];"),
            "{fs}"
        );
        let set: Vec<(&str, &UniformData)> = uniforms(&scene)
            .into_iter()
            .filter(|u| u.name.starts_with("glsem_TwoSide") || u.name.starts_with("glsem_Shade"))
            .map(|u| (u.name.as_str(), &u.data))
            .collect();
        assert_eq!(
            set,
            [
                ("glsem_TwoSide", &UniformData::I32(vec![1])),
                ("glsem_ShadeFlat", &UniformData::I32(vec![1])),
                ("glsem_ShadeFlat", &UniformData::I32(vec![0])),
                ("glsem_TwoSide", &UniformData::I32(vec![0])),
            ]
        );
    }

    #[test]
    fn without_a_fragment_shader_gls_fixed_function_reads_the_chosen_colour() {
        let scene = lowered(
            "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; gl_BackColor = vec4(0.5); }\n\
             [test]\nenable GL_VERTEX_PROGRAM_TWO_SIDE\n",
        );
        let fs = source(&scene, ShaderStage::Fragment);
        assert!(fs.contains("gl_FragColor = glsem_Color();"), "{fs}");
        assert!(
            fs.contains(
                "return glsem_TwoSide != 0 && !gl_FrontFacing ? glsem_in.BackColor : glsem_in.FrontColor;"
            ),
            "{fs}"
        );
    }

    #[test]
    fn gl_vertex_is_a_declared_piglit_vertex() {
        let scene = lowered(
            "[vertex shader]\nin vec4 piglit_vertex;\n\
             void main() { gl_Position = gl_Vertex + piglit_vertex; }\n",
        );
        let vs = source(&scene, ShaderStage::Vertex);
        assert_eq!(vs.matches("in vec4 piglit_vertex").count(), 1, "{vs}");
        assert!(
            vs.contains("gl_Position = piglit_vertex + piglit_vertex;"),
            "{vs}"
        );
    }

    #[test]
    fn core_scenes_know_no_compatibility_commands() {
        let e = parse("[require]\nGLSL >= 1.50\n[test]\northo\n").unwrap_err();
        assert!(matches!(e, SceneError::Skip(_)), "{e}");
    }

    #[test]
    fn comments_naming_built_ins_change_nothing() {
        let scene = lowered(
            "[vertex shader]\n// gl_ClipVertex, gl_Normal\nvoid main() { gl_Position = gl_Vertex; /* gl_FrontColor */ }\n\
             [fragment shader]\nvoid main() { gl_FragColor = vec4(1.0); }\n[test]\nclip plane 0 1 0 0 0\ndraw rect -1 -1 2 2\n",
        );
        let vs = source(&scene, ShaderStage::Vertex);
        assert!(vs.contains("dot(gl_Position, glsem_ClipPlane[0])"), "{vs}");
        assert!(!vs.contains("glsem_Compat"), "{vs}");
    }
}
