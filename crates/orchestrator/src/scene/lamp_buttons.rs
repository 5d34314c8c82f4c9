//! The lamp's buttons drive the practice on screen: *start* opens the
//! microphone in the open voice practice (after a verdict that did not pass,
//! it is the retry), *stop* ends the recording. Events come from the lamp's
//! driver — a real lamp, or the simulator, whose panel buttons are pressed on
//! it — or straight from the virtual panel when no simulator is hosted. The
//! screen says which practice is open (start, resume and leave keep it); a
//! recording started this way reports like any other. Touch and presence
//! are only shown.

use deskmate_lamp::{Button, DeviceEvent};
use deskmate_recite::Mode;

use super::views::{SceneEvent, TaskEvent, TaskStatus};
use super::PracticeScene;
use crate::PracticeState;

/// What the scene did about a lamp event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LampAction {
    RecordingStarted {
        practice_id: String,
        task_id: String,
    },
    RecordingStopped {
        practice_id: String,
        task_id: String,
    },
    /// The practice could not start recording; the window was told why.
    Failed { practice_id: String, error: String },
    /// Nothing to do (no voice practice open, already recording, …).
    Ignored { why: String },
}

fn ignored(why: &str) -> LampAction {
    LampAction::Ignored {
        why: why.to_string(),
    }
}

impl PracticeScene {
    /// Acts on one event from the lamp (or the virtual panel).
    pub fn lamp_event(&self, event: &DeviceEvent) -> LampAction {
        let action = match event {
            DeviceEvent::Button(Button::Start) => self.lamp_start(),
            DeviceEvent::Button(Button::Stop) => self.lamp_stop(),
            DeviceEvent::Touch | DeviceEvent::Presence(_) => {
                ignored("shown on the lamp panel only")
            }
        };
        tracing::debug!("lamp {event:?}: {action:?}");
        action
    }

    fn lamp_start(&self) -> LampAction {
        let Some(practice_id) = self.open_practice() else {
            return ignored("no practice is open");
        };
        if self.is_recording(&practice_id) {
            return ignored("already recording");
        }
        let row = match self.load(&practice_id) {
            Ok(row) => row,
            Err(e) => return ignored(&e.to_string()),
        };
        if row.mode != Mode::Voice {
            return ignored("a typed practice (默写) has no recording");
        }
        match row.practice.state {
            PracticeState::Ready => {}
            // After a verdict that did not pass, the start button is the retry.
            PracticeState::Feedback { passed: false, .. } => {
                if let Err(e) = self.retry(&practice_id) {
                    return ignored(&e.to_string());
                }
            }
            ref other => return ignored(&format!("the practice is {}", other.name())),
        }
        match self.record_start(&practice_id) {
            Ok(task_id) => LampAction::RecordingStarted {
                practice_id,
                task_id,
            },
            Err(e) => {
                self.stage.publish(SceneEvent::Task(Box::new(TaskEvent {
                    practice_id: practice_id.clone(),
                    task_id: String::new(),
                    status: TaskStatus::Failed,
                    error: Some(e.wire()),
                    result: None,
                })));
                LampAction::Failed {
                    practice_id,
                    error: e.to_string(),
                }
            }
        }
    }

    fn lamp_stop(&self) -> LampAction {
        let Some(practice_id) = self.open_practice() else {
            return ignored("no practice is open");
        };
        match self.record_stop(&practice_id) {
            Ok(task_id) => LampAction::RecordingStopped {
                practice_id,
                task_id,
            },
            Err(_) => ignored("not recording"),
        }
    }
}
