//! `glsem-run --window`: the scene's colour attachments side by side in an X11 window.
//!
//! The scene runs exactly as headless (`player::play`); the window shows the player's own
//! render targets after the last command, read back and converted to RGBA8 the way `--png`
//! writes them (so integer and float attachments show too), each copied into a pane image
//! and blitted, scaled, into its pane of the swapchain image. The title names the panes
//! and the result. The scene re-runs when its file changes on disk; Escape or closing the
//! window ends the program.

use std::ffi::c_char;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle, RawDisplayHandle, RawWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, KeyCode, NamedKey, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::glsl::Compiler;
use crate::player::{self, Options, Player};
use crate::report::Outcome;
use crate::vk::format::Format;
use crate::vk::{
    check, color_range, take_messages, Buffer, Gpu, ImageUse, VkError, VkResult, Vulkan,
};

/// Pixels between panes and around them.
pub const GAP: u32 = 4;
/// What shows between the panes: dark grey, unlike any colour a scene is likely to clear to.
const BACKGROUND: [f32; 4] = [0.15, 0.15, 0.15, 1.0];
/// How often the scene file's modification time is checked.
const POLL: Duration = Duration::from_millis(250);

/// Reports one run of the scene (the headless result line, or JSON).
pub type Say<'a> = &'a dyn Fn(&Outcome, Option<&str>);

/// Shows `path` until the window closes; returns the outcome of the last run. `setup`
/// creates the instance (with the surface extensions it is given) and the compiler.
pub fn show<E: From<VkError>>(
    path: &Path,
    options: &Options,
    say: Say<'_>,
    setup: impl FnOnce(&[*const c_char]) -> Result<(Vulkan, Compiler), E>,
) -> Result<Outcome, E> {
    // winit is built for X11 only (XWayland serves Wayland sessions).
    let display = std::env::var("DISPLAY").unwrap_or_default();
    if display.is_empty() {
        return Err(VkError::Setup(
            "--window needs an X11 display, and DISPLAY is not set (this build draws through \
             X11, which XWayland provides on Wayland; run headless without --window, or under \
             Xvfb)"
                .into(),
        )
        .into());
    }
    // winit's error says no more than this (plus its own source location).
    let event_loop = EventLoop::new().map_err(|_| {
        VkError::Setup(format!(
            "--window cannot connect to the X server at DISPLAY={display}"
        ))
    })?;
    let raw_display = event_loop
        .display_handle()
        .map_err(|e| VkError::Setup(format!("--window: no display handle: {e}")))?
        .as_raw();
    let extensions = ash_window::enumerate_required_extensions(raw_display)
        .map_err(check("the surface extensions for this display"))?;
    let (vulkan, compiler) = setup(extensions)?;
    let mut app = App {
        path,
        options,
        say,
        surface_fns: ash::khr::surface::Instance::new(&vulkan.entry, &vulkan.instance),
        vulkan: &vulkan,
        compiler: &compiler,
        raw_display,
        window: None,
        surface: vk::SurfaceKHR::null(),
        screen: None,
        outcome: Outcome::Skip("the window never opened".into()),
        stamp: None,
        error: None,
        announced: false,
    };
    event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + POLL));
    let ran = event_loop.run_app(&mut app);
    let outcome = app.outcome.clone();
    let error = app.error.take();
    drop(app);
    ran.map_err(|e| VkError::Setup(format!("the window's event loop failed: {e}")))?;
    error.map_or(Ok(outcome), |e| Err(e.into()))
}

struct App<'a> {
    path: &'a Path,
    options: &'a Options,
    say: Say<'a>,
    vulkan: &'a Vulkan,
    compiler: &'a Compiler,
    surface_fns: ash::khr::surface::Instance,
    raw_display: RawDisplayHandle,
    // Torn down in `Drop` in this order: screen (swapchain), surface, window.
    window: Option<Window>,
    surface: vk::SurfaceKHR,
    screen: Option<Screen>,
    outcome: Outcome,
    /// Modification time and length of the scene file when it last ran.
    stamp: Option<(SystemTime, u64)>,
    /// A failure that ends the program (exit status 2).
    error: Option<VkError>,
    announced: bool,
}

fn file_stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

