//! Layer settings, resolved as Vulkan-Utility-Libraries does: `VkLayerSettingsCreateInfoEXT`
//! (lowest), then `vk_layer_settings.txt` (`glsem_gl_semantics.<setting> = value`), then
//! environment variables `VK_GLSEM_<SETTING>` (highest).

use crate::layer::support::ffi::slice;
use crate::layer::support::log::Level;
use ash::vk;
use glsem_abi as abi;
use glsem_spirv::semantics::PrimitiveRoute;
use glsem_spirv::semantics::{SemanticSet, WindowOrigin, SEMANTICS};
use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};

/// Key prefix in `vk_layer_settings.txt`: the layer name without `VK_LAYER_`, lower case.
const FILE_PREFIX: &str = "glsem_gl_semantics.";
const ENV_PREFIX: &str = "VK_GLSEM_";

/// The settings that are not a semantic's (those come from [`SEMANTICS`]); the manifest
/// declares both lists.
pub const KEYS: [&str; 11] = [
    "log_level",
    "dump_dir",
    "rewrite_cache_mb",
    // Test-only: panic inside the named entry points ("vkCreateShaderModule,...") to prove
    // that the guard keeps the process alive. "vkCreateGraphicsPipelines/plan" and
    // "vkCreateGraphicsPipelines/record" name the planner's rewrite path and its records.
    "debug_inject_panic",
    // How the application maps GL's window onto the framebuffer (VK_GLSEM_gl_state).
    "window_origin",
    // How GL's quads, quad strips and polygons are drawn: auto, geometry or indices.
    "primitive_mode_route",
    // Who decides a line endpoint on a diamond's edge: auto (the per-driver table), layer
    // or driver.
    "line_endpoints",
    // How GL's aliased lines are given: auto (the per-driver table), bresenham (the
    // driver's Bresenham lines) or fragment (the fragment shader discards what GL would not
    // draw).
    "line_route",
    // Test-only: every vertex attribute in a format the layer can read otherwise is read
    // otherwise, whether the device has its format or not (the vertex_formats semantic).
    "debug_force_vertex_formats",
    // Test-only: gl_InstanceID takes its base from the GL-state block even where the
    // device has shaderDrawParameters (the route of devices without it).
    "debug_force_instance_base_block",
    // Test-only: links of pipeline libraries take GL's line rule by making their
    // pre-rasterization library again, even where the device has a dynamic line mode (the
    // route of devices without it).
    "debug_force_line_rule_at_link",
];

/// Setting `line_route`: how GL's aliased lines are given (the line rule's `setup_device`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRoute {
    /// Bresenham lines where the driver has them and draws GL's pixels with them, the
    /// fragment route elsewhere.
    Auto,
    /// The driver's Bresenham lines (`bresenhamLines`).
    Bresenham,
    /// The driver's rectangular lines, and the fragment shader discards the fragments GL's
    /// diamond-exit rule and line pattern would not produce.
    Fragment,
}

/// Setting `line_endpoints`: who decides a line endpoint that the rasterizer snaps onto a
/// pixel diamond's edge (the line rule's per-driver table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEndpointSetting {
    /// The layer on drivers known to decide it otherwise than GL, the driver elsewhere.
    Auto,
    /// The layer moves it off the edge, on every driver.
    Layer,
    /// The driver decides.
    Driver,
    /// Testing only: the layer moves it into the diamond, GL's choice turned over, so that
    /// a driver that decides as GL shows where the route runs.
    DebugTowardCentre,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The semantics their settings leave on (all by default).
    pub semantics: SemanticSet,
    pub log_level: Level,
    pub dump_dir: Option<PathBuf>,
    /// `rewrite_cache_mb`: what the rewrite cache may hold per device, in MiB (0: nothing).
    pub rewrite_cache_mb: u32,
    pub debug_inject_panic: Option<String>,
    /// `window_origin`: `flipped` (a negative viewport, the default), `lower_left` or `vulkan`.
    pub window_origin: WindowOrigin,
    /// `primitive_mode_route`: `auto` (`None`: the geometry shader where the device enabled
    /// `geometryShader`, else the index route), `geometry` or `indices`.
    pub primitive_route: Option<PrimitiveRoute>,
    /// `line_endpoints`: who decides a line endpoint on a diamond's edge.
    pub line_endpoints: LineEndpointSetting,
    /// `line_route`: how GL's aliased lines are given.
    pub line_route: LineRoute,
    /// `debug_force_vertex_formats`: the `vertex_formats` semantic applies to formats the
    /// device has too.
    pub debug_force_vertex_formats: bool,
    /// `debug_force_instance_base_block`: the layer leaves `shaderDrawParameters` off, and
    /// `gl_InstanceID` reads its base from the GL-state block.
    pub debug_force_instance_base_block: bool,
    /// `debug_force_line_rule_at_link`: a pre-rasterization library's line mode is not made
    /// dynamic state; each link makes the library again with GL's line rule.
    pub debug_force_line_rule_at_link: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            semantics: SemanticSet::ALL,
            log_level: Level::Warn,
            dump_dir: None,
            rewrite_cache_mb: 64,
            debug_inject_panic: None,
            window_origin: WindowOrigin::Flipped,
            primitive_route: None,
            line_endpoints: LineEndpointSetting::Auto,
            line_route: LineRoute::Auto,
            debug_force_vertex_formats: false,
            debug_force_instance_base_block: false,
            debug_force_line_rule_at_link: false,
        }
    }
}

