//! A microphone for tests: ALSA's default capture device reading raw 16 kHz
//! mono S16_LE samples from a FIFO (or a plain file), the speaker a null
//! sink. A process that sets `ALSA_CONFIG_PATH` to [`FifoMic::alsa_config`]
//! — the test's own process (one test per binary: the setting is
//! process-wide) or a child process such as the `deskmate` binary — opens it
//! through cpal like a real microphone. The test decides what it hears:
//! speech at speaking pace, looped ([`FifoMic::feed_looping`]), or a few
//! seconds and then nothing, the pipe kept open ([`FifoMic::feed_then_stall`]).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The sample rate the FIFO carries.
pub const RATE: u32 = 16_000;

/// The ALSA configuration template shared with the window tests
/// (`crates/testkit/alsa-file-mic.conf`); `@INFILE@` is the file read.
const ALSA_TEMPLATE: &str = include_str!("../alsa-file-mic.conf");

/// The ALSA configuration that makes `infile` the default capture device.
pub fn alsa_config(infile: &Path) -> String {
    ALSA_TEMPLATE.replace("@INFILE@", &infile.display().to_string())
}

/// A FIFO in `dir` and the ALSA configuration that reads it.
pub struct FifoMic {
    fifo: PathBuf,
    conf: PathBuf,
    stop: Arc<AtomicBool>,
}

impl FifoMic {
    /// Makes `dir/mic.fifo` and `dir/asound.conf`; panics if `mkfifo` fails.
    pub fn new(dir: &Path) -> Self {
        let fifo = dir.join("mic.fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {} failed", fifo.display());
        let conf = dir.join("asound.conf");
        std::fs::write(&conf, alsa_config(&fifo)).unwrap();
        Self {
            fifo,
            conf,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The path to give `ALSA_CONFIG_PATH`.
    pub fn alsa_config(&self) -> &Path {
        &self.conf
    }

    /// Opens the FIFO read+write, which keeps a writer on the pipe without
    /// waiting for a reader.
    fn open(&self) -> File {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.fifo)
            .unwrap()
    }

    /// Feeds `speech` (16 kHz mono, [-1, 1]) at speaking pace, over and over,
    /// until [`FifoMic::stop`] or the mic is dropped. Once the microphone
    /// closes nobody reads the pipe, so a write may block for good: the
    /// thread is left to end with the test.
    pub fn feed_looping(&self, speech: &[f32]) {
        self.feed_at_pace(pcm16(speech), None);
    }

    /// Feeds `speech` once at speaking pace and then silence, as a child who
    /// recites and falls quiet, until [`FifoMic::stop`] or the mic is dropped.
    pub fn feed_then_silence(&self, speech: &[f32]) {
        self.feed_at_pace(pcm16(speech), Some(vec![0u8; (RATE as usize) * 2]));
    }

    /// Writes `first` at real time, then `then` over and over (or `first`
    /// again when there is no `then`).
    fn feed_at_pace(&self, first: Vec<u8>, then: Option<Vec<u8>>) {
        let mut pipe = self.open();
        let stop = self.stop.clone();
        std::thread::spawn(move || {
            let mut bytes = first;
            let chunk = (RATE as usize) * 2 / 10; // 100 ms
            let started = Instant::now();
            let mut sent = 0usize;
            'outer: while !stop.load(Ordering::SeqCst) {
                for piece in bytes.chunks(chunk) {
                    if stop.load(Ordering::SeqCst) || pipe.write_all(piece).is_err() {
                        break 'outer;
                    }
                    sent += piece.len();
                    // Stay at real time: the VAD and the partials hear speech as a child says it.
                    let due = Duration::from_secs_f64(sent as f64 / (f64::from(RATE) * 2.0));
                    if let Some(wait) = due.checked_sub(started.elapsed()) {
                        std::thread::sleep(wait);
                    }
                }
                if let Some(next) = &then {
                    bytes.clone_from(next);
                }
            }
        });
    }

    /// Writes `speech` at once and then nothing, keeping the pipe open, so
    /// the driver's read blocks: a microphone that stalls. Join the handle
    /// (after closing the capture) to close the pipe.
    pub fn feed_then_stall(&self, speech: &[f32]) -> JoinHandle<File> {
        let mut pipe = self.open();
        let bytes = pcm16(speech);
        std::thread::spawn(move || {
            pipe.write_all(&bytes).unwrap();
            pipe // kept open: reads block instead of ending
        })
    }

    /// Stops a looping feed.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Drop for FifoMic {
    fn drop(&mut self) {
        self.stop();
    }
}

/// 16 kHz mono samples as raw S16_LE bytes.
pub fn pcm16(samples: &[f32]) -> Vec<u8> {
    samples
        .iter()
        .flat_map(|s| ((s.clamp(-1.0, 1.0) * 32767.0) as i16).to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alsa_template_reads_the_file_at_the_fifos_rate() {
        let conf = alsa_config(Path::new("/tmp/mic.raw"));
        assert!(conf.contains(r#"infile "/tmp/mic.raw""#), "{conf}");
        assert!(!conf.contains("@INFILE@"), "{conf}");
        assert!(conf.contains(&format!("slave.rate {RATE}")), "{conf}");
        assert!(conf.contains("slave.channels 1"), "{conf}");
    }
}
