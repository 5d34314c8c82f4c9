//! How the entry hears a child: the words in a recording, in speech the
//! microphone cut out, or heard live while the talk button is on. The
//! practice scene's [`Microphone`] is the real ear; anything else that
//! implements [`Hearing`] (a test's scripted ears) can stand in.

use std::path::Path;

use deskmate_speech::asr::{Lang as AsrLang, MANDARIN_PROMPT};
use deskmate_speech::attempt::NotAnAttempt;
use deskmate_speech::listen::Release;

use crate::scene::{Listened, ListeningSink, Microphone, SceneError, SceneResult, Speech};

/// How the entry hears a recording: the words said in it. Fails with a
/// coded [`SceneError`] when no words can be heard.
pub trait Hearing: Send + Sync + std::fmt::Debug {
    fn words(&self, recording: &Path, lang: AsrLang) -> SceneResult<String>;

    /// Listens to the microphone until the child falls silent (or
    /// `release`); levels and partial texts go to `report`. Without a
    /// microphone to listen with, `models.needed`.
    fn listen(
        &self,
        _lang: AsrLang,
        _release: &Release,
        _report: ListeningSink,
    ) -> SceneResult<Listened> {
        Err(SceneError::ModelsNeeded(
            "nothing here can listen to a microphone".into(),
        ))
    }

    /// The words in speech the microphone heard.
    fn words_in(&self, _speech: &Speech, _lang: AsrLang) -> SceneResult<String> {
        Err(SceneError::ModelsNeeded(
            "nothing here can transcribe speech".into(),
        ))
    }
}

/// The practice scene's ears hear what is said to the entry too: the same
/// models, loaded once, the same voice detector cutting the speech out, the
/// same whisper worker.
impl Hearing for Microphone {
    fn words(&self, recording: &Path, lang: AsrLang) -> SceneResult<String> {
        let heard = self.pipeline()?.hear_file(recording, lang, None)?;
        words_heard(heard.transcript)
    }

    fn listen(
        &self,
        lang: AsrLang,
        release: &Release,
        report: ListeningSink,
    ) -> SceneResult<Listened> {
        self.listen_for_speech(lang, None, release, report)
    }

    fn words_in(&self, speech: &Speech, lang: AsrLang) -> SceneResult<String> {
        if speech.samples.is_empty() {
            return Err(SceneError::NotAnAttempt(NotAnAttempt::NothingHeard));
        }
        words_heard(Some(self.transcribe_speech(speech, lang)?))
    }
}

/// The words whisper heard, or why there are none a child said.
fn words_heard(transcript: Option<deskmate_speech::asr::Transcript>) -> SceneResult<String> {
    let Some(transcript) = transcript else {
        return Err(SceneError::NotAnAttempt(NotAnAttempt::NothingHeard));
    };
    let words = transcript.text.trim();
    if words.is_empty() {
        return Err(SceneError::NotAnAttempt(
            if transcript.raw_text.trim().is_empty() {
                NotAnAttempt::NothingHeard
            } else {
                NotAnAttempt::OnlyPunctuation
            },
        ));
    }
    // Whisper giving back its own neutral prompt heard no words it trusts.
    let hanzi: String = words.chars().filter(|c| is_hanzi(*c)).collect();
    if hanzi.chars().count() >= 4 && MANDARIN_PROMPT.contains(&hanzi) {
        return Err(SceneError::NotAnAttempt(NotAnAttempt::PromptEcho));
    }
    Ok(words.to_string())
}

/// Whisper's language for a child speaking `locale`.
pub(super) fn asr_lang(locale: &str) -> AsrLang {
    if locale.starts_with("en") {
        AsrLang::En
    } else {
        AsrLang::Zh
    }
}

fn is_hanzi(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}')
}