impl App<'_> {
    /// Runs the scene (again) and puts its targets into a new screen.
    fn run_scene(&mut self) -> VkResult<()> {
        // One swapchain per surface: the old screen goes before the new device comes.
        self.screen = None;
        report_messages("tearing down the previous run");
        self.stamp = file_stamp(self.path);
        let played = player::play(self.vulkan, self.compiler, self.path, self.options);
        (self.say)(&played.outcome, played.device.as_deref());
        self.outcome = played.outcome;
        self.screen = match played.player {
            Some(player) => Some(Screen::new(player)?),
            None => None,
        };
        Ok(())
    }

    fn title(&self) -> String {
        let stem = self
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let labels = self.screen.as_ref().map_or(String::new(), |s| {
            let names: Vec<String> = s.labels.iter().map(|l| l.to_string()).collect();
            format!(" — {}", names.join(" | "))
        });
        let result = match &self.outcome {
            Outcome::Pass => "PASS".to_string(),
            Outcome::Fail(m) => format!("FAIL: {}", one_line(m, 120)),
            Outcome::Skip(m) => format!("SKIP: {}", one_line(m, 120)),
        };
        format!("{stem}{labels} — {result}")
    }

    /// The window size at which every pane is shown 1:1.
    fn natural_size(&self) -> PhysicalSize<u32> {
        let (n, w, h) = self
            .screen
            .as_ref()
            .map_or((1, 250, 250), |s| (s.panes.len() as u32, s.width, s.height));
        PhysicalSize::new(n * w + (n + 1) * GAP, h + 2 * GAP)
    }

    fn open(&mut self, event_loop: &ActiveEventLoop) -> VkResult<()> {
        self.run_scene()?;
        let attributes = Window::default_attributes()
            .with_title(self.title())
            .with_inner_size(self.natural_size());
        let window = event_loop
            .create_window(attributes)
            .map_err(|e| format!("cannot create the window: {e}"))?;
        let raw_window = window
            .window_handle()
            .map_err(|e| format!("no window handle: {e}"))?
            .as_raw();
        // SAFETY: `raw_display` is the event loop's display and `raw_window` the window's,
        // which lives in `self.window` as long as the surface (destroyed in `Drop`); the
        // instance was created with the display's surface extensions.
        self.surface = unsafe {
            ash_window::create_surface(
                &self.vulkan.entry,
                &self.vulkan.instance,
                self.raw_display,
                raw_window,
                None,
            )
        }
        .map_err(check("creating the window's VkSurfaceKHR"))?;
        self.window = Some(window);
        Ok(())
    }

    fn reload_if_changed(&mut self) -> VkResult<()> {
        let stamp = file_stamp(self.path);
        if stamp.is_none() || stamp == self.stamp {
            return Ok(());
        }
        let natural = self.natural_size();
        self.run_scene()?;
        if let Some(window) = &self.window {
            window.set_title(&self.title());
            // Follow the scene when its pane count or size changed; otherwise keep the
            // size the user gave the window.
            if self.natural_size() != natural {
                let _ = window.request_inner_size(self.natural_size());
            }
            window.request_redraw();
        }
        Ok(())
    }

    fn redraw(&mut self) -> VkResult<()> {
        let Some(window) = &self.window else {
            return Ok(());
        };
        let size = window.inner_size();
        // Without a screen (the scene stopped before it had a device) the title says why.
        let presented = match &mut self.screen {
            // Minimized: nothing to present to.
            Some(_) if size.width == 0 || size.height == 0 => false,
            Some(screen) => screen.present(&self.surface_fns, self.surface, size)?,
            None => true,
        };
        report_messages("presenting");
        if presented && !self.announced {
            self.announced = true;
            // Tests and scripts wait for this line before they look at the window.
            println!("window ready: X11 window {}", window_id(window));
        }
        Ok(())
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, result: VkResult<()>) {
        if let Err(e) = result {
            self.error = Some(e);
            event_loop.exit();
        }
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_none() {
            let opened = self.open(event_loop);
            self.fail(event_loop, opened);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key,
                        physical_key,
                        state: ElementState::Pressed,
                        ..
                    },
                ..
            } if logical_key == Key::Named(NamedKey::Escape)
                || physical_key == PhysicalKey::Code(KeyCode::Escape) =>
            {
                event_loop.exit()
            }
            WindowEvent::Resized(_) => {
                if let Some(w) = &self.window {
                    w.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => {
                let drawn = self.redraw();
                self.fail(event_loop, drawn);
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let reloaded = self.reload_if_changed();
        self.fail(event_loop, reloaded);
        event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + POLL));
    }
}