/// One raw value and where it came from, for messages.
struct Raw<'a> {
    value: String,
    source: &'a str,
}

impl Settings {
    pub fn rewrite_cache_bytes(&self) -> usize {
        (self.rewrite_cache_mb as usize).saturating_mul(1 << 20)
    }

    /// Resolves the settings from the three sources; returns the warnings about bad values
    /// (the caller logs them once the log level is known).
    pub fn resolve(
        api: &[(String, String)],
        file: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> (Settings, Vec<String>) {
        let file_values = file.map(parse_file).unwrap_or_default();
        let mut settings = Settings::default();
        let mut warnings = Vec::new();
        let semantic_keys = SEMANTICS
            .iter()
            .filter_map(|s| Some(s.setting.as_ref()?.key));
        for key in KEYS.into_iter().chain(semantic_keys) {
            let env_name = format!("{ENV_PREFIX}{}", key.to_ascii_uppercase());
            let raw = env(&env_name)
                .map(|value| Raw {
                    value,
                    source: "environment",
                })
                .or_else(|| {
                    file_values
                        .iter()
                        .rev()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| Raw {
                            value: v.clone(),
                            source: "vk_layer_settings.txt",
                        })
                })
                .or_else(|| {
                    api.iter().rev().find(|(k, _)| k == key).map(|(_, v)| Raw {
                        value: v.clone(),
                        source: "VkLayerSettingsCreateInfoEXT",
                    })
                });
            let Some(raw) = raw else { continue };
            if let Err(expected) = settings.apply(key, raw.value.trim()) {
                warnings.push(format!(
                    "setting {key} = \"{}\" from {} is not {expected}; using the default",
                    raw.value, raw.source
                ));
            }
        }
        (settings, warnings)
    }

