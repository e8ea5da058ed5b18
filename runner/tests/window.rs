//! `glsem-run --window` for real: under Xvfb, on the system's Vulkan driver (lavapipe in
//! CI), through the glsem layer. Screenshots are taken with `xwd` + ImageMagick `convert`
//! and Escape is typed with `xdotool` (scripts/setup.sh installs xvfb, x11-apps,
//! imagemagick and xdotool). `GLSEM_WINDOW_SCREENSHOT=path.png` keeps a copy of the
//! screenshot (that is how docs/window.png is made).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

mod support;
use support::layer_library;

/// Pixels between panes and around them (`window::GAP`).
const GAP: u32 = 4;
/// The pane background, 0.15 in 8 bits.
const BACKGROUND: [u8; 3] = [38, 38, 38];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn installed(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// An Xvfb server on a display number it picked itself (`-displayfd`), killed on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    /// `None` (with a note) where the tools this test drives are not installed.
    fn start() -> Option<Xvfb> {
        for tool in ["Xvfb", "xwd", "convert", "xwininfo"] {
            if !installed(tool) {
                eprintln!(
                    "NOTE: `{tool}` is not installed (scripts/setup.sh installs xvfb, x11-apps, \
                     imagemagick); the --window test was skipped"
                );
                return None;
            }
        }
        // `exec`: the child is Xvfb itself, so killing it stops the server.
        let mut child = Command::new("sh")
            .args([
                "-c",
                "exec Xvfb -displayfd 1 -nolisten tcp -screen 0 1280x720x24",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let mut number = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut number)
            .expect("Xvfb reports its display");
        assert!(
            !number.trim().is_empty(),
            "Xvfb did not report a display number"
        );
        Some(Xvfb {
            child,
            display: format!(":{}", number.trim()),
        })
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `glsem-run --window` and the lines it prints.
struct Viewer {
    child: Child,
    lines: Receiver<String>,
    display: String,
}

impl Viewer {
    fn start(xvfb: &Xvfb, scene: &Path) -> Viewer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_glsem-run"))
            .args(["--window", "--validation"])
            .arg(scene)
            .current_dir(repo())
            .env("GLSEM_LAYER_LIB", layer_library())
            .env("DISPLAY", &xvfb.display)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("glsem-run starts");
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Viewer {
            child,
            lines,
            display: xvfb.display.clone(),
        }
    }

    /// The next line glsem-run prints, within `timeout`.
    fn line(&mut self, timeout: Duration) -> String {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => line,
            Err(_) => {
                let _ = self.child.kill();
                let mut err = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!("glsem-run printed nothing more within {timeout:?}; stderr:\n{err}");
            }
        }
    }

    /// Waits for `window ready: X11 window 0x…` and returns the window id.
    fn window(&mut self) -> String {
        let line = self.line(Duration::from_secs(15));
        line.strip_prefix("window ready: X11 window ")
            .unwrap_or_else(|| panic!("expected the window to be ready, got `{line}`"))
            .to_string()
    }

    /// The window's content as RGB rows (width, height, pixels).
    fn screenshot(&self, window: &str, png_path: &Path) -> (u32, u32, Vec<u8>) {
        let shot = Command::new("sh")
            .args([
                "-c",
                &format!(
                    "xwd -silent -display {} -id {window} | convert xwd:- png24:{}",
                    self.display,
                    png_path.display()
                ),
            ])
            .status()
            .expect("xwd | convert runs");
        assert!(shot.success(), "the screenshot failed");
        let decoder = png::Decoder::new(std::fs::File::open(png_path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(
            (info.color_type, info.bit_depth),
            (png::ColorType::Rgb, png::BitDepth::Eight),
            "png24: gives 8-bit RGB"
        );
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    fn title(&self, window: &str) -> String {
        let out = Command::new("xwininfo")
            .args(["-display", &self.display, "-id", window])
            .output()
            .expect("xwininfo runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types Escape into the window (through XTEST, as a keyboard would) and returns the
    /// exit status and stderr; without xdotool, kills the process instead.
    fn close(mut self, window: &str) -> (Option<i32>, String) {
        let typed = installed("xdotool")
            && Command::new("xdotool")
                .args(["windowfocus", "--sync", window, "key", "Escape"])
                .env("DISPLAY", &self.display)
                .status()
                .is_ok_and(|s| s.success());
        if !typed {
            eprintln!("NOTE: xdotool is not installed; closing the window by killing glsem-run");
            let _ = self.child.kill();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("glsem-run did not exit within 5 s of Escape");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        (if typed { status.code() } else { Some(0) }, err)
    }
}

fn pixel(shot: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 3] {
    let at = 3 * (y * shot.0 + x) as usize;
    [shot.2[at], shot.2[at + 1], shot.2[at + 2]]
}

/// `expected[k] = (left-half colour, right-half colour)` of pane k, checked at the centres
/// of both halves; panes are `size`×`size` 1:1 at the window's natural size. Retries for
/// a few seconds: the X server may show the presented image a little after the present.
fn check_panes(
    viewer: &Viewer,
    window: &str,
    size: u32,
    expected: &[([u8; 3], [u8; 3])],
    png_path: &Path,
) -> Result<(), String> {
    let n = expected.len() as u32;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let shot = viewer.screenshot(window, png_path);
        let mut problems = Vec::new();
        if (shot.0, shot.1) != (n * size + (n + 1) * GAP, size + 2 * GAP) {
            problems.push(format!("window is {}×{}", shot.0, shot.1));
        } else {
            let y = GAP + size / 2;
            for (k, (left, right)) in expected.iter().enumerate() {
                let x0 = GAP + k as u32 * (size + GAP);
                for (x, want) in [(x0 + size / 4, left), (x0 + 3 * size / 4, right)] {
                    let got = pixel(&shot, x, y);
                    let close = got.iter().zip(want).all(|(g, w)| g.abs_diff(*w) <= 1);
                    if !close {
                        problems.push(format!(
                            "pane {k} at ({x}, {y}): got {got:?}, expected {want:?}"
                        ));
                    }
                }
                // The gap left of each pane shows the background, not the scene.
                let gap = pixel(&shot, x0 - GAP / 2, y);
                if gap != BACKGROUND {
                    problems.push(format!("gap left of pane {k}: {gap:?}"));
                }
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(problems.join("; "));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// 8-bit value of a normalized channel, as the RGBA8 attachments store it.
fn unorm8(v: f32) -> u8 {
    (v * 255.0).round() as u8
}

#[test]
fn window_shows_every_gl_fragcolor_attachment_and_closes_on_escape() {
    let Some(xvfb) = Xvfb::start() else { return };
    let scene = Path::new("tests/scenes/fragcolor_3_attachments.shader_test");
    let mut viewer = Viewer::start(&xvfb, scene);
    assert_eq!(
        viewer.line(Duration::from_secs(15)),
        format!("PASS {}", scene.display())
    );
    let window = viewer.window();
    let png_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("window-fragcolor.png");
    // The scene: gl_FragColor = (0, 1, 0.4, 1) over the left half of every attachment,
    // clear colour (0.6, 0, 0.6, 1) on the right half. GL broadcasts gl_FragColor to all
    // three draw buffers, so all three panes look the same.
    let green = [unorm8(0.0), unorm8(1.0), unorm8(0.4)];
    let purple = [unorm8(0.6), unorm8(0.0), unorm8(0.6)];
    let shown = check_panes(&viewer, &window, 250, &[(green, purple); 3], &png_path);
    let title = viewer.title(&window);
    let (status, stderr) = viewer.close(&window);
    shown.unwrap_or_else(|e| panic!("{e}\nscreenshot: {}", png_path.display()));
    if let Some(keep) = std::env::var_os("GLSEM_WINDOW_SCREENSHOT") {
        std::fs::copy(&png_path, repo().join(keep)).expect("copy the screenshot");
    }
    assert!(
        title.contains("\"fragcolor_3_attachments — att0 | att1 | att2 — PASS\""),
        "the title names the scene, the panes and the result: {title}"
    );
    assert_eq!(
        status,
        Some(0),
        "Escape ends a passing scene with 0; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("validation error"), "{stderr}");
}

/// A 2-attachment scene whose gl_FragColor is `color` over the whole window.
fn colour_scene(color: [f32; 3]) -> String {
    let [r, g, b] = color;
    format!(
        "[require]\nGLSL >= 1.40\n\n[vertex shader passthrough]\n\n[fragment shader]\n\
         #version 140\nvoid main()\n{{\n    gl_FragColor = vec4({r:.1}, {g:.1}, {b:.1}, 1.0);\n}}\n\n\
         [test]\nfb color attachments 2\nclear color 0.0 0.0 0.0 1.0\nclear\n\
         draw rect -1 -1 2 2\nprobe attachment 1 all rgba {r:.1} {g:.1} {b:.1} 1.0\n"
    )
}

#[test]
fn window_follows_the_scene_file() {
    let Some(xvfb) = Xvfb::start() else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("follow.shader_test");
    std::fs::write(&scene, colour_scene([1.0, 0.0, 0.0])).unwrap();
    let mut viewer = Viewer::start(&xvfb, &scene);
    assert_eq!(
        viewer.line(Duration::from_secs(15)),
        format!("PASS {}", scene.display())
    );
    let window = viewer.window();
    let png_path = dir.join("follow.png");
    let red = [255, 0, 0];
    let first = check_panes(&viewer, &window, 250, &[(red, red); 2], &png_path);

    // Saved again: the scene runs again and the panes change with it.
    std::fs::write(&scene, colour_scene([0.0, 0.0, 1.0])).unwrap();
    let rerun = viewer.line(Duration::from_secs(15));
    let blue = [0, 0, 255];
    let second = check_panes(&viewer, &window, 250, &[(blue, blue); 2], &png_path);
    let (status, stderr) = viewer.close(&window);
    let _ = std::fs::remove_dir_all(&dir);
    first.unwrap_or_else(|e| panic!("before the change: {e}"));
    assert_eq!(rerun, format!("PASS {}", scene.display()));
    second.unwrap_or_else(|e| panic!("after the change: {e}"));
    assert_eq!(status, Some(0), "{stderr}");
    assert!(!stderr.contains("validation error"), "{stderr}");
}

#[test]
fn window_without_a_display_exits_2() {
    let scene = "tests/scenes/fragcolor_3_attachments.shader_test";
    let run = |display: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_glsem-run"));
        cmd.args(["--window", scene])
            .current_dir(repo())
            .env_remove("WAYLAND_DISPLAY");
        match display {
            Some(d) => cmd.env("DISPLAY", d),
            None => cmd.env_remove("DISPLAY"),
        };
        cmd.output().expect("glsem-run runs")
    };
    // It exits 2 with `why` on stderr, before any scene runs.
    let refused = |display: Option<&str>, why: &str| {
        let out = run(display);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{stderr}");
        assert!(out.stdout.is_empty(), "no scene ran");
    };
    refused(
        None,
        "--window needs an X11 display, and DISPLAY is not set",
    );
    // A display nobody serves (X11 display numbers stop at 65535 in practice).
    refused(
        Some(":65534"),
        "--window cannot connect to the X server at DISPLAY=:65534",
    );
}