impl Drop for App<'_> {
    fn drop(&mut self) {
        self.screen = None;
        if self.surface != vk::SurfaceKHR::null() {
            // SAFETY: the screen (and its swapchain on this surface) is dropped just above;
            // the surface was made on the instance `surface_fns` was loaded for.
            unsafe { self.surface_fns.destroy_surface(self.surface, None) };
        }
        report_messages("closing the window");
    }
}

/// The X11 window id, as `xwininfo`/`xwd -id` take it.
fn window_id(window: &Window) -> String {
    match window.window_handle().map(|h| h.as_raw()) {
        Ok(RawWindowHandle::Xlib(h)) => format!("{:#x}", h.window),
        Ok(RawWindowHandle::Xcb(h)) => format!("{:#x}", h.window.get()),
        _ => "?".into(),
    }
}

/// Validation errors outside a scene's run are the runner's own bugs: say them.
fn report_messages(when: &str) {
    for m in take_messages() {
        eprintln!("glsem-run: validation error while {when}: {m}");
    }
}

fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// How an attachment is named in the title.
struct Label {
    index: usize,
    format: Format,
    used: bool,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "att{}", self.index)?;
        if !self.used {
            write!(f, " (unused)")
        } else if self.format != Format::DEFAULT {
            write!(f, " {}", self.format.name())
        } else {
            Ok(())
        }
    }
}

/// Where each of `count` panes of `width`×`height` goes in an `extent`-sized image: one
/// row, `GAP` pixels apart, scaled by the same factor to fit (1:1 at the natural size),
/// centred. Returns [x0, y0, x1, y1] per pane.
pub fn pane_rects(count: u32, width: u32, height: u32, extent: (u32, u32)) -> Vec<[i32; 4]> {
    if count == 0 || width == 0 || height == 0 {
        return Vec::new();
    }
    let room_w = extent.0.saturating_sub((count + 1) * GAP) as f64;
    let room_h = extent.1.saturating_sub(2 * GAP) as f64;
    let scale = (room_w / (count * width) as f64).min(room_h / height as f64);
    let pane_w = (width as f64 * scale).floor() as i32;
    let pane_h = (height as f64 * scale).floor() as i32;
    if pane_w <= 0 || pane_h <= 0 {
        return Vec::new();
    }
    let gap = GAP as i32;
    let total_w = count as i32 * (pane_w + gap) + gap;
    let left = (extent.0 as i32 - total_w) / 2 + gap;
    let top = (extent.1 as i32 - pane_h) / 2;
    (0..count as i32)
        .map(|k| {
            let x = left + k * (pane_w + gap);
            [x, top, x + pane_w, top + pane_h]
        })
        .collect()
}

/// One attachment's content as an RGBA8 image, the source of its pane's blit.
struct Pane {
    image: vk::Image,
    memory: vk::DeviceMemory,
}

struct Swapchain {
    fns: ash::khr::swapchain::Device,
    handle: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    extent: vk::Extent2D,
    /// The window size it was made for (the extent may differ where the surface clamps).
    window_size: PhysicalSize<u32>,
    /// Signalled when the blits into image i are done; the present waits for it.
    rendered: Vec<vk::Semaphore>,
}

/// A run's player and what it takes to show its targets.
struct Screen {
    panes: Vec<Pane>,
    labels: Vec<Label>,
    width: u32,
    height: u32,
    cmd_pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    acquired: vk::Semaphore,
    swapchain: Option<Swapchain>,
    // Last: its device outlives everything above (see `Drop`).
    player: Player,
}

impl Screen {
    fn new(mut player: Player) -> VkResult<Screen> {
        let targets = player.read_targets()?;
        let (width, height) = (targets.width, targets.height);
        let labels: Vec<Label> = targets
            .attachments
            .iter()
            .enumerate()
            .map(|(index, a)| Label {
                index,
                format: a.format,
                used: a.used,
            })
            .collect();
        let contents: Vec<Vec<u8>> = (0..labels.len()).map(|k| targets.rgba8(k)).collect();
        let gpu = player.gpu();
        let d = &gpu.device;
        let (cmd_pool, cmd, fence) = gpu.command_objects()?;
        // SAFETY: a plain semaphore create info, no chain.
        let acquired = unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
            .map_err(check("vkCreateSemaphore"))?;
        let mut screen = Screen {
            panes: Vec::new(),
            labels,
            width,
            height,
            cmd_pool,
            cmd,
            fence,
            acquired,
            swapchain: None,
            player,
        };
        screen.upload(&contents)?;
        Ok(screen)
    }

