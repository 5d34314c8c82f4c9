//! `ui/src/protocol.ts` is generated from the Rust types the UI receives
//! (the protocol crate's views and events, and the core's data types, which
//! derive `ts_rs::TS` behind their `ts` feature). This test renders it again
//! and fails when the checked-in file differs; with `UPDATE_PROTOCOL_TS=1`
//! it writes the file instead.
#![cfg(feature = "ts")]

use std::path::PathBuf;

use deskmate_app::doctor::{Check, Status};
use deskmate_app::practice::PracticeView;
use deskmate_app::report_attempts::ListedAttempt;
use deskmate_app::AppError;
use deskmate_orchestrator::PracticeState;
// The event stream and its payloads are protocol types; where they mirror a
// core type of the same name (a task's verdict, the lamp's notices), the
// protocol's is the one rendered (the core's serializes alike: see the
// conversion tests in crates/app/src/events.rs).
use deskmate_protocol::events::{AppEvent, ReminderEvent};
use deskmate_protocol::lamp::{
    ArmPose, Button, Capability, Card, ConnectionState, DeviceEvent, DeviceInfo, Expression,
    Gesture, LampNotice, LampState, Light, ProjectorState,
};
use deskmate_protocol::practice::{
    ErrorKind, ErrorType, FeedbackView, PracticeResult, RecitationError, TaskEvent, TaskStatus,
};
use deskmate_protocol::typescript::{add_protocol_types, Module};
use deskmate_protocol::voice::{CloudVoice, PlaybackEvent, VoiceNotice, VoiceTest};
use deskmate_recite::history::Purpose;
use deskmate_recite::report::{
    DaySummary, PeriodSummary, Report, ReportType, Trend, WeakMaterial, WeakPattern,
};
use deskmate_recite::schedule::DueReview;
use deskmate_recite::Mode;
use deskmate_store::{
    Material, MaterialFilter, MaterialSource, NewMaterial, NewProfile, Profile, ProfileKind,
};

const HEADER: &str = "\
// Generated from the Rust types by `UPDATE_PROTOCOL_TS=1 cargo test -p deskmate-app --test app typescript`
// (crates/app/tests/app/typescript.rs). Do not edit by hand: change the Rust type and regenerate.
/* eslint-disable */";

fn generated() -> String {
    let mut m = Module::new(HEADER);
    add_protocol_types(&mut m);
    m.raw("// Family and library (deskmate-store)")
        .add::<ProfileKind>()
        .add::<Profile>()
        .add::<NewProfile>()
        .add::<MaterialSource>()
        .add::<Material>()
        .add::<NewMaterial>()
        .add::<MaterialFilter>()
        .raw("// Recitation (deskmate-recite, deskmate-orchestrator, deskmate-app)")
        .add::<Mode>()
        .add::<ErrorType>()
        .add::<ErrorKind>()
        .add::<RecitationError>()
        .add::<FeedbackView>()
        .add::<PracticeResult>()
        .add::<PracticeState>()
        .add::<PracticeView>()
        .add::<TaskStatus>()
        .add::<TaskEvent>()
        .add::<DueReview>()
        .raw("// Reports")
        .add::<ReportType>()
        .add::<PeriodSummary>()
        .add::<Trend>()
        .add::<WeakPattern>()
        .add::<WeakMaterial>()
        .add::<DaySummary>()
        .add::<Report>()
        .add::<Purpose>()
        .add::<ListedAttempt>()
        .raw("// Settings: doctor and the feedback voice")
        .add::<Status>()
        .add::<Check>()
        .add::<CloudVoice>()
        .add::<VoiceTest>()
        .raw("// The desk lamp (deskmate-lamp)")
        .add::<ConnectionState>()
        .add::<Capability>()
        .add::<DeviceInfo>()
        .add::<Light>()
        .add::<Expression>()
        .add::<Gesture>()
        .add::<ArmPose>()
        .add::<Card>()
        .add::<ProjectorState>()
        .add::<Button>()
        .add::<DeviceEvent>()
        .add::<LampState>()
        .add::<LampNotice>()
        .raw("// The one entry for what a child says (deskmate-orchestrator)")
        .add::<deskmate_orchestrator::router::Intent>()
        .add::<deskmate_orchestrator::router::Confidence>()
        .add::<deskmate_orchestrator::router::RoutedBy>()
        .add::<deskmate_orchestrator::router::Scene>()
        .add::<deskmate_orchestrator::guardrails::Decision>()
        .add::<deskmate_orchestrator::entry::Timings>()
        .add::<deskmate_orchestrator::entry::MaterialRef>()
        .add::<deskmate_orchestrator::plan::TaskKind>()
        .add::<deskmate_orchestrator::plan::PlanTask>()
        .add::<deskmate_orchestrator::plan::Plan>()
        .add::<deskmate_store::GoalKind>()
        .add::<deskmate_store::Goal>()
        .add::<deskmate_orchestrator::homework::Help>()
        .add::<deskmate_orchestrator::homework::Mark>()
        .add::<deskmate_orchestrator::homework::HomeworkCard>()
        .add::<deskmate_orchestrator::entry::LampCue>()
        .add::<deskmate_orchestrator::entry::Suggestion>()
        .add::<deskmate_orchestrator::entry::Response>()
        .add::<deskmate_orchestrator::entry::Talking>()
        .add::<deskmate_orchestrator::trace::Outcome>()
        .add::<deskmate_orchestrator::trace::Span>()
        .add::<deskmate_orchestrator::entry::Trace>()
        .raw("// What the companion knows: knowledge bases, memories, MCP servers, files handed over")
        .add::<deskmate_protocol::files::FileUpload>()
        .add::<deskmate_protocol::knowledge::KnowledgeBaseView>()
        .add::<deskmate_protocol::knowledge::KnowledgeDocumentView>()
        .add::<deskmate_protocol::knowledge::KnowledgeProgress>()
        .add::<deskmate_store::MemoryKind>()
        .add::<deskmate_store::MemorySource>()
        .add::<deskmate_store::Memory>()
        .add::<deskmate_protocol::mcp::McpTransport>()
        .add::<deskmate_app::mcp::McpServer>()
        .add::<deskmate_protocol::mcp::McpToolView>()
        .raw("// The one event stream: every channel with its payload")
        .add::<PlaybackEvent>()
        .add::<VoiceNotice>()
        .add::<ReminderEvent>()
        .add::<AppEvent>()
        .raw("// Every code a failure can carry (WireError.code); ui/src/errors.ts has words for each")
        .strings("ERROR_CODES", "ErrorCode", &AppError::codes())
        .raw("// Every code a routine's problem can carry (RoutineProblem.code); the editor has words for each")
        .strings(
            "ROUTINE_PROBLEM_CODES",
            "RoutineProblemCode",
            &deskmate_orchestrator::routine::PROBLEM_CODES,
        );
    m.render()
}

#[test]
fn ui_protocol_ts_matches_the_rust_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/protocol.ts");
    let want = generated();
    if std::env::var_os("UPDATE_PROTOCOL_TS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "ui/src/protocol.ts is not what the Rust types generate. Regenerate it with\n  \
         UPDATE_PROTOCOL_TS=1 cargo test -p deskmate-app --test app typescript\nand commit the result."
    );
}