    /// Sets `key` from `value`, or says what the value should have been.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), Expected> {
        let semantic = SEMANTICS
            .iter()
            .find_map(|s| Some((s.semantic, s.setting.as_ref().filter(|s| s.key == key)?)));
        if let Some((semantic, setting)) = semantic {
            let on = match value {
                v if v == setting.on => true,
                v if v == setting.off => false,
                // on/off settings also take the boolean spellings.
                v if setting.on == "on" => parse_bool(v).map_err(Expected::Described)?,
                _ => return Err(Expected::Either(setting.on, setting.off)),
            };
            self.semantics.set(semantic, on);
            return Ok(());
        }
        match key {
            "log_level" => {
                self.log_level =
                    Level::parse(value).ok_or(Expected::Described("error, warn, info or debug"))?
            }
            "dump_dir" => self.dump_dir = (!value.is_empty()).then(|| PathBuf::from(value)),
            "rewrite_cache_mb" => {
                self.rewrite_cache_mb = value
                    .parse()
                    .map_err(|_| Expected::Described("a whole number of MiB"))?
            }
            "debug_inject_panic" => {
                self.debug_inject_panic = (!value.is_empty()).then(|| value.to_owned())
            }
            "window_origin" => self.window_origin = one_of(value, &WINDOW_ORIGINS)?,
            "primitive_mode_route" => self.primitive_route = one_of(value, &PRIMITIVE_ROUTES)?,
            "line_endpoints" => self.line_endpoints = one_of(value, &LINE_ENDPOINTS)?,
            "line_route" => self.line_route = one_of(value, &LINE_ROUTES)?,
            "debug_force_vertex_formats" => {
                self.debug_force_vertex_formats = parse_bool(value).map_err(Expected::Described)?
            }
            "debug_force_instance_base_block" => {
                self.debug_force_instance_base_block =
                    parse_bool(value).map_err(Expected::Described)?
            }
            "debug_force_line_rule_at_link" => {
                self.debug_force_line_rule_at_link =
                    parse_bool(value).map_err(Expected::Described)?
            }
            _ => unreachable!("KEYS and SEMANTICS list every setting"),
        }
        Ok(())
    }

    /// Resolves the settings of an instance being created: `pNext` of its create info, the
    /// settings file and the process environment.
    ///
    /// # Safety
    /// `p_next` must be a valid `VkInstanceCreateInfo` `pNext` chain.
    pub unsafe fn for_instance(p_next: *const c_void) -> (Settings, Vec<String>) {
        // SAFETY: the caller's contract.
        let api = unsafe { api_settings(p_next) };
        let file = settings_file().and_then(|path| std::fs::read_to_string(path).ok());
        Settings::resolve(&api, file.as_deref(), &|name| std::env::var(name).ok())
    }
}

/// What a setting's value should have been, for the warning that names the bad value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Expected {
    /// The two values of a semantic's switch, from the registry.
    #[error("{0} or {1}")]
    Either(&'static str, &'static str),
    #[error("{0}")]
    Described(&'static str),
    /// An enumerated setting's values, "a, b or c".
    #[error("{0}")]
    OneOf(String),
}

/// The enumerated settings' values by name, in the order their errors list them.
const WINDOW_ORIGINS: [(&str, WindowOrigin); 3] = [
    ("flipped", WindowOrigin::Flipped),
    ("lower_left", WindowOrigin::LowerLeft),
    ("vulkan", WindowOrigin::Vulkan),
];
const PRIMITIVE_ROUTES: [(&str, Option<PrimitiveRoute>); 3] = [
    ("auto", None),
    ("geometry", Some(PrimitiveRoute::Geometry)),
    ("indices", Some(PrimitiveRoute::Indices)),
];
const LINE_ENDPOINTS: [(&str, LineEndpointSetting); 4] = [
    ("auto", LineEndpointSetting::Auto),
    ("layer", LineEndpointSetting::Layer),
    ("driver", LineEndpointSetting::Driver),
    (
        "debug_toward_centre",
        LineEndpointSetting::DebugTowardCentre,
    ),
];
const LINE_ROUTES: [(&str, LineRoute); 3] = [
    ("auto", LineRoute::Auto),
    ("bresenham", LineRoute::Bresenham),
    ("fragment", LineRoute::Fragment),
];

/// The value of an enumerated setting: the one of `choices` (name, value) named `value`.
fn one_of<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, Expected> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|&(_, chosen)| chosen)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
            match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    Expected::OneOf(format!("{} or {last}", rest.join(", ")))
                }
                _ => Expected::OneOf(names.concat()),
            }
        })
}

fn parse_bool(value: &str) -> Result<bool, &'static str> {
    match value {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err("on or off"),
    }
}

/// `key = value` lines of the glsem keys; `#` starts a comment.
fn parse_file(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.split('#').next()?.trim();
            let (key, value) = line.split_once('=')?;
            let key = key.trim().strip_prefix(FILE_PREFIX)?;
            Some((key.to_owned(), value.trim().to_owned()))
        })
        .collect()
}

/// `VK_LAYER_SETTINGS_PATH` (a file, or a directory holding `vk_layer_settings.txt`), else
/// `vk_layer_settings.txt` in the current directory.
fn settings_file() -> Option<PathBuf> {
    const NAME: &str = "vk_layer_settings.txt";
    match std::env::var_os("VK_LAYER_SETTINGS_PATH") {
        Some(path) => {
            let path = PathBuf::from(path);
            Some(if path.is_dir() { path.join(NAME) } else { path })
        }
        None => Some(Path::new(NAME).to_path_buf()).filter(|p| p.is_file()),
    }
}