    fn gpu(&self) -> &Gpu {
        self.player.gpu()
    }

    /// Creates the pane images and fills them with `contents` (RGBA8 rows).
    fn upload(&mut self, contents: &[Vec<u8>]) -> VkResult<()> {
        let mut staging: Vec<Buffer> = Vec::new();
        let result = self.upload_through(contents, &mut staging);
        for b in &staging {
            self.gpu().destroy_buffer(b);
        }
        result
    }

    fn upload_through(&mut self, contents: &[Vec<u8>], staging: &mut Vec<Buffer>) -> VkResult<()> {
        let (w, h) = (self.width, self.height);
        for bytes in contents {
            let pane = self.pane_image()?;
            self.panes.push(pane);
            let mut buffer = self
                .gpu()
                .buffer(bytes.len() as u64, vk::BufferUsageFlags::TRANSFER_SRC)?;
            buffer.bytes_mut()[..bytes.len()].copy_from_slice(bytes);
            staging.push(buffer);
        }
        self.submit(&[], &[], |gpu, cmd, panes| {
            let d = &gpu.device;
            let images: Vec<vk::Image> = panes.iter().map(|p| p.image).collect();
            let top = ImageUse::discarded(vk::PipelineStageFlags::TOP_OF_PIPE);
            gpu.transition(cmd, &images, color_range(), top, ImageUse::TRANSFER_DST);
            for (p, b) in panes.iter().zip(staging.iter()) {
                let region = vk::BufferImageCopy::default()
                    .image_subresource(color_layers())
                    .image_extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth: 1,
                    });
                // SAFETY: `cmd` is recording (`submit`'s); `b` is a staging buffer of `w`×`h`
                // RGBA8 texels and `p` a pane image of that size and format, both this
                // device's, alive until the submission is waited for, `p` just moved to
                // TRANSFER_DST_OPTIMAL.
                unsafe {
                    d.cmd_copy_buffer_to_image(
                        cmd,
                        b.buffer,
                        p.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[region],
                    )
                };
            }
            // The panes stay blit sources from now on.
            let (dst, src) = (ImageUse::TRANSFER_DST, ImageUse::TRANSFER_SRC);
            gpu.transition(cmd, &images, color_range(), dst, src);
        })
    }

    fn pane_image(&self) -> VkResult<Pane> {
        let gpu = self.gpu();
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D {
                width: self.width,
                height: self.height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
        let (image, memory) = gpu.bound_image(&info)?;
        Ok(Pane { image, memory })
    }

    /// Records `f`, submits it (waiting for `wait` at the transfer stage, signalling
    /// `signal`) and waits for it to finish.
    fn submit(
        &self,
        wait: &[vk::Semaphore],
        signal: &[vk::Semaphore],
        f: impl FnOnce(&Gpu, vk::CommandBuffer, &[Pane]),
    ) -> VkResult<()> {
        let gpu = self.gpu();
        // SAFETY: `self.cmd` is this window's, from its resettable pool, and the last
        // submission was waited for.
        unsafe { gpu.begin_one_time(self.cmd)? };
        f(gpu, self.cmd, &self.panes);
        let stages = vec![vk::PipelineStageFlags::TRANSFER; wait.len()];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(wait)
            .wait_dst_stage_mask(&stages)
            .signal_semaphores(signal);
        // SAFETY: `self.cmd` is recording (begun above); `wait` and `signal` are this
        // window's semaphores, made on the player's device.
        unsafe { gpu.end_submit_and_wait(self.cmd, submit, self.fence) }
    }

    /// Draws the panes into the next swapchain image and presents it; `false` when the
    /// swapchain went out of date and was dropped (the next redraw makes a new one).
    fn present(
        &mut self,
        surface_fns: &ash::khr::surface::Instance,
        surface: vk::SurfaceKHR,
        size: PhysicalSize<u32>,
    ) -> VkResult<bool> {
        let stale = self
            .swapchain
            .as_ref()
            .is_some_and(|s| s.window_size != size);
        if stale {
            self.drop_swapchain();
        }
        if self.swapchain.is_none() {
            self.swapchain = Some(Swapchain::new(self.gpu(), surface_fns, surface, size)?);
        }
        let Some(sc) = &self.swapchain else {
            return Ok(false);
        };
        let (fns, handle, extent) = (sc.fns.clone(), sc.handle, sc.extent);
        let (images, semaphores) = (sc.images.clone(), sc.rendered.clone());
        // SAFETY: `handle` is the live swapchain `fns` made; `self.acquired` is unsignalled
        // (each acquire's signal is waited on by the submission that follows it).
        let acquired =
            unsafe { fns.acquire_next_image(handle, u64::MAX, self.acquired, vk::Fence::null()) };
        let index = match acquired {
            Ok((index, _suboptimal)) => index,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.drop_swapchain();
                return Ok(false);
            }
            Err(e) => return Err(check("vkAcquireNextImageKHR")(e)),
        };
        let target = images[index as usize];
        let rendered = semaphores[index as usize];
        let rects = pane_rects(
            self.panes.len() as u32,
            self.width,
            self.height,
            (extent.width, extent.height),
        );
        let (w, h) = (self.width as i32, self.height as i32);
        self.submit(&[self.acquired], &[rendered], |gpu, cmd, panes| {
            record_present(gpu, cmd, panes, target, &rects, (w, h))
        })?;
        let waits = [rendered];
        let swapchains = [handle];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the queue is the player's, which can present to the surface (checked when
        // the swapchain was made); `index` was acquired from `handle`; the arrays outlive
        // the call.
        match unsafe { fns.queue_present(self.gpu().queue, &info) } {
            Ok(_suboptimal) => Ok(true),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.drop_swapchain();
                Ok(false)
            }
            Err(e) => Err(check("vkQueuePresentKHR")(e)),
        }
    }

    fn drop_swapchain(&mut self) {
        if let Some(sc) = self.swapchain.take() {
            let gpu = self.player.gpu();
            // The last present may still wait on a `rendered` semaphore.
            // SAFETY: the player's device is alive (the player is dropped last).
            let _ = unsafe { gpu.device.device_wait_idle() };
            sc.destroy(gpu);
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.drop_swapchain();
        let d = &self.player.gpu().device;
        // SAFETY: the player's device is alive: `player` is the last field, dropped after
        // this; with the device idle nothing uses the panes, the semaphore, the fence or the
        // pool, all made on it by `Screen::new` and `pane_image`.
        unsafe {
            let _ = d.device_wait_idle();
            for p in self.panes.drain(..) {
                d.destroy_image(p.image, None);
                d.free_memory(p.memory, None);
            }
            d.destroy_semaphore(self.acquired, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.cmd_pool, None);
        }
    }
}

