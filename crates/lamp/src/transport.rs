//! The serial transport under the driver: opens a port, runs a reader
//! thread that decodes frames into the driver's inbox, and writes frames.
//!
//! Every open port gets a generation number; the reader tags what it sends
//! with it, so the driver can ignore news from a port it already closed.

use std::io::{ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serialport::{ClearBuffer, SerialPort};

use crate::frame::{Envelope, FrameDecoder, FrameError};

/// Nominal line speed. USB CDC-ACM ignores it; a real UART bridge would not.
pub const BAUD_RATE: u32 = 115_200;
/// How long one blocking read waits before the reader checks whether to stop.
const READ_POLL: Duration = Duration::from_millis(50);
/// How long a write may wait for room in the line's buffer.
const WRITE_TIMEOUT: Duration = Duration::from_millis(100);

/// What the reader thread reports to the driver.
#[derive(Debug)]
pub(crate) enum LineNews {
    Frame(Envelope),
    BadFrame(FrameError),
    /// The port failed: unplugged, hung up, or removed.
    Lost(String),
}

/// Where the reader sends its news: a callback so the driver decides how to
/// wrap it into its own inbox.
pub(crate) type NewsSink = Box<dyn Fn(LineNews) -> bool + Send>;

/// An open port with its reader thread.
pub(crate) struct Transport {
    port: Box<dyn SerialPort>,
    stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
}

/// Why a write did not go out.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The line had no room in time; the frame is lost, the port still works.
    Full,
    /// The port is gone.
    Lost(String),
}

impl Transport {
    /// Opens `name`, drops stale input, and starts the reader.
    pub fn open(name: &str, sink: NewsSink) -> Result<Self, String> {
        let port = serialport::new(name, BAUD_RATE)
            .timeout(WRITE_TIMEOUT)
            .open()
            .map_err(|e| e.to_string())?;
        // Stale bytes from before we opened are harmless to the decoder, but
        // dropping them keeps the first reply from being mistaken for noise.
        let _ = port.clear(ClearBuffer::All);
        let mut reader_port = port.try_clone().map_err(|e| e.to_string())?;
        reader_port
            .set_timeout(READ_POLL)
            .map_err(|e| e.to_string())?;
        let stop = Arc::new(AtomicBool::new(false));
        let reader_stop = stop.clone();
        let reader = std::thread::Builder::new()
            .name(format!("lamp-reader {name}"))
            .spawn(move || read_loop(reader_port, &reader_stop, &sink))
            .map_err(|e| format!("cannot start the reader thread: {e}"))?;
        Ok(Self {
            port,
            stop,
            reader: Some(reader),
        })
    }

    /// Writes one encoded frame.
    pub fn send(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        match self.port.write_all(bytes) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::TimedOut => Err(WriteError::Full),
            Err(e) => Err(WriteError::Lost(e.to_string())),
        }
    }
}

impl Drop for Transport {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Join so the port (and its lock) is really closed before a reopen.
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

fn read_loop(mut port: Box<dyn SerialPort>, stop: &AtomicBool, sink: &NewsSink) {
    let mut decoder = FrameDecoder::new();
    let mut buf = [0u8; 512];
    while !stop.load(Ordering::Relaxed) {
        match port.read(&mut buf) {
            Ok(0) => {
                sink(LineNews::Lost("the port reached end of file".into()));
                return;
            }
            Ok(n) => {
                for item in decoder.push(&buf[..n]) {
                    let news = match item {
                        Ok(envelope) => LineNews::Frame(envelope),
                        Err(e) => LineNews::BadFrame(e),
                    };
                    if !sink(news) {
                        return;
                    }
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::TimedOut | ErrorKind::Interrupted | ErrorKind::WouldBlock
                ) => {}
            Err(e) => {
                if !stop.load(Ordering::Relaxed) {
                    sink(LineNews::Lost(e.to_string()));
                }
                return;
            }
        }
    }
}
