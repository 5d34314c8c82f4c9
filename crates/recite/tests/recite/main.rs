//! The recitation engine's integration tests, one binary (fewer links on 2
//! cores). Each module is one former test file.

mod check_rules;
mod fixture;
mod practice;
mod properties;
mod retake;
