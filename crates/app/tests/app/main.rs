//! The app's integration tests, one binary (fewer links on 2 cores). Each
//! module is one former test file.

mod lamp_voice_practice;
mod typescript;
mod voice_out;
