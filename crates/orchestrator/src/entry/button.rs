//! A button pressed (on the lamp or on the screen) through the entry: a
//! scene-local reply, the same as the words it stands for (lamp "next" in
//! the plan is 下一个, "again" in a recitation is 再来一次, "yes"/"no" on a
//! pending switch is 好的/不要), routed on the fast path with HIGH
//! confidence and no model. A button that means nothing where the child is
//! gets a plain answer and changes nothing. Logged as `[button lamp:next]`
//! ([`BUTTON_MARK`]) so a replay reads it the same.

use std::fmt;
use std::str::FromStr;

use crate::guardrails::Session;
use crate::router::Scene;

/// How a button press is logged (its input starts with this).
pub const BUTTON_MARK: &str = "[button ";

/// Where a button was pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ButtonFrom {
    /// The lamp's panel (or the simulator's).
    Lamp,
    /// The window's own button.
    Screen,
}

/// A button pressed: where, and which (`next`, `again`, `yes`, `no`; the
/// lamp's `start`/`stop` drive the practice's recording, not the entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pressed {
    pub from: ButtonFrom,
    pub name: String,
}

impl fmt::Display for Pressed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = match self.from {
            ButtonFrom::Lamp => "lamp",
            ButtonFrom::Screen => "screen",
        };
        write!(f, "{from}:{}", self.name)
    }
}

impl FromStr for Pressed {
    type Err = String;

    /// `lamp:next`, `screen:yes`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (from, name) = s.trim().split_once(':').ok_or_else(|| {
            format!("a button is written where:which, like lamp:next or screen:yes (got {s:?})")
        })?;
        let from = match from.trim().to_lowercase().as_str() {
            "lamp" => ButtonFrom::Lamp,
            "screen" => ButtonFrom::Screen,
            other => {
                return Err(format!(
                    "a button is on the lamp or the screen, not {other:?}"
                ))
            }
        };
        let name = name.trim().to_lowercase();
        if name.is_empty() || name.chars().any(|c| !c.is_ascii_alphanumeric() && c != '_') {
            return Err(format!(
                "a button's name is a word like next, again, yes or no (got {name:?})"
            ));
        }
        Ok(Self { from, name })
    }
}

impl Pressed {
    /// How the press is logged.
    pub fn logged(&self) -> String {
        format!("{BUTTON_MARK}{self}]")
    }

    /// The press a logged input stands for, if it is one.
    pub fn from_logged(input: &str) -> Option<Self> {
        input
            .strip_prefix(BUTTON_MARK)?
            .strip_suffix(']')?
            .parse()
            .ok()
    }

    /// The words this button stands for in `session`, or `None` when it
    /// means nothing there.
    pub fn words(&self, session: &Session) -> Option<&'static str> {
        let pending = session.pending.is_some();
        match (self.name.as_str(), session.active) {
            ("yes", _) if pending => Some("好的"),
            ("no", _) if pending => Some("不要"),
            ("next", Scene::Plan) => Some("下一个"),
            ("next", Scene::Homework) => Some("下一题"),
            ("again", Scene::Recite) => Some("再来一次"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guardrails::PendingSwitch;

    #[test]
    fn written_read_and_logged() {
        let p: Pressed = "lamp:next".parse().unwrap();
        assert_eq!((p.from, p.name.as_str()), (ButtonFrom::Lamp, "next"));
        assert_eq!(p.logged(), "[button lamp:next]");
        assert_eq!(Pressed::from_logged("[button lamp:next]"), Some(p));
        assert_eq!(Pressed::from_logged("下一个"), None);
        for bad in ["next", "desk:next", "lamp:", "lamp:下一个"] {
            assert!(bad.parse::<Pressed>().is_err(), "{bad}");
        }
    }

    #[test]
    fn what_each_button_means_where() {
        let at = |active| Session {
            active,
            ..Session::default()
        };
        let pending = Session {
            pending: Some(PendingSwitch {
                to: Scene::Recite,
                material_id: None,
                asked_at: 0,
                turns: 0,
            }),
            ..Session::default()
        };
        let b = |s: &str| s.parse::<Pressed>().unwrap();
        let cases = [
            ("lamp:next", at(Scene::Plan), Some("下一个")),
            ("screen:next", at(Scene::Homework), Some("下一题")),
            ("lamp:next", at(Scene::Chat), None),
            ("lamp:again", at(Scene::Recite), Some("再来一次")),
            ("lamp:again", at(Scene::Plan), None),
            ("lamp:yes", pending.clone(), Some("好的")),
            ("lamp:no", pending, Some("不要")),
            ("lamp:yes", at(Scene::Recite), None),
            ("lamp:start", at(Scene::Recite), None),
        ];
        for (button, session, words) in cases {
            assert_eq!(b(button).words(&session), words, "{button} in {session:?}");
        }
    }
}