/// The values `VkLayerSettingsCreateInfoEXT` structs in the chain give this layer, as
/// strings. Booleans become `on`/`off`, integers their decimal form; other types are ignored
/// with a warning.
///
/// # Safety
/// `p_next` must be a valid `pNext` chain.
unsafe fn api_settings(mut p_next: *const c_void) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // SAFETY: a valid chain (the caller's contract); in a VkLayerSettingsCreateInfoEXT,
    // pSettings holds settingCount settings, each with nul-terminated names and pValues
    // pointing at valueCount values of its declared type (Vulkan's valid usage).
    unsafe {
        while !p_next.is_null() {
            let base = &*(p_next as *const vk::BaseInStructure);
            if base.s_type == vk::StructureType::LAYER_SETTINGS_CREATE_INFO_EXT {
                let info = &*(p_next as *const vk::LayerSettingsCreateInfoEXT);
                let settings = slice(info.p_settings, info.setting_count);
                for setting in settings {
                    if setting.p_layer_name.is_null()
                        || CStr::from_ptr(setting.p_layer_name).to_bytes()
                            != abi::LAYER_NAME.as_bytes()
                        || setting.p_setting_name.is_null()
                        || setting.value_count == 0
                        || setting.p_values.is_null()
                    {
                        continue;
                    }
                    let name = CStr::from_ptr(setting.p_setting_name)
                        .to_string_lossy()
                        .into_owned();
                    let value = match setting.ty {
                        vk::LayerSettingTypeEXT::STRING => {
                            let s = *(setting.p_values as *const *const c_char);
                            if s.is_null() {
                                continue;
                            }
                            CStr::from_ptr(s).to_string_lossy().into_owned()
                        }
                        vk::LayerSettingTypeEXT::BOOL32 => {
                            let b = *(setting.p_values as *const vk::Bool32);
                            if b != 0 { "on" } else { "off" }.to_owned()
                        }
                        vk::LayerSettingTypeEXT::INT32 => {
                            (*(setting.p_values as *const i32)).to_string()
                        }
                        vk::LayerSettingTypeEXT::UINT32 => {
                            (*(setting.p_values as *const u32)).to_string()
                        }
                        vk::LayerSettingTypeEXT::INT64 => {
                            (*(setting.p_values as *const i64)).to_string()
                        }
                        vk::LayerSettingTypeEXT::UINT64 => {
                            (*(setting.p_values as *const u64)).to_string()
                        }
                        other => {
                            crate::layer::support::log::warning!(
                            "setting {name}: VkLayerSettingTypeEXT {other:?} is not supported; \
                             use STRING, BOOL32 or an integer type"
                        );
                            continue;
                        }
                    };
                    out.push((name, value));
                }
            }
            p_next = base.p_next as *const c_void;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glsem_spirv::semantics::Semantic;

    fn api(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    /// The settings of `pairs` given through the API alone.
    fn from_api(pairs: &[(&str, &str)]) -> (Settings, Vec<String>) {
        Settings::resolve(&api(pairs), None, &no_env)
    }

    #[test]
    fn defaults_without_any_source() {
        let (s, w) = Settings::resolve(&[], None, &no_env);
        assert_eq!(s, Settings::default());
        assert_eq!(s.semantics, SemanticSet::ALL);
        assert_eq!(s.log_level, Level::Warn);
        assert!(w.is_empty());
    }

    #[test]
    fn api_alone_applies() {
        let (s, _) = from_api(&[("xfb_split", "off")]);
        assert!(!s.semantics.contains(Semantic::XfbSplit));
    }

    #[test]
    fn file_beats_api() {
        let file = "# comment\nglsem_gl_semantics.xfb_split = on\n";
        let (s, _) = Settings::resolve(&api(&[("xfb_split", "off")]), Some(file), &no_env);
        assert!(s.semantics.contains(Semantic::XfbSplit));
    }

    #[test]
    fn env_beats_file_and_api() {
        let file = "glsem_gl_semantics.log_level = debug\n";
        let env = |name: &str| (name == "VK_GLSEM_LOG_LEVEL").then(|| "error".to_owned());
        let (s, _) = Settings::resolve(&api(&[("log_level", "info")]), Some(file), &env);
        assert_eq!(s.log_level, Level::Error);
    }

    #[test]
    fn other_layers_keys_in_the_file_are_ignored() {
        let file = "khronos_validation.log_level = info\nglsem_gl_semantics.passthrough_tcs=off";
        let (s, _) = Settings::resolve(&[], Some(file), &no_env);
        assert_eq!(s.log_level, Level::Warn);
        assert!(!s.semantics.contains(Semantic::PassthroughTcs));
    }

    #[test]
    fn bad_value_warns_and_uses_the_default() {
        let env = |name: &str| (name == "VK_GLSEM_FRAGCOLOR_BROADCAST").then(|| "maybe".to_owned());
        let (s, w) = Settings::resolve(&api(&[("fragcolor_broadcast", "off")]), None, &env);
        assert!(
            s.semantics.contains(Semantic::FragColor),
            "the default is auto"
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("fragcolor_broadcast") && w[0].contains("environment"));
    }

    #[test]
    fn dump_dir_and_empty_value() {
        let (s, _) = from_api(&[("dump_dir", "/tmp/x")]);
        assert_eq!(s.dump_dir, Some(PathBuf::from("/tmp/x")));
        let env = |name: &str| (name == "VK_GLSEM_DUMP_DIR").then(String::new);
        let (s, _) = Settings::resolve(&api(&[("dump_dir", "/tmp/x")]), None, &env);
        assert_eq!(
            s.dump_dir, None,
            "an empty environment value switches dumping off"
        );
    }

    #[test]
    fn semantic_settings_take_their_own_words() {
        let (s, w) = from_api(&[("clip_space_depth", "vulkan"), ("point_size", "off")]);
        assert!(w.is_empty());
        assert!(!s.semantics.contains(Semantic::ClipSpaceDepth));
        assert!(!s.semantics.contains(Semantic::PointSize));
        let (s, w) = from_api(&[("clip_space_depth", "off")]);
        assert!(s.semantics.contains(Semantic::ClipSpaceDepth));
        assert!(w[0].contains("gl or vulkan"), "{w:?}");
    }

    #[test]
    fn enumerated_settings_take_their_names_and_list_them_when_wrong() {
        let (s, w) = from_api(&[("line_route", "fragment"), ("window_origin", "lower_left")]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.line_route, LineRoute::Fragment);
        assert_eq!(s.window_origin, WindowOrigin::LowerLeft);
        let (s, w) = from_api(&[("line_route", "rectangles")]);
        assert_eq!(s.line_route, LineRoute::Auto, "the default stays");
        assert!(w[0].contains("is not auto, bresenham or fragment"), "{w:?}");
    }

    /// The manifest declares every setting the layer reads, for vkconfig.
    #[test]
    fn the_manifest_declares_every_setting() {
        let manifest = include_str!("../../../layer-manifest/VkLayer_glsem.json");
        let semantic_keys = SEMANTICS
            .iter()
            .filter_map(|s| Some(s.setting.as_ref()?.key));
        for key in KEYS.into_iter().chain(semantic_keys) {
            let env = format!("\"env\": \"VK_GLSEM_{}\"", key.to_ascii_uppercase());
            assert!(manifest.contains(&format!("\"key\": \"{key}\"")), "{key}");
            assert!(manifest.contains(&env), "{env}");
        }
    }

    #[test]
    fn rewrite_cache_size_in_mib() {
        let (s, _) = Settings::resolve(&[], None, &no_env);
        assert_eq!(s.rewrite_cache_bytes(), 64 << 20);
        let file = "glsem_gl_semantics.rewrite_cache_mb = 0";
        let (s, w) = Settings::resolve(&api(&[("rewrite_cache_mb", "8")]), Some(file), &no_env);
        assert_eq!((s.rewrite_cache_bytes(), w.len()), (0, 0));
        let env = |name: &str| (name == "VK_GLSEM_REWRITE_CACHE_MB").then(|| "-1".to_owned());
        let (s, w) = Settings::resolve(&[], None, &env);
        assert_eq!(s.rewrite_cache_mb, 64, "a bad value keeps the default");
        assert!(w[0].contains("a whole number of MiB"));
    }
}
