//! The talk button on the child's home, wired: [`Deskmate::talk`] listens
//! to the child with the practice's microphone until they fall silent
//! (`deskmate_orchestrator::entry::Entry::talk`) and sends what was said
//! through the one entry; [`Deskmate::talk_stop`] is the stop button. One
//! talk per child at a time; a feedback voice still speaking stops first,
//! because the child is about to speak. The window's shell command and
//! `deskmate say --listen` both call these.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use deskmate_orchestrator::entry::{Listen, Response, Talking};
use deskmate_speech::listen::Release;

use crate::{AppError, AppResult, Deskmate};

/// The talks going on, by child: their stop buttons.
#[derive(Debug, Clone, Default)]
pub(crate) struct Talks(Arc<Mutex<HashMap<String, Release>>>);

impl Talks {
    fn begin(&self, profile_id: &str, release: &Release) -> AppResult<()> {
        let mut open = self
            .0
            .lock()
            .map_err(|_| AppError::Poisoned("the talks' lock was poisoned"))?;
        if open.contains_key(profile_id) {
            return Err(AppError::Invalid(
                "the microphone is already listening to this child".into(),
            ));
        }
        open.insert(profile_id.to_string(), release.clone());
        Ok(())
    }

    fn end(&self, profile_id: &str) -> Option<Release> {
        self.0.lock().ok().and_then(|mut m| m.remove(profile_id))
    }
}

impl Deskmate {
    /// Listens to `profile_id` until they fall silent (or
    /// [`Deskmate::talk_stop`]), then answers what they said through the
    /// one entry, as [`Deskmate::process`] answers typed words. `report`
    /// hears the level and the text so far while listening, then
    /// `thinking`. Nothing said, no microphone or no speech models come
    /// back as the response's coded `error`, nothing stored.
    pub fn talk(
        &self,
        profile_id: &str,
        report: impl Fn(Talking) + Send + Sync + 'static,
    ) -> AppResult<Response> {
        let (entry, model_ready) = self.answering_entry(profile_id)?;
        let listen = Listen::new(report);
        self.talks.begin(profile_id, &listen.release)?;
        self.voice_out.interrupt();
        let answered = entry.talk(profile_id, &listen, chrono::Utc::now(), model_ready);
        self.talks.end(profile_id);
        let response = answered?;
        self.lamp().act_out(&response.lamp);
        Ok(response)
    }

    /// The stop button: the child's talk stops listening now and what was
    /// said so far is answered. False when no talk was listening.
    pub fn talk_stop(&self, profile_id: &str) -> bool {
        match self.talks.end(profile_id) {
            Some(release) => {
                release.release();
                true
            }
            None => false,
        }
    }
}