impl Swapchain {
    fn new(
        gpu: &Gpu,
        surface_fns: &ash::khr::surface::Instance,
        surface: vk::SurfaceKHR,
        size: PhysicalSize<u32>,
    ) -> VkResult<Swapchain> {
        let pd = gpu.physical;
        // SAFETY: `pd` was enumerated from the instance `surface_fns` was loaded for, and
        // `surface` was made on that instance for the open window (alive while `App` is).
        let can_present = unsafe {
            surface_fns.get_physical_device_surface_support(pd, gpu.queue_family, surface)
        }
        .map_err(check("vkGetPhysicalDeviceSurfaceSupportKHR"))?;
        require(
            can_present,
            gpu,
            "the graphics queue cannot present to this window",
        )?;
        // SAFETY: as above.
        let caps = unsafe { surface_fns.get_physical_device_surface_capabilities(pd, surface) }
            .map_err(check("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))?;
        require(
            caps.supported_usage_flags
                .contains(vk::ImageUsageFlags::TRANSFER_DST),
            gpu,
            "swapchain images cannot be transfer destinations",
        )?;
        // SAFETY: as above.
        let formats = unsafe { surface_fns.get_physical_device_surface_formats(pd, surface) }
            .map_err(check("vkGetPhysicalDeviceSurfaceFormatsKHR"))?;
        let format = pick_format(&formats).ok_or("the surface offers no format")?;
        // SAFETY: `pd` was enumerated from `gpu.instance`.
        let features = unsafe {
            gpu.instance
                .get_physical_device_format_properties(pd, format.format)
        }
        .optimal_tiling_features;
        require(
            features.contains(vk::FormatFeatureFlags::BLIT_DST),
            gpu,
            &format!("cannot blit into the swapchain format {:?}", format.format),
        )?;
        let extent = swapchain_extent(&caps, size);
        let mut count = caps.min_image_count + 1;
        if caps.max_image_count != 0 {
            count = count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(count)
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(composite_alpha(&caps))
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        let fns = ash::khr::swapchain::Device::new(&gpu.instance, &gpu.device);
        // SAFETY: the device was created with VK_KHR_swapchain (`needs.swapchain` for
        // `--window`); `info` holds only values the surface reports it supports (the queue
        // can present, usage, format, extent within the clamp, transform, alpha, FIFO).
        let handle =
            unsafe { fns.create_swapchain(&info, None) }.map_err(check("vkCreateSwapchainKHR"))?;
        let mut swapchain = Swapchain {
            fns,
            handle,
            images: Vec::new(),
            extent,
            window_size: size,
            rendered: Vec::new(),
        };
        if let Err(e) = swapchain.fill(gpu) {
            swapchain.destroy(gpu);
            return Err(e);
        }
        Ok(swapchain)
    }

    /// Reads the swapchain's images and makes one `rendered` semaphore per image.
    fn fill(&mut self, gpu: &Gpu) -> VkResult<()> {
        // SAFETY: `self.handle` was made by `self.fns` and is alive.
        self.images = unsafe { self.fns.get_swapchain_images(self.handle) }
            .map_err(check("vkGetSwapchainImagesKHR"))?;
        for _ in 0..self.images.len() {
            // SAFETY: a plain semaphore create info, no chain.
            let s = unsafe {
                gpu.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }
            .map_err(check("vkCreateSemaphore"))?;
            self.rendered.push(s);
        }
        Ok(())
    }

    /// Destroys the semaphores and the swapchain; the caller makes sure that no present or
    /// submission still uses them.
    fn destroy(&self, gpu: &Gpu) {
        // SAFETY: the semaphores and the swapchain were made on `gpu`'s device by `new` and
        // `fill` and, by the caller's word, are idle.
        unsafe {
            for s in &self.rendered {
                gpu.device.destroy_semaphore(*s, None);
            }
            self.fns.destroy_swapchain(self.handle, None);
        }
    }
}

/// The swapchain's extent: the surface's, or — where the surface takes the swapchain's size
/// (0xFFFFFFFF) — the window's, clamped to what the surface allows.
fn swapchain_extent(caps: &vk::SurfaceCapabilitiesKHR, size: PhysicalSize<u32>) -> vk::Extent2D {
    if caps.current_extent.width == u32::MAX {
        vk::Extent2D {
            width: size
                .width
                .clamp(caps.min_image_extent.width, caps.max_image_extent.width),
            height: size
                .height
                .clamp(caps.min_image_extent.height, caps.max_image_extent.height),
        }
    } else {
        caps.current_extent
    }
}

/// The first composite-alpha mode the surface supports, opaque first.
fn composite_alpha(caps: &vk::SurfaceCapabilitiesKHR) -> vk::CompositeAlphaFlagsKHR {
    [
        vk::CompositeAlphaFlagsKHR::OPAQUE,
        vk::CompositeAlphaFlagsKHR::INHERIT,
        vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
        vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
    ]
    .into_iter()
    .find(|a| caps.supported_composite_alpha.contains(*a))
    .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE)
}

/// Records the window's picture into the swapchain image `target`: the background, then
/// each of `panes` (`w`×`h`) blitted into its rectangle of `rects`, then the move to
/// PRESENT_SRC_KHR.
fn record_present(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    panes: &[Pane],
    target: vk::Image,
    rects: &[[i32; 4]],
    (w, h): (i32, i32),
) {
    let d = &gpu.device;
    let transfer = ImageUse::discarded(vk::PipelineStageFlags::TRANSFER);
    gpu.transition(
        cmd,
        &[target],
        color_range(),
        transfer,
        ImageUse::TRANSFER_DST,
    );
    // SAFETY: `cmd` is recording (`submit`'s); `target` is a swapchain image of this
    // device, acquired for this submission and just moved to TRANSFER_DST_OPTIMAL.
    unsafe {
        d.cmd_clear_color_image(
            cmd,
            target,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &vk::ClearColorValue {
                float32: BACKGROUND,
            },
            &[color_range()],
        )
    };
    // The blits overwrite parts of what the clear wrote.
    let transfer_write = (
        vk::PipelineStageFlags::TRANSFER,
        vk::AccessFlags::TRANSFER_WRITE,
    );
    gpu.memory_barrier(cmd, transfer_write, transfer_write);
    for (pane, r) in panes.iter().zip(rects) {
        let blit = vk::ImageBlit::default()
            .src_subresource(color_layers())
            .src_offsets([
                vk::Offset3D { x: 0, y: 0, z: 0 },
                vk::Offset3D { x: w, y: h, z: 1 },
            ])
            .dst_subresource(color_layers())
            .dst_offsets([
                vk::Offset3D {
                    x: r[0],
                    y: r[1],
                    z: 0,
                },
                vk::Offset3D {
                    x: r[2],
                    y: r[3],
                    z: 1,
                },
            ]);
        // NEAREST: enlarged panes show the scene's pixels, not a blur of them.
        // SAFETY: as for the clear; `pane.image` is this device's, in
        // TRANSFER_SRC_OPTIMAL since `upload`, and `r` lies inside `target` (`pane_rects`
        // fits the panes into the swapchain's extent).
        unsafe {
            d.cmd_blit_image(
                cmd,
                pane.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                target,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[blit],
                vk::Filter::NEAREST,
            )
        };
    }
    let present = ImageUse {
        stage: vk::PipelineStageFlags::BOTTOM_OF_PIPE,
        access: vk::AccessFlags::empty(),
        layout: vk::ImageLayout::PRESENT_SRC_KHR,
    };
    gpu.transition(
        cmd,
        &[target],
        color_range(),
        ImageUse::TRANSFER_DST,
        present,
    );
}

/// `Ok` where `holds`, else the error that the window cannot be shown on `gpu`: `why`.
fn require(holds: bool, gpu: &Gpu, why: &str) -> VkResult<()> {
    if holds {
        Ok(())
    } else {
        Err(format!("{}: {why}", gpu.name).into())
    }
}

/// An 8-bit UNORM format if the surface has one: the panes' bytes then reach the screen
/// unchanged (an sRGB format would encode them a second time).
fn pick_format(formats: &[vk::SurfaceFormatKHR]) -> Option<vk::SurfaceFormatKHR> {
    formats
        .iter()
        .find(|f| {
            matches!(
                f.format,
                vk::Format::B8G8R8A8_UNORM | vk::Format::R8G8B8A8_UNORM
            )
        })
        .or(formats.first())
        .copied()
}

fn color_layers() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_are_one_to_one_at_the_natural_size() {
        // Three 250×250 panes in a window of 3·250 + 4·GAP by 250 + 2·GAP.
        let extent = (3 * 250 + 4 * GAP, 250 + 2 * GAP);
        let g = GAP as i32;
        assert_eq!(
            pane_rects(3, 250, 250, extent),
            vec![
                [g, g, g + 250, g + 250],
                [2 * g + 250, g, 2 * g + 500, g + 250],
                [3 * g + 500, g, 3 * g + 750, g + 250],
            ]
        );
    }

    #[test]
    fn panes_scale_uniformly_and_centre() {
        // Twice as wide and high minus the gaps: every pane doubles.
        let extent = (2 * 100 + 3 * GAP, 2 * 50 + 2 * GAP);
        let rects = pane_rects(2, 50, 50, extent);
        for r in &rects {
            assert_eq!((r[2] - r[0], r[3] - r[1]), (100, 100));
        }
        // A tall window: the width limits the scale; the row sits in the middle.
        let rects = pane_rects(1, 10, 10, (10 + 2 * GAP, 200));
        assert_eq!(rects, vec![[GAP as i32, 95, GAP as i32 + 10, 105]]);
    }

    #[test]
    fn no_room_no_panes() {
        assert!(pane_rects(3, 250, 250, (GAP, GAP)).is_empty());
        assert!(pane_rects(0, 250, 250, (800, 600)).is_empty());
    }

    #[test]
    fn labels_name_holes_and_non_default_formats() {
        let float = Format::by_name("R32G32B32A32_SFLOAT").unwrap();
        let label = |index, format, used| {
            Label {
                index,
                format,
                used,
            }
            .to_string()
        };
        assert_eq!(label(0, Format::DEFAULT, true), "att0");
        assert_eq!(label(1, float, true), "att1 R32G32B32A32_SFLOAT");
        assert_eq!(label(2, Format::DEFAULT, false), "att2 (unused)");
    }
}
