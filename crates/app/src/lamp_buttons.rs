//! The lamp's buttons drive the practice on screen: *start* opens the
//! microphone in the open voice practice (after a verdict that did not pass,
//! it is the retry), *stop* ends the recording. Events come from the lamp's
//! driver — a real lamp, or the simulator, whose panel buttons are pressed on
//! it — or straight from the virtual panel when no simulator is hosted.
//!
//! The window says which practice is open (practice start/resume/leave keep
//! it); a recording started this way reports on the app's event stream like
//! any other, and every notice of the lamp is published there too
//! ([`AppEvent::Lamp`]). Touch and presence are only shown.

use std::sync::{Arc, Mutex};

use deskmate_lamp::{Button, DeviceEvent, LampNotice};
use deskmate_orchestrator::PracticeState;
use deskmate_recite::Mode;

use crate::events::AppEvent;
use crate::practice::{TaskEvent, TaskStatus};
use crate::Deskmate;

/// The practice open on screen, which the lamp's buttons drive.
#[derive(Clone, Default)]
pub struct Screen {
    open_practice: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field(
                "open_practice",
                &self.open_practice.lock().ok().and_then(|p| p.clone()),
            )
            .finish()
    }
}

/// What the app did about a lamp event.
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

impl Deskmate {
    /// The window opened (or resumed) this practice.
    pub(crate) fn practice_opened(&self, practice_id: &str) {
        if let Ok(mut open) = self.screen().open_practice.lock() {
            *open = Some(practice_id.to_string());
        }
    }

    /// The window left this practice.
    pub(crate) fn practice_closed(&self, practice_id: &str) {
        if let Ok(mut open) = self.screen().open_practice.lock() {
            if open.as_deref() == Some(practice_id) {
                *open = None;
            }
        }
    }

    /// The practice open on screen, if any.
    pub fn open_practice(&self) -> Option<String> {
        self.screen()
            .open_practice
            .lock()
            .ok()
            .and_then(|p| p.clone())
    }

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
        if self.practice_is_recording(&practice_id) {
            return ignored("already recording");
        }
        let row = match self.load_practice(&practice_id) {
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
                if let Err(e) = self.practice_retry(&practice_id) {
                    return ignored(&e.to_string());
                }
            }
            ref other => return ignored(&format!("the practice is {}", other.name())),
        }
        match self.practice_record_start(&practice_id) {
            Ok(task_id) => LampAction::RecordingStarted {
                practice_id,
                task_id,
            },
            Err(e) => {
                let error = e.to_string();
                self.publish(AppEvent::Task(Box::new(TaskEvent {
                    practice_id: practice_id.clone(),
                    task_id: String::new(),
                    status: TaskStatus::Failed,
                    error: Some(error.clone()),
                    result: None,
                })));
                LampAction::Failed { practice_id, error }
            }
        }
    }

    fn lamp_stop(&self) -> LampAction {
        let Some(practice_id) = self.open_practice() else {
            return ignored("no practice is open");
        };
        match self.practice_record_stop(&practice_id) {
            Ok(task_id) => LampAction::RecordingStopped {
                practice_id,
                task_id,
            },
            Err(_) => ignored("not recording"),
        }
    }

    /// Follows the connected lamp's notices on a thread of their own, which
    /// ends when the lamp is disconnected or replaced: each is published on
    /// the app's event stream, and the buttons drive the open practice.
    pub(crate) fn follow_lamp_events(&self) {
        let Some(notices) = self.lamp_notices() else {
            return;
        };
        let app = self.clone();
        let spawned = std::thread::Builder::new()
            .name("lamp-buttons".into())
            .spawn(move || {
                for notice in notices.iter() {
                    app.publish(AppEvent::Lamp(notice.clone()));
                    if let LampNotice::Event { event, .. } = notice {
                        app.lamp_event(&event);
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("the lamp's buttons will not drive the app: {e}");
        }
    }
}
