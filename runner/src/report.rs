//! Results and how they are printed: one line (or one JSON object) per scene, then the
//! `N passed, N failed, N skipped` summary that CI reads.

use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

impl From<crate::scene::SceneError> for Outcome {
    fn from(e: crate::scene::SceneError) -> Self {
        match e {
            crate::scene::SceneError::Skip(m) => Outcome::Skip(m),
            crate::scene::SceneError::Fail(m) => Outcome::Fail(m),
        }
    }
}

#[derive(Debug, Default)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Summary {
    pub fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail(_) => self.failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
        }
    }

    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// `PASS FILE`, `FAIL FILE: reason`, `SKIP FILE: reason` (reasons kept on one line).
pub fn line(file: &Path, outcome: &Outcome) -> String {
    let one_line = |m: &str| m.split_whitespace().collect::<Vec<_>>().join(" ");
    match outcome {
        Outcome::Pass => format!("PASS {}", file.display()),
        Outcome::Fail(m) => format!("FAIL {}: {}", file.display(), one_line(m)),
        Outcome::Skip(m) => format!("SKIP {}: {}", file.display(), one_line(m)),
    }
}

pub fn json(file: &Path, outcome: &Outcome, layer: bool, device: Option<&str>) -> String {
    let (result, reason) = match outcome {
        Outcome::Pass => ("pass", None),
        Outcome::Fail(m) => ("fail", Some(m.as_str())),
        Outcome::Skip(m) => ("skip", Some(m.as_str())),
    };
    serde_json::json!({
        "file": file.display().to_string(),
        "result": result,
        "reason": reason,
        "layer": layer,
        "device": device,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_summary_have_the_exact_format() {
        let f = Path::new("a.shader_test");
        assert_eq!(line(f, &Outcome::Pass), "PASS a.shader_test");
        assert_eq!(
            line(f, &Outcome::Fail("x\n  y".into())),
            "FAIL a.shader_test: x y"
        );
        assert_eq!(line(f, &Outcome::Skip("z".into())), "SKIP a.shader_test: z");
        let mut s = Summary::default();
        for o in [
            Outcome::Pass,
            Outcome::Pass,
            Outcome::Fail(String::new()),
            Outcome::Skip(String::new()),
        ] {
            s.add(&o);
        }
        assert_eq!(s.line(), "2 passed, 1 failed, 1 skipped");
    }

    #[test]
    fn json_is_one_object() {
        let v: serde_json::Value = serde_json::from_str(&json(
            Path::new("s"),
            &Outcome::Skip("why".into()),
            true,
            Some("llvmpipe"),
        ))
        .unwrap();
        assert_eq!(v["result"], "skip");
        assert_eq!(v["reason"], "why");
        assert_eq!(v["layer"], true);
    }
}
