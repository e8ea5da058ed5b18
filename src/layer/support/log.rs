//! Logging to stderr, prefixed `glsem:`, filtered by the `log_level` setting.

use std::sync::atomic::{AtomicU8, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    Error = 0,
    Warn = 1,
    Info = 2,
    Debug = 3,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "error" => Some(Level::Error),
            "warn" => Some(Level::Warn),
            "info" => Some(Level::Info),
            "debug" => Some(Level::Debug),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warning",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }
}

/// Process-wide: stderr is process-wide too. The latest instance's setting wins.
static LEVEL: AtomicU8 = AtomicU8::new(Level::Warn as u8);

pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

#[inline]
pub fn enabled(level: Level) -> bool {
    level as u8 <= LEVEL.load(Ordering::Relaxed)
}

pub fn write(level: Level, args: std::fmt::Arguments<'_>) {
    if level == Level::Info {
        // Info lines are the "what the layer fixed" report; keep them unadorned.
        eprintln!("glsem: {args}");
    } else {
        eprintln!("glsem: {}: {args}", level.label());
    }
}

macro_rules! log_at {
    ($level:expr, $($arg:tt)*) => {
        if $crate::layer::support::log::enabled($level) {
            $crate::layer::support::log::write($level, format_args!($($arg)*));
        }
    };
}
macro_rules! error { ($($arg:tt)*) => { $crate::layer::support::log::log_at!($crate::layer::support::log::Level::Error, $($arg)*) }; }
macro_rules! warning { ($($arg:tt)*) => { $crate::layer::support::log::log_at!($crate::layer::support::log::Level::Warn, $($arg)*) }; }
macro_rules! info { ($($arg:tt)*) => { $crate::layer::support::log::log_at!($crate::layer::support::log::Level::Info, $($arg)*) }; }
macro_rules! debug { ($($arg:tt)*) => { $crate::layer::support::log::log_at!($crate::layer::support::log::Level::Debug, $($arg)*) }; }
pub(crate) use {debug, error, info, log_at, warning};
